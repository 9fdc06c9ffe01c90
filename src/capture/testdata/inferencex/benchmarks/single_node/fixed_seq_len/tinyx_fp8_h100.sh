#!/usr/bin/env bash
# Fixture: a script that cannot be captured: before serving it asks the image's torch
# how many GPUs it sees, which only the image (and a GPU) can answer.
set -e
source "$(dirname "$0")/../../benchmark_lib.sh"
check_env_vars MODEL TP CONC
NGPU=$(python3 -c 'import torch; print(torch.cuda.device_count())')
if [[ -z "$NGPU" ]]; then
    echo "ERROR: the image's torch sees no GPU" >&2
    exit 1
fi
vllm serve "$MODEL" --port "$PORT" --tensor-parallel-size "$NGPU" > /workspace/server.log 2>&1 &
