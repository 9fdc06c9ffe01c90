#!/usr/bin/env bash
# Fixture: the shape of InferenceX's MiniMax-M3 H200 script. The model is served from
# its snapshot folder in the HF cache, resolved after `hf download` (refs/main names
# the revision), so the folder's name is known only where the script runs.
set -eo pipefail

source "$(dirname "$0")/../../benchmark_lib.sh"

check_env_vars MODEL TP CONC ISL OSL RANDOM_RANGE_RATIO RESULT_FILENAME

MODEL_CACHE_DIR="${HF_HUB_CACHE:-$HOME/.cache/huggingface/hub}/models--${MODEL//\//--}"
resolve_snapshot() {
    [[ -f "$MODEL_CACHE_DIR/refs/main" ]] || return 0
    local snapshot
    snapshot="$MODEL_CACHE_DIR/snapshots/$(cat "$MODEL_CACHE_DIR/refs/main")"
    [[ -f "$snapshot/config.json" ]] && echo "$snapshot"
    return 0
}
MODEL_PATH=$(resolve_snapshot)
if [[ -z "$MODEL_PATH" ]]; then
    DOWNLOADED_MODEL_PATH=$(hf download "$MODEL")
    MODEL_PATH=$(resolve_snapshot)
    if [[ -z "$MODEL_PATH" ]]; then
        echo "Downloaded model snapshot is incomplete: $DOWNLOADED_MODEL_PATH" >&2
        exit 1
    fi
fi
export MODEL_PATH

SERVER_LOG=/workspace/server.log
vllm serve "$MODEL_PATH" --served-model-name "$MODEL" --host 0.0.0.0 --port "$PORT" \
    --tensor-parallel-size "$TP" > "$SERVER_LOG" 2>&1 &
SERVER_PID=$!
wait_for_server_ready --port "$PORT" --server-log "$SERVER_LOG" --server-pid "$SERVER_PID"

run_benchmark_serving --model "$MODEL" --port "$PORT" --backend vllm --input-len "$ISL" \
    --output-len "$OSL" --random-range-ratio "$RANDOM_RANGE_RATIO" \
    --num-prompts "$((CONC * 10))" --max-concurrency "$CONC" \
    --result-filename "$RESULT_FILENAME" --result-dir /workspace/
