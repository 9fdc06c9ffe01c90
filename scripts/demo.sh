#!/usr/bin/env bash
# make demo: the main job on the built-in simulated engine. A fresh output folder
# and store each time, so the demo always shows a whole sweep.
set -euo pipefail
BIN="$1"
cd "$(dirname "$0")/.."
rm -rf out/demo
exec "$BIN" run examples/quickstart.yaml --out out/demo --db out/demo/servebench.db
