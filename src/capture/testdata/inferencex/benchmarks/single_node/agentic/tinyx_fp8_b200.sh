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
    # As InferenceX's kimik3_fp4_b300_vllm_mtp.sh: the first active RDMA rail of the
    # node, read from sysfs at run time.
    RAIL=""
    for d in mlx5_0 mlx5_1 mlx5_2 mlx5_3; do
        if grep -q ACTIVE "/sys/class/infiniband/$d/ports/1/state" 2>/dev/null; then
            RAIL="$d"
            break
        fi
    done
    if [ -z "$RAIL" ]; then
        echo "Error: no active RDMA rail on $(hostname); Mooncake cannot initialise" >&2
        exit 1
    fi
    # As InferenceX's minimaxm3_fp8_h200_mtp.sh: an inline Python helper computes a
    # value the script goes on with.
    PER_RANK_GB=$(python3 - "$TOTAL_CPU_DRAM_GB" "$TP" <<'PY'
import sys
print(int(sys.argv[1]) // int(sys.argv[2]))
PY
)
    cat > "$MOONCAKE_CONFIG_PATH" <<JSON
{
  "mode": "embedded",
  "master_server_address": "127.0.0.1:$MOONCAKE_MASTER_PORT",
  "global_segment_size": "${PER_RANK_GB}GB",
  "protocol": "rdma",
  "device_name": "$RAIL"
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
