#!/usr/bin/env bash
# make demo-llamacpp: the main job on a real engine. Builds llama.cpp's llama-server
# into the cache when missing (about 5 min on two cores, once) and writes the
# random-weight models (scripts/llamacpp-setup.sh), links the models where
# examples/llamacpp.yaml names them (out/llamacpp-models), puts the cached
# llama-server first on PATH (the adapter runs `llama-server`), then runs the sweep
# into a fresh store and writes the dashboard.
#
# The engine and the client share the machine's two cores, as in `make demo`: the
# demo states its looser client_saturated limit here and every record keeps it.
set -euo pipefail
BIN="$1"
cd "$(dirname "$0")/.."
setup=$(scripts/llamacpp-setup.sh "$BIN")
server=$(sed -n 's/^LLAMA_SERVER=//p' <<<"$setup")
models=$(sed -n 's/^LLAMA_MODELS=//p' <<<"$setup")
mkdir -p out
ln -sfn "$models" out/llamacpp-models
export PATH="$(dirname "$server"):$PATH"
rm -rf out/demo-llamacpp
status=0
"$BIN" run examples/llamacpp.yaml --out out/demo-llamacpp --db out/demo-llamacpp/servebench.db \
  --issue-delay-limit-ms 10 || status=$?
"$BIN" dashboard --db out/demo-llamacpp/servebench.db --out out/demo-llamacpp/dashboard.html \
  --title "servebench on llama.cpp (CPU, random-weight tiny model)"
exit "$status"
