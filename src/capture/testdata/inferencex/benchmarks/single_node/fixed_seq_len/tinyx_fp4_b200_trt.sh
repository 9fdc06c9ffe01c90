#!/usr/bin/env bash
# Fixture: TensorRT-LLM on B200 with a per-run config file, launched through mpirun
# as InferenceX's *_trt.sh scripts do.

source "$(dirname "$0")/../../benchmark_lib.sh"

check_env_vars MODEL TP EP_SIZE CONC ISL OSL MAX_MODEL_LEN RANDOM_RANGE_RATIO RESULT_FILENAME

if [[ "$MODEL" != /* ]]; then hf download "$MODEL"; fi

SERVER_LOG=/workspace/server.log
EXTRA_CONFIG_FILE="tinyx-fp4.yml"
cat > $EXTRA_CONFIG_FILE << EOF2
cuda_graph_config:
    enable_padding: true
    max_batch_size: $CONC
kv_cache_config:
    dtype: fp8
    free_gpu_memory_fraction: 0.8
EOF2

export TRTLLM_ENABLE_PDL=1
nvidia-smi

mpirun -n 1 --oversubscribe --allow-run-as-root \
    trtllm-serve $MODEL --port=$PORT \
    --backend=pytorch \
    --max_seq_len=$MAX_MODEL_LEN \
    --tp_size=$TP --ep_size=$EP_SIZE \
    --extra_llm_api_options=$EXTRA_CONFIG_FILE \
    > $SERVER_LOG 2>&1 &

SERVER_PID=$!
wait_for_server_ready --port "$PORT" --server-log "$SERVER_LOG" --server-pid "$SERVER_PID"

run_benchmark_serving \
    --model "$MODEL" \
    --port "$PORT" \
    --backend openai \
    --input-len "$ISL" \
    --output-len "$OSL" \
    --random-range-ratio "$RANDOM_RANGE_RATIO" \
    --num-prompts $(( CONC * 10 )) \
    --max-concurrency "$CONC" \
    --result-filename "$RESULT_FILENAME" \
    --result-dir /workspace/
