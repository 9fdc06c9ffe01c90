#!/usr/bin/env bash
# scripts/fuzz.sh BUILD_DIR SECONDS: runs every libFuzzer target in BUILD_DIR/fuzz
# for SECONDS each (called by `make fuzz`; FUZZ_SECS sets SECONDS). Corpora grow in
# BUILD_DIR/fuzz/corpus/<target>; crashes land in BUILD_DIR/fuzz/artifacts/.
# Exits non-zero when a target finds a crash, leak, timeout or out-of-memory.
set -euo pipefail
BUILD="${1:?usage: scripts/fuzz.sh BUILD_DIR SECONDS}"
SECS="${2:-600}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
status=0
for fuzzer in "$BUILD"/fuzz/*_fuzzer; do
  [ -x "$fuzzer" ] || continue
  name="$(basename "$fuzzer" _fuzzer)"
  corpus="$BUILD/fuzz/corpus/$name"
  artifacts="$BUILD/fuzz/artifacts/$name/"
  mkdir -p "$corpus" "$artifacts"
  seeds="$ROOT/fuzz/corpus/$name"
  dict=()
  [ -f "$ROOT/fuzz/$name.dict" ] && dict=(-dict="$ROOT/fuzz/$name.dict")
  [ -f "$ROOT/fuzz/recipe.dict" ] && [ ${#dict[@]} -eq 0 ] && dict=(-dict="$ROOT/fuzz/recipe.dict")
  echo "fuzz: $name for ${SECS}s (corpus $corpus)"
  # -timeout: one input may take at most 10 s; -rss_limit_mb bounds memory; -max_len
  # lets whole small recipes mutate. ASan leak checking stays on.
  if ! "$fuzzer" "$corpus" "$seeds" "${dict[@]}" -max_total_time="$SECS" -timeout=10 \
        -rss_limit_mb=2048 -max_len=65536 -artifact_prefix="$artifacts" -print_final_stats=1; then
    echo "fuzz: $name FOUND A PROBLEM; reproducer in $artifacts" >&2
    status=1
  fi
done
exit $status
