# Lumin: `make test` sets up everything and runs the whole suite; `make run` starts the server.
# The first of python3.11, 3.12, 3.13 and python3 that is 3.11 or newer (3.11 first: the tests'
# and the image's); `make PYTHON=...` names another.
ifndef PYTHON
PYTHON := $(or $(firstword $(foreach p,python3.11 python3.12 python3.13 python3,$(shell \
  command -v $(p) >/dev/null 2>&1 && $(p) -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
  2>/dev/null && echo $(p)))),python3.11)
endif
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
RUN_STAMP := $(VENV)/.installed-run
WEB := clients/web
WEB_STAMP := $(WEB)/node_modules/.installed
CHROMIUM := /usr/bin/chromium

.PHONY: setup run test lint typecheck services deploy-tools unit bench-smoke clean
.PHONY: install-service
.PHONY: chromium web-deps web-build web-fresh-build web-vectors web-unit web-weight web-e2e web-test

# PyICU (the server extra) compiles against the system's ICU: Debian's libicu-dev, found
# through pkg-config, built with g++; installed with apt-get when missing.
ICU_HEADER := /usr/include/unicode/uspoof.h
PKG_CONFIG := /usr/bin/pkg-config
CXX_COMPILER := /usr/bin/g++
$(ICU_HEADER) $(PKG_CONFIG) $(CXX_COMPILER):
	apt-get update
	DEBIAN_FRONTEND=noninteractive apt-get install -y libicu-dev pkg-config g++

$(STAMP): pyproject.toml | $(ICU_HEADER) $(PKG_CONFIG) $(CXX_COMPILER)
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[server,dev]'
	touch $(STAMP)

setup: $(STAMP)

# What running needs and no more: the package with its server extra (no test, lint or deploy
# tools; `make setup` adds them to the same .venv), and the browser client's build, which an
# editable install serves from clients/web/dist (lumin/webclient.py). It prints the address
# to open in a browser.
$(RUN_STAMP): pyproject.toml | $(ICU_HEADER) $(PKG_CONFIG) $(CXX_COMPILER)
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[server]'
	touch $(RUN_STAMP)

run: $(RUN_STAMP) web-build
	$(BIN)/lumin serve --data data

lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# The client library, the terminal client and the example bot of docs/bots.md are checked
# strictly: what a bot author imports is fully typed (py.typed).
typecheck: setup
	$(BIN)/mypy -p engine $(if $(wildcard protocol/__init__.py),-p protocol)
	$(BIN)/mypy --strict clients/sdk clients/terminal docs/examples

# PostgreSQL (127.0.0.1:5432, trust auth) and Redis (127.0.0.1:6379) for the tests: running ones
# are used, missing ones installed with apt-get and started (or LUMIN_TEST_POSTGRES and
# LUMIN_TEST_REDIS name others, only checked); `scripts/services.py --dry-run` shows the plan.
services: setup
	$(BIN)/python scripts/services.py

# nginx, docker-compose, systemd-analyze and openssl check deploy/ (tests/deploy): installed
# from Debian when missing (the systemd package only for systemd-analyze: nothing is started).
NGINX := /usr/sbin/nginx
COMPOSE := /usr/bin/docker-compose
SYSTEMD_ANALYZE := /usr/bin/systemd-analyze
OPENSSL := /usr/bin/openssl
$(NGINX) $(COMPOSE) $(SYSTEMD_ANALYZE) $(OPENSSL):
	apt-get update
	DEBIAN_FRONTEND=noninteractive apt-get install -y nginx-light docker-compose systemd openssl

deploy-tools: $(NGINX) $(COMPOSE) $(SYSTEMD_ANALYZE) $(OPENSSL)
	for tool in docker-compose systemd-analyze openssl; do \
	  command -v $$tool >/dev/null || { echo "deploy-tools: $$tool is not on PATH"; exit 1; }; \
	done

# tests/packaging plays a game in Chromium on the page an installed wheel serves.
unit: setup services deploy-tools chromium
	$(BIN)/pytest -n 2

# Lumin for deploy/lumin.service, as root: PREFIX/.venv with `pip install '.[server]'` (no dev
# extras, not editable), the built browser client inside the package (deploy/install.sh).
# WEB_BUILD=no skips the client's build and WEB_DIST names the build to package.
PREFIX ?= /opt/lumin
WEB_BUILD ?= yes
WEB_DIST ?= $(WEB)/dist
install-service: $(if $(filter yes,$(WEB_BUILD)),web-build)
	PYTHON=$(PYTHON) deploy/install.sh '$(PREFIX)' '$(WEB_DIST)'

# benchmarks/cost_account.py counts instructions with valgrind's callgrind.
VALGRIND := /usr/bin/valgrind
$(VALGRIND):
	apt-get update
	DEBIAN_FRONTEND=noninteractive apt-get install -y valgrind

bench-smoke: setup services $(VALGRIND)
	$(BIN)/python scripts/bench_smoke.py

# --- the browser client (clients/web, docs/web.md) ---------------------------------------------

# Debian's Chromium drives the end-to-end tests (Playwright never downloads a browser).
$(CHROMIUM):
	apt-get update
	DEBIAN_FRONTEND=noninteractive apt-get install -y chromium

chromium: $(CHROMIUM)

# npm ci whenever the lock file is newer than the installed node_modules.
$(WEB_STAMP): $(WEB)/package-lock.json
	@command -v npm >/dev/null || { echo "The browser client is built with Node 20 and npm," \
	  "which are not installed (Debian: apt-get install nodejs npm). Without them," \
	  "pip install 'lumin[server]' brings the client built (docs/install.md)."; exit 1; }
	cd $(WEB) && npm ci --no-audit --no-fund
	touch $(WEB_STAMP)

web-deps: $(WEB_STAMP)

# The product build type-checks src/ only (tsconfig.json): it never needs the generated vectors.
web-build: web-deps
	cd $(WEB) && npm run build

# The same build from only the files git would commit, as a fresh clone has them.
web-fresh-build: web-deps
	cd $(WEB) && bash scripts/fresh-build.sh

# The unit tests check the TypeScript codec, deltas and legal expansion against vectors the
# Python reference (protocol/, engine/) writes; regenerated each run so they never go stale.
# test:unit type-checks the tests (tsconfig.test.json) once the vectors exist, then runs Vitest.
web-vectors: setup
	$(BIN)/python $(WEB)/scripts/make_vectors.py

web-unit: web-deps web-vectors
	cd $(WEB) && npm run test:unit

# Page weight (gzipped JS and CSS, first load and on demand); fails over budget.
web-weight: web-build
	cd $(WEB) && npm run weight

# Starts its own `lumin serve` on a free port with a temporary data folder (see docs/web.md).
web-e2e: setup chromium web-build
	cd $(WEB) && npm run test:e2e

web-test: web-fresh-build web-unit web-weight web-e2e

test: lint typecheck unit bench-smoke web-test

clean:
	rm -rf $(VENV) $(WEB)/node_modules $(WEB)/dist $(WEB)/test-results
