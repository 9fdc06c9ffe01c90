#!/usr/bin/env bash
# Everything the real-engine tests and `make demo-llamacpp` need, cached outside the
# work tree and made only when missing: llama-server (scripts/llama-server.sh) and
# the random-weight models written by `servebench llamacpp-model` from the
# vocabulary GGUF of the same llama.cpp tree (tiny, tiny-draft, small).
#
#   scripts/llamacpp-setup.sh SERVEBENCH_BIN [ENV_FILE]
#
# Prints (and writes to ENV_FILE when given) two lines:
#   LLAMA_SERVER=<path of llama-server>
#   LLAMA_MODELS=<folder with tiny.gguf, tiny-draft.gguf, small.gguf>
# The models' folder is named after a checksum of the writer's source and the
# vocabulary, so a change to either writes new models; older folders are removed.
set -euo pipefail

bin=${1:?usage: llamacpp-setup.sh SERVEBENCH_BIN [ENV_FILE]}
env_file=${2:-}
root=$(cd "$(dirname "$0")/.." && pwd)
cache="${SERVEBENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/servebench}"
[[ -x "$bin" ]] || { echo "llamacpp-setup.sh: $bin is not an executable (build servebench first)" >&2; exit 1; }

server=$("$root/scripts/llama-server.sh")
engine_dir=$(dirname "$(dirname "$server")")
vocab="$engine_dir/vocab/ggml-vocab-llama-spm.gguf"

writer_sum=$(cat "$root/src/engine/llamacpp/gguf_file.cc" "$root/src/engine/llamacpp/random_llama_model.cc" \
  "$vocab" | sha256sum | cut -c1-12)
models_root="$cache/models"
models="$models_root/random-llama-$writer_sum"
mkdir -p "$models_root"
exec 8>"$models_root/.lock"
flock 8
for preset in tiny tiny-draft small; do
  if [[ ! -f "$models/$preset.gguf" ]]; then
    "$bin" llamacpp-model --preset "$preset" --vocab "$vocab" --out "$models/$preset.gguf" >/dev/null
  fi
done
for old in "$models_root"/random-llama-*; do
  [[ "$old" == "$models" ]] || rm -rf "$old"
done
flock -u 8

lines="LLAMA_SERVER=$server
LLAMA_MODELS=$models"
echo "$lines"
if [[ -n "$env_file" ]]; then
  tmp="$env_file.tmp.$$"
  echo "$lines" >"$tmp"
  mv "$tmp" "$env_file"
fi
