#!/usr/bin/env bash
# Fixture helpers in the shape of InferenceX's benchmarks/benchmark_lib.sh (written
# for servebench's capture tests): the few functions the fixture scripts call.

export PORT="${PORT:-8888}"
export GPU_METRICS_CSV="${GPU_METRICS_CSV:-gpu_metrics.csv}"

# Agentic jobs run at the model's native context length.
if [[ "${IS_AGENTIC:-0}" == "1" ]]; then
    unset MAX_MODEL_LEN
fi

check_env_vars() {
    local missing=()
    local name
    for name in "$@"; do
        [[ -z "${!name:-}" ]] && missing+=("$name")
    done
    if ((${#missing[@]})); then
        echo "Error: required environment variables are not set: ${missing[*]}"
        exit 1
    fi
}

# Polls the server's /health until it answers, while the server process lives.
wait_for_server_ready() {
    local port="" log="" pid=""
    while (($#)); do
        case "$1" in
            --port) port="$2"; shift 2 ;;
            --server-log) log="$2"; shift 2 ;;
            --server-pid) pid="$2"; shift 2 ;;
            *) echo "Unknown parameter: $1"; return 1 ;;
        esac
    done
    while [[ ! -f "$log" ]]; do
        kill -0 "$pid" 2>/dev/null || { echo "Server died before writing $log" >&2; exit 1; }
        sleep 1
    done
    until curl --output /dev/null --silent --fail "http://0.0.0.0:${port}/health"; do
        kill -0 "$pid" 2>/dev/null || { echo "Server died before becoming ready" >&2; exit 1; }
        sleep 5
    done
}

# The fixed-sequence-length client: InferenceX's benchmark_serving.py flags.
run_benchmark_serving() {
    local model="" port="" backend="" isl="" osl="" ratio="" prompts="" conc=""
    local result_filename="" result_dir="" extra=()
    while (($#)); do
        case "$1" in
            --model) model="$2"; shift 2 ;;
            --port) port="$2"; shift 2 ;;
            --backend) backend="$2"; shift 2 ;;
            --input-len) isl="$2"; shift 2 ;;
            --output-len) osl="$2"; shift 2 ;;
            --random-range-ratio) ratio="$2"; shift 2 ;;
            --num-prompts) prompts="$2"; shift 2 ;;
            --max-concurrency) conc="$2"; shift 2 ;;
            --result-filename) result_filename="$2"; shift 2 ;;
            --result-dir) result_dir="$2"; shift 2 ;;
            --use-chat-template | --trust-remote-code) extra+=("$1"); shift ;;
            *) echo "Unknown parameter: $1"; return 1 ;;
        esac
    done
    python3 "$(pwd)/utils/bench_serving/benchmark_serving.py" \
        --model "$model" --backend "$backend" --base-url "http://0.0.0.0:$port" \
        --dataset-name random --random-input-len "$isl" --random-output-len "$osl" \
        --random-range-ratio "$ratio" --num-prompts "$prompts" --max-concurrency "$conc" \
        --request-rate inf --ignore-eos --save-result --num-warmups "$((2 * conc))" \
        --percentile-metrics 'ttft,tpot,itl,e2el' --result-dir "$result_dir" \
        --result-filename "$result_filename.json" "${extra[@]}"
}
