#!/usr/bin/env bash
# Fixture: vLLM with an EAGLE3 draft on MI355X, in the shape of InferenceX's
# fixed_seq_len/<model>_<precision>_<gpu>_mtp.sh scripts.

source "$(dirname "$0")/../../benchmark_lib.sh"

check_env_vars MODEL TP EP_SIZE DP_ATTENTION CONC ISL OSL MAX_MODEL_LEN \
    RANDOM_RANGE_RATIO RESULT_FILENAME

DRAFT_MODEL="tiny-org/TinyX-EAGLE3"

# The model is staged in the shared HF cache; the draft is fetched into it.
if [[ "$MODEL" != /* ]]; then
    hf download "$MODEL"
    hf download "$DRAFT_MODEL"
fi

# ROCR/HIP visibility for vLLM on ROCm.
if [ -n "$ROCR_VISIBLE_DEVICES" ]; then
    export HIP_VISIBLE_DEVICES="$ROCR_VISIBLE_DEVICES"
fi

SERVER_LOG=/workspace/server.log
export VLLM_ENGINE_READY_TIMEOUT_S=3600

PARALLEL_ARGS=(--tensor-parallel-size "$TP")
if [ "$DP_ATTENTION" = "true" ]; then
    PARALLEL_ARGS=(--tensor-parallel-size 1 --data-parallel-size "$TP" --enable-expert-parallel)
elif [ "$EP_SIZE" -gt 1 ]; then
    PARALLEL_ARGS+=(--enable-expert-parallel)
fi
if printf '%s\n' "${PARALLEL_ARGS[@]}" | grep -qxF -- '--enable-expert-parallel'; then
    export VLLM_ROCM_USE_AITER=0
else
    export VLLM_ROCM_USE_AITER=1
fi

rocm-smi || true
pip install -q datasets

# As InferenceX's apply_k3_container_patches.sh: the image's install root, found
# without importing vllm (which probes the GPU), is where its patches would go.
ROOT="$(python3 -c 'import importlib.util as u, os; print(os.path.dirname(os.path.dirname(u.find_spec("vllm").origin)))')"
if [ -z "$ROOT" ] || [ ! -d "$ROOT/vllm" ] || [ ! -d "$ROOT/aiter" ]; then
    echo "ERROR: could not resolve dist-packages (ROOT='$ROOT')" >&2
    exit 1
fi
echo "image install root: $ROOT"

set -x
vllm serve "$MODEL" --port "$PORT" \
    "${PARALLEL_ARGS[@]}" \
    --block-size 128 \
    --max-model-len "$MAX_MODEL_LEN" \
    --max-num-seqs "$((2 * CONC))" \
    --kv-cache-dtype fp8 \
    --speculative-config "{\"method\": \"eagle3\", \"model\": \"$DRAFT_MODEL\", \"num_speculative_tokens\": 3}" \
    --tool-call-parser minimax_m3 \
    --reasoning-parser minimax_m3 \
    --enable-auto-tool-choice > "$SERVER_LOG" 2>&1 &

SERVER_PID=$!
wait_for_server_ready --port "$PORT" --server-log "$SERVER_LOG" --server-pid "$SERVER_PID"

run_benchmark_serving \
    --model "$MODEL" \
    --port "$PORT" \
    --backend vllm \
    --input-len "$ISL" \
    --output-len "$OSL" \
    --random-range-ratio "$RANDOM_RANGE_RATIO" \
    --num-prompts "$((CONC * 10))" \
    --max-concurrency "$CONC" \
    --result-filename "$RESULT_FILENAME" \
    --result-dir /workspace/ \
    --trust-remote-code \
    --use-chat-template
