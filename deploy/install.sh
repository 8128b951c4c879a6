#!/bin/sh
# Install Lumin for deploy/lumin.service: `make install-service [PREFIX=/opt/lumin]` runs this
# after building the browser client (docs/install.md, "Running as a service").
#
#   deploy/install.sh PREFIX WEB_DIST
#
# PREFIX/.venv gets a fresh virtual environment holding the package from this checkout and
# the server's runtime dependencies only: `pip install '.[server]'`, not editable and without
# the [dev] extras, so the service's environment has no pytest, ruff or mypy and does not
# change when the checkout does. WEB_DIST (the built client, clients/web/dist) goes into the
# package (setup.py's LUMIN_WEB_DIST), which `lumin serve` serves when --static is not given:
# one way to serve it, as the wheel and the image do. Run it as root: what it writes stays
# root's and is only read by the service. Stop the service first and start it after: the venv
# is replaced.
set -eu

if [ $# -ne 2 ]; then
    echo "usage: deploy/install.sh PREFIX WEB_DIST" >&2
    exit 2
fi
prefix=$1
web_dist=$2
python=${PYTHON:-python3.11}
checkout=$(cd "$(dirname "$0")/.." && pwd)

if [ ! -f "$web_dist/index.html" ]; then
    echo "install.sh: $web_dist/index.html is missing: build the client (make web-build)" >&2
    exit 1
fi
web_dist=$(cd "$web_dist" && pwd)

# PyICU (the server's look-alike names) compiles against the system's ICU: its headers, found
# with pkg-config, and g++; Debian's packages are installed when missing.
if ! pkg-config --exists icu-i18n 2>/dev/null || ! command -v g++ >/dev/null; then
    if command -v apt-get >/dev/null; then
        apt-get update
        DEBIAN_FRONTEND=noninteractive apt-get install -y libicu-dev pkg-config g++
    else
        echo "install.sh: PyICU needs ICU's headers, pkg-config and g++ (libicu-dev on Debian)" >&2
        exit 1
    fi
fi

mkdir -p "$prefix"
# --clear: nothing of an earlier install (a `make setup` with its dev tools) survives.
"$python" -m venv --clear "$prefix/.venv"
# The wheel is built from a copy of the package's sources (as deploy/Dockerfile copies them):
# an in-tree build would leave build/ in the checkout, and package whatever stale modules an
# earlier build left there.
build=$(mktemp -d)
trap 'rm -rf "$build"' EXIT
tar -C "$checkout" --exclude=clients/web --exclude=__pycache__ \
    -cf - pyproject.toml setup.py README.md engine protocol server clients lumin | tar -C "$build" -xf -
LUMIN_WEB_DIST=$web_dist "$prefix/.venv/bin/python" -m pip install --quiet --no-cache-dir "$build[server]"
# An earlier install's copy of the client (LUMIN_STATIC=PREFIX/web) is served no more.
rm -rf "$prefix/web"
echo "Lumin installed in $prefix: $prefix/.venv/bin/lumin, serving the browser client it carries"
