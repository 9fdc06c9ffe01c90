#!/usr/bin/env bash
# Fixture: the shape of InferenceX's DP-attention SGLang scripts (glm5.2/dsv4
# sglang): under DP attention the engine moves to PORT+1 and sglang_router, started
# once the engine is ready, fronts its DP ranks on PORT, where the client goes.

source "$(dirname "$0")/../../benchmark_lib.sh"

check_env_vars MODEL TP EP_SIZE DP_ATTENTION CONC ISL OSL RANDOM_RANGE_RATIO RESULT_FILENAME

hf download "$MODEL"

BACKEND_PORT="$PORT"
PARALLEL_ARGS=(--tp "$TP")
if [ "$DP_ATTENTION" = "true" ]; then
    BACKEND_PORT=$((PORT + 1))
    PARALLEL_ARGS+=(--dp "$TP" --enable-dp-attention --ep-size "$EP_SIZE")
    export SGLANG_ROUTER_LOG_LEVEL=info
fi

SERVER_LOG=/workspace/server.log
python3 -m sglang.launch_server --model-path "$MODEL" --host 0.0.0.0 --port "$BACKEND_PORT" \
    "${PARALLEL_ARGS[@]}" --mem-fraction-static 0.85 > "$SERVER_LOG" 2>&1 &
SERVER_PID=$!
wait_for_server_ready --port "$BACKEND_PORT" --server-log "$SERVER_LOG" --server-pid "$SERVER_PID"

if [ "$DP_ATTENTION" = "true" ]; then
    ROUTER_LOG=/workspace/router.log
    python3 -m sglang_router.launch_router \
        --worker-urls "http://localhost:$BACKEND_PORT" \
        --policy consistent_hashing \
        --dp-aware \
        --host 0.0.0.0 \
        --port "$PORT" \
        --prometheus-port $((PORT + 10000)) > "$ROUTER_LOG" 2>&1 &
    ROUTER_PID=$!
    wait_for_server_ready --port "$PORT" --server-log "$ROUTER_LOG" --server-pid "$ROUTER_PID"
fi

run_benchmark_serving --model "$MODEL" --port "$PORT" --backend vllm --input-len "$ISL" \
    --output-len "$OSL" --random-range-ratio "$RANDOM_RANGE_RATIO" \
    --num-prompts "$((CONC * 10))" --max-concurrency "$CONC" \
    --result-filename "$RESULT_FILENAME" --result-dir /workspace/
