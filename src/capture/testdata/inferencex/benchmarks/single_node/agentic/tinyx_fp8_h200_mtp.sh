#!/usr/bin/env bash
# Fixture: an agentic (trace replay) script with an aiperf client; its DRAM arm
# starts an LMCache server beside vLLM.
set -eo pipefail

source "$(dirname "$0")/../../benchmark_lib.sh"
SCRIPT_DIR="$(cd "$(dirname "$0")" && pwd)"

check_env_vars MODEL TP CONC KV_OFFLOADING RESULT_DIR DURATION

hf download "$MODEL"
hf download --repo-type dataset tiny-org/traces

mkdir -p "$RESULT_DIR"
SERVER_LOG="$RESULT_DIR/server.log"
OFFLOAD_ARGS=()
if [ "$KV_OFFLOADING" = "dram" ]; then
    # As InferenceX's LMCache scripts do: the L1 tier must fit the node's /dev/shm.
    SHM_FREE_GB=$(df -BG --output=avail /dev/shm 2>/dev/null | tail -1 | tr -dc '0-9')
    if [ -n "$SHM_FREE_GB" ] && [ "$TOTAL_CPU_DRAM_GB" -gt $((SHM_FREE_GB * 90 / 100)) ]; then
        echo "Error: LMCache L1 ${TOTAL_CPU_DRAM_GB} GB exceeds 90% of free /dev/shm." >&2
        exit 1
    fi
    lmcache server --port 5555 --http-port 5556 --l1-size-gb "$TOTAL_CPU_DRAM_GB" \
        > "$RESULT_DIR/lmcache.log" 2>&1 &
    # As InferenceX's wait_for_ready does: its health check is on the HTTP port.
    for _ in $(seq 1 600); do
        curl -sf "http://127.0.0.1:5556/healthcheck" > /dev/null && break
        sleep 1
    done
    OFFLOAD_ARGS=(--kv-transfer-config '{"kv_connector":"LMCacheMPConnector","kv_role":"kv_both"}')
fi

export VLLM_ENGINE_READY_TIMEOUT_S=3600
vllm serve "$MODEL" --host 0.0.0.0 --port "$PORT" --tensor-parallel-size "$TP" \
    --enable-prefix-caching --max-num-seqs 256 \
    --chat-template "$SCRIPT_DIR/../chat_templates/tinyx.jinja" \
    --speculative-config '{"method": "mtp", "num_speculative_tokens": 3, "rejection_sample_method": "synthetic", "synthetic_acceptance_length": 2.5}' \
    "${OFFLOAD_ARGS[@]}" > "$SERVER_LOG" 2>&1 &
SERVER_PID=$!
wait_for_server_ready --port "$PORT" --server-log "$SERVER_LOG" --server-pid "$SERVER_PID"

aiperf profile --url "http://localhost:$PORT" --endpoint /v1/chat/completions --streaming \
    --model "$MODEL" --concurrency "$CONC" --benchmark-duration "$DURATION" \
    --output-artifact-dir "$RESULT_DIR/aiperf_artifacts"
