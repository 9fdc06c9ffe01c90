#!/usr/bin/env bash
# Fixture: SGLang on H200 under the framework-tagged name (preferred by the
# launchers over tinyx_fp8_h200.sh), with a chat template from the checkout.

source "$(dirname "$0")/../../benchmark_lib.sh"

check_env_vars MODEL TP CONC ISL OSL RANDOM_RANGE_RATIO RESULT_FILENAME

hf download "$MODEL"
export HUGGING_FACE_HUB_TOKEN="$HF_TOKEN"
# Patch the image's SGLang in place (as some InferenceX scripts do).
sed -i 's/cached_tokens=0/cached_tokens=None/' /sgl-workspace/sglang/python/sglang/srt/metrics.py
export SGLANG_ENABLE_JIT_DEEPGEMM=0

SERVER_LOG=/workspace/server.log
python3 -m sglang.launch_server --model-path "$MODEL" --host 0.0.0.0 --port "$PORT" \
    --tensor-parallel-size "$TP" --mem-fraction-static 0.85 \
    --chat-template "$(dirname "$0")/../chat_templates/tinyx.jinja" > "$SERVER_LOG" 2>&1 &
SERVER_PID=$!
wait_for_server_ready --port "$PORT" --server-log "$SERVER_LOG" --server-pid "$SERVER_PID"

run_benchmark_serving --model "$MODEL" --port "$PORT" --backend vllm --input-len "$ISL" \
    --output-len "$OSL" --random-range-ratio "$RANDOM_RANGE_RATIO" \
    --num-prompts "$((CONC * 10))" --max-concurrency "$CONC" \
    --result-filename "$RESULT_FILENAME" --result-dir /workspace/
