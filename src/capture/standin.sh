#!/bin/bash
# servebench launch-capture stand-in (src/capture/README.md). One script installed
# under every name a launch script may call (vllm, python3, trtllm-serve, mpirun,
# hf, nvidia-smi, curl, pip, ...): it records how it was called, then behaves just
# enough like the real tool for the script to go on without a GPU:
#
#   server    (vllm serve, python3 -m sglang.launch_server, trtllm-serve, ...)
#             recorded, then stays alive until the capture ends it, as a server does
#   launcher  (mpirun, mpiexec, numactl, taskset) recorded, then exec's the program
#             it wraps (same pid, so the capture pairs the two records)
#   client    (benchmark_serving.py, aiperf profile) recorded; writes the result
#             files the script checks for
#   download  (hf / huggingface-cli download) recorded; a --local-dir inside the
#             capture's folder gets a config.json, as a finished download has; a
#             download into the HF cache makes its snapshot and prints the folder
#   gpu       (nvidia-smi, amd-smi, rocm-smi, rocminfo) recorded; reports an idle
#             node where a script polls for one, else prints nothing
#   patch     (sed -i on a file outside the capture's folder: the container image's)
#             recorded; succeeds without editing anything. Other sed calls are the
#             real sed, unrecorded
#   probe     (curl / wget of 0.0.0.0, 127.0.0.1, localhost) recorded; succeeds once a
#             server has recorded itself, else fails as with nothing listening (exit 7)
#   host      (df) recorded; df of /dev/shm answers as a GPU node's, other paths the
#             real df
#   python    (python3 -c CODE, python3 - <<EOF: the script's own inline helpers)
#             recorded; run by the host's Python (SERVEBENCH_CAPTURE_PYTHON) with the
#             stand-in image's packages on PYTHONPATH: what it prints when it succeeds
#             is what the script reads; when it fails (it needs a GPU, torch, the
#             network) it prints nothing and succeeds, as every other Python call
#   every other name: recorded, prints nothing, exits 0
#
# A record is a folder calls/<ns>-<pid> under $SERVEBENCH_CAPTURE_DIR: tool (the
# name called), role, argv and env (NUL-separated), cwd, and stdin for `python3 -`.
# Nothing here reads or writes outside the capture folder except the result files
# a script names (which the capture points into its own folder).
set -u
tool=${0##*/}
capture=${SERVEBENCH_CAPTURE_DIR:?the stand-in runs only under servebench capture}
sandbox=${SERVEBENCH_CAPTURE_SANDBOX:?}

# sed is the real one, except an in-place edit of a file outside the capture's
# folder: that patches InferenceX's container image, which is not here. Such a
# call is recorded (role patch) and succeeds; the capture notes it, not carried.
if [[ "$tool" == sed ]]; then
  in_place=0
  for a in "$@"; do
    case "$a" in -i | -i* | --in-place*) in_place=1 ;; esac
  done
  last=${!#}
  if ((in_place == 0)) || [[ "$last" != /* || "$last" == "$sandbox" || "$last" == "$sandbox"/* ]]; then
    exec "$SERVEBENCH_CAPTURE_SED" "$@"
  fi
fi

# Role of this call: server, aux (a server that is not the engine), launcher,
# client, download, gpu, patch, python, setup or other.
role=other
python_module=""
python_program=""
case "$tool" in
  vllm)
    case "${1:-}" in
      serve) role=server ;;
      bench) role=client ;;
    esac ;;
  trtllm-serve) role=server ;;
  sglang)
    [[ "${1:-}" == serve ]] && role=server ;;
  lmcache)
    [[ "${1:-}" == server ]] && role=aux ;;
  mooncake_master | vllm-router) role=aux ;;
  mpirun | mpiexec | numactl | taskset) role=launcher ;;
  sed) role=patch ;;
  nvidia-smi | amd-smi | rocm-smi | rocminfo) role=gpu ;;
  df) role=host ;;
  hf | huggingface-cli)
    [[ "${1:-}" == download ]] && role=download ;;
  aiperf)
    [[ "${1:-}" == profile ]] && role=client ;;
  python | python3 | python3.*)
    # Skip interpreter options up to -m MODULE, -c CODE, - or a script path.
    args=("$@")
    i=0
    while ((i < ${#args[@]})); do
      a=${args[i]}
      case "$a" in
        -m) python_module=${args[i + 1]:-}; break ;;
        -c) python_program="-c"; break ;;
        -) python_program="-"; break ;;
        -W | -X) i=$((i + 2)) ;;
        -*) i=$((i + 1)) ;;
        *) python_program=$a; break ;;
      esac
    done
    case "$python_module" in
      sglang.launch_server | atom.entrypoints.openai_server | vllm.entrypoints.openai.api_server)
        role=server ;;
      sglang_router.launch_router) role=aux ;;
      sglang.bench_serving) role=client ;;
      venv) role=setup ;;
      "")
        [[ "$python_program" == *benchmark_serving.py ]] && role=client
        [[ "$python_program" == - || "$python_program" == -c ]] && role=python ;;
      *) role=python ;;
    esac
    [[ -n "$python_program" && "$role" == other ]] && role=python ;;
esac

record="$capture/calls/$(date +%s%N)-$$"
mkdir -p "$record"
printf '%s' "$tool" > "$record/tool"
printf '%s' "$role" > "$record/role"
if (($#)); then printf '%s\0' "$@" > "$record/argv"; else : > "$record/argv"; fi
env -0 > "$record/env"
printf '%s' "$PWD" > "$record/cwd"
if [[ "$tool" == python* && "$python_program" == - ]]; then
  cat > "$record/stdin"
fi

# The value after FLAG in "$@" (FLAG VALUE or FLAG=VALUE), or "".
flag_value() {
  local flag=$1
  shift
  while (($#)); do
    case "$1" in
      "$flag") printf '%s' "${2:-}"; return ;;
      "$flag"=*) printf '%s' "${1#*=}"; return ;;
    esac
    shift
  done
}

inside_sandbox() {
  local path
  path=$(realpath -m -- "$1")
  [[ "$path" == "$sandbox" || "$path" == "$sandbox"/* ]]
}

case "$role" in
  server | aux)
    echo "servebench capture stand-in: $tool recorded as a server; serving until stopped"
    # Stay alive as a server does; the capture kills the process group when the
    # script ends. The bound is a backstop should the capture itself die.
    exec "$SERVEBENCH_CAPTURE_SLEEP" "${SERVEBENCH_CAPTURE_LIFETIME_S:-600}"
    ;;
  launcher)
    # Skip the launcher's options (and the values of those that take one) to the
    # program it runs, and become that program.
    args=("$@")
    i=0
    while ((i < ${#args[@]})); do
      a=${args[i]}
      case "$tool:$a" in
        mpi*:-n | mpi*:-np | mpi*:-c | mpi*:-x | mpi*:-H | mpi*:--host | mpi*:--hostfile | \
          mpi*:--map-by | mpi*:--bind-to | mpi*:--rank-by | mpi*:-wdir | mpi*:--wdir | \
          mpi*:--prefix | mpi*:-npernode | mpi*:--npernode | taskset:-c) i=$((i + 2)) ;;
        mpi*:-mca | mpi*:--mca) i=$((i + 3)) ;;
        taskset:-*) i=$((i + 1)) ;;
        taskset:*)
          # taskset [options] MASK PROGRAM...: the first plain word is the mask.
          if [[ -z "${taskset_mask:-}" ]]; then taskset_mask=$a; i=$((i + 1)); else break; fi ;;
        *:-*) i=$((i + 1)) ;;
        *) break ;;
      esac
    done
    if ((i >= ${#args[@]})); then exit 0; fi
    exec "${args[@]:i}"
    ;;
  client)
    dir=$(flag_value --result-dir "$@")
    file=$(flag_value --result-filename "$@")
    if [[ -n "$dir" && -n "$file" ]] && inside_sandbox "$dir"; then
      mkdir -p "$dir" && printf '{}\n' > "$dir/$file"
    fi
    artifacts=$(flag_value --output-artifact-dir "$@")
    if [[ -n "$artifacts" ]] && inside_sandbox "$artifacts"; then
      # What InferenceX's agentic steps read back (benchmark_lib.sh).
      prefix=${AIPERF_REQUIRED_SERVER_METRIC_PREFIX:-}
      mkdir -p "$artifacts"
      printf '{"%sstand_in": {}}\n' "$prefix" > "$artifacts/server_metrics_export.json"
      printf 'metric\n%sstand_in\n' "$prefix" > "$artifacts/server_metrics_export.csv"
      printf '{}\n' > "$artifacts/profile_export_aiperf.json"
      : > "$artifacts/profile_export.jsonl"
    fi
    echo "servebench capture stand-in: $tool recorded as the benchmark client"
    ;;
  download)
    # A finished download into --local-dir has at least the model's config.json,
    # which scripts check for. One into the HF cache makes the cache's layout, as
    # huggingface_hub does (refs/main naming a snapshot with a config, a tokenizer
    # config and a one-shard weight index), and prints the snapshot folder as
    # `hf download` does: a script may serve that folder (the capture carries it as
    # a value taken at launch). The revision is SERVEBENCH_CAPTURE_HUB_REVISION.
    dir=$(flag_value --local-dir "$@")
    repo=${2:-}
    if [[ -n "$dir" ]]; then
      if inside_sandbox "$dir"; then
        mkdir -p "$dir" && printf '{}\n' > "$dir/config.json"
      fi
    elif [[ "$(flag_value --repo-type "$@")" != dataset && "$repo" == */* && "$repo" != -* ]]; then
      cache=${HF_HUB_CACHE:-${HF_HOME:-$HOME/.cache/huggingface}/hub}
      rev=${SERVEBENCH_CAPTURE_HUB_REVISION:?}
      model="${cache%/}/models--${repo//\//--}"
      if inside_sandbox "$cache"; then
        snapshot="$model/snapshots/$rev"
        mkdir -p "$model/refs" "$snapshot"
        printf '%s' "$rev" > "$model/refs/main"
        printf '{}\n' > "$snapshot/config.json"
        printf '{}\n' > "$snapshot/tokenizer_config.json"
        printf '{"weight_map": {"w": "model-00001-of-00001.safetensors"}}\n' \
          > "$snapshot/model.safetensors.index.json"
        : > "$snapshot/model-00001-of-00001.safetensors"
        printf '%s\n' "$snapshot"
      fi
    fi
    ;;
  other)
    # A probe of the local server (curl http://0.0.0.0:PORT/health) answers once a
    # server has recorded itself, as a real endpoint answers only when up: a stand-in
    # server started in the background records itself a moment later, and the
    # client the script runs next must come after it in the records. Until then it
    # fails as curl does with nothing listening (exit 7, after waiting up to 2 s), so
    # a readiness loop polls again. Probes of other hosts (downloads) answer at once.
    # A probe of a port answers once a server that listens there (its --port or
    # --http-port, or none given) has recorded itself: a router started on PORT in
    # front of an engine on PORT+1 must be recorded before the script's client runs,
    # and an LMCache shard answers its health check on its --http-port.
    if [[ "$tool" == curl || "$tool" == wget ]] && [[ " $* " =~ ://(0\.0\.0\.0|127\.0\.0\.1|localhost)(:([0-9]+))?[/\ ] ]]; then
      probed=${BASH_REMATCH[3]}
      up=0
      for ((wait = 0; wait < 40; wait++)); do
        for role_file in "$capture"/calls/*/role; do
          grep -qsxE 'server|aux' "$role_file" || continue
          listens=$(tr '\0' ' ' < "${role_file%/role}/argv" 2>/dev/null) || continue
          if [[ -z "$probed" || ! " $listens" =~ \ --(http-)?port[=\ ] ||
            " $listens " =~ \ --(http-)?port[=\ ]$probed\  ]]; then
            up=1
            break 2
          fi
        done
        "$SERVEBENCH_CAPTURE_SLEEP" 0.05
      done
      ((up)) || exit 7
    fi
    ;;
  gpu)
    # Only what scripts read to go on (under `set -o pipefail` a grep that finds
    # nothing ends the script): an idle node, as wait_for_amd_gpu_clean polls for,
    # and MEC firmware 177, the first the MI300X scripts treat as current (older
    # firmware makes them export HSA_NO_SCRATCH_RECLAIM=1). Everything else a GPU
    # tool is asked prints nothing.
    if [[ "$tool" == rocm-smi ]]; then
      for ((g = 0; g < ${GPU_COUNT:-8}; g++)); do
        [[ " $* " == *" --showmemuse "* ]] && echo "GPU[$g]          : GPU Memory Allocated (VRAM%): 0"
        [[ " $* " == *" --showfw "* ]] && echo "GPU[$g]          : MEC firmware version: 177"
      done
    fi
    ;;
  host)
    # df of /dev/shm answers as on a GPU node, whose tmpfs is half its memory (1430 GB:
    # half of InferenceX's 3 TB DRAM cap): the LMCache scripts size their L1 tier
    # against it, and this machine's is not what InferenceX's job sees. Other paths
    # get the real df.
    if [[ " $* " != *" /dev/shm "* ]]; then exec /bin/df "$@"; fi
    if [[ " $* " == *"--output=avail"* ]]; then
      printf 'Avail\n1430G\n'
    else
      printf 'Filesystem     1G-blocks  Used Available Use%% Mounted on\n'
      printf 'tmpfs              1430G    0G     1430G   0%% /dev/shm\n'
    fi
    ;;
  python)
    # The script's inline helpers (python3 -c CODE, python3 - <<EOF) compute what it
    # goes on with: a snapshot path, the image's install root to patch. They run on
    # the host's Python against the stand-in image (empty engine packages), bounded
    # in time; one that fails here (it imports torch, probes a GPU) prints nothing and
    # succeeds, as every Python call of the stand-in did before.
    if [[ -n "${SERVEBENCH_CAPTURE_PYTHON:-}" && ("$python_program" == -c || "$python_program" == -) ]]; then
      input=/dev/stdin
      [[ "$python_program" == - ]] && input="$record/stdin"
      if PYTHONPATH="$SERVEBENCH_CAPTURE_IMAGE_SITE_PACKAGES" PYTHONNOUSERSITE=1 PYTHONDONTWRITEBYTECODE=1 \
        "$SERVEBENCH_CAPTURE_TIMEOUT" 20 "$SERVEBENCH_CAPTURE_PYTHON" "$@" < "$input" \
        > "$record/stdout" 2> "$record/stderr"; then
        cat "$record/stdout"
        cat "$record/stderr" >&2
      fi
    fi
    ;;
esac
# `uv venv [--python V] DIR` and `python3 -m venv DIR`: a venv whose tools are
# stand-ins too (InferenceX's agentic steps call them by path).
if [[ ("$tool" == uv && "${1:-}" == venv) || "$python_module" == venv ]]; then
  venv=""
  seen_venv=0
  while (($#)); do
    case "$seen_venv:$1" in
      0:venv) seen_venv=1; shift ;;
      0:*) shift ;;
      1:--python | 1:-p | 1:--prompt) shift 2 ;;
      1:-*) shift ;;
      1:*) venv=$1; shift ;;
    esac
  done
  if [[ -n "$venv" ]] && inside_sandbox "$venv"; then
    mkdir -p "$venv/bin"
    for name in python python3 pip aiperf hf huggingface-cli; do
      ln -sf "$SERVEBENCH_CAPTURE_STANDIN" "$venv/bin/$name"
    done
  fi
fi
exit 0
