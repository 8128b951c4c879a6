#!/usr/bin/env bash
# The product build as a fresh clone makes it: copies the files git would commit under
# clients/web (tracked and new, nothing it ignores: no test vectors, no dist/) to a temporary
# folder, links this checkout's node_modules (run `npm ci` first) and runs `npm run build`
# there. Fails when the build depends on a generated or ignored file. `make web-fresh-build`.
set -euo pipefail
cd "$(dirname "$0")/.."
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
git ls-files -z --cached --others --exclude-standard . | while IFS= read -r -d '' file; do
  if [ -e "$file" ]; then cp --parents "$file" "$work/"; fi
done
ln -s "$PWD/node_modules" "$work/node_modules"
echo "fresh build in $work"
(cd "$work" && npm run build)
