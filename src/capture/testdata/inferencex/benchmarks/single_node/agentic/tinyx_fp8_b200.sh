#!/usr/bin/env bash
# Fixture: an agentic script in the shape of InferenceX's minimaxm3_fp8_h200_mtp.sh
# (written for servebench's capture tests): its DRAM arm writes a Mooncake config,
# exports its path and starts `mooncake_master` in the background before vLLM,
# which reaches it through MooncakeStoreConnector.
set -eo pipefail

source "$(dirname "$0")/../../benchmark_lib.sh"

check_env_vars MODEL TP CONC KV_OFFLOADING RESULT_DIR DURATION

hf download "$MODEL"

mkdir -p "$RESULT_DIR"
SERVER_LOG="$RESULT_DIR/server.log"
MOONCAKE_MASTER_PID=""
cleanup_services() {
    [[ -n "$MOONCAKE_MASTER_PID" ]] && kill "$MOONCAKE_MASTER_PID" 2>/dev/null
    return 0
}
trap cleanup_services EXIT

OFFLOAD_ARGS=()
if [ "$KV_OFFLOADING" = "dram" ]; then
    MOONCAKE_MASTER_PORT=$((PORT + 12000))
    MOONCAKE_CONFIG_PATH="$RESULT_DIR/mooncake_config.json"
    cat > "$MOONCAKE_CONFIG_PATH" <<JSON
{
  "mode": "embedded",
  "master_server_address": "127.0.0.1:$MOONCAKE_MASTER_PORT",
  "global_segment_size": "$((TOTAL_CPU_DRAM_GB / TP))GB",
  "protocol": "rdma"
}
JSON
    export MOONCAKE_CONFIG_PATH PYTHONHASHSEED=0 MC_SLICE_SIZE=1048576
    mooncake_master --port "$MOONCAKE_MASTER_PORT" \
        --eviction_high_watermark_ratio=0.80 \
        --eviction_ratio=0.10 > "$RESULT_DIR/mooncake_master.log" 2>&1 &
    MOONCAKE_MASTER_PID=$!
    sleep 1
    kill -0 "$MOONCAKE_MASTER_PID"
    OFFLOAD_ARGS=(--kv-transfer-config '{"kv_connector":"MooncakeStoreConnector","kv_role":"kv_both"}')
fi

vllm serve "$MODEL" --host 0.0.0.0 --port "$PORT" --tensor-parallel-size "$TP" \
    --enable-prefix-caching --max-num-seqs 256 \
    "${OFFLOAD_ARGS[@]}" > "$SERVER_LOG" 2>&1 &
SERVER_PID=$!
wait_for_server_ready --port "$PORT" --server-log "$SERVER_LOG" --server-pid "$SERVER_PID"

aiperf profile --url "http://localhost:$PORT" --endpoint /v1/chat/completions --streaming \
    --model "$MODEL" --concurrency "$CONC" --benchmark-duration "$DURATION" \
    --output-artifact-dir "$RESULT_DIR/aiperf_artifacts"
