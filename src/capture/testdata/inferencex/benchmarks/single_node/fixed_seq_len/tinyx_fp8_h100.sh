#!/usr/bin/env bash
# Fixture: a script that cannot be captured: it needs an answer from the image's
# Python (where its packages live) before serving, which only the image has.
set -e
source "$(dirname "$0")/../../benchmark_lib.sh"
check_env_vars MODEL TP CONC
SITE=$(python3 -c 'import site; print(site.getsitepackages()[0])')
if [[ -z "$SITE" ]]; then
    echo "ERROR: could not find the image's site-packages" >&2
    exit 1
fi
cp "$(dirname "$0")/../patches/moe.py" "$SITE/tinyx/moe.py"
vllm serve "$MODEL" --port "$PORT" --tensor-parallel-size "$TP" > /workspace/server.log 2>&1 &
