#!/usr/bin/env bash
# make demo: the main job on the built-in simulated engine.
set -euo pipefail
BIN="$1"
cd "$(dirname "$0")/.."
if "$BIN" --help | grep -q '^  run '; then
  exec "$BIN" run examples/quickstart.yaml --out out/demo
fi
echo "servebench run is not built yet; showing the quickstart's sweep matrix instead."
exec "$BIN" matrix examples/quickstart.yaml
