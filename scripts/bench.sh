#!/usr/bin/env bash
# make bench: every benchmark in bench/ plus the tests labelled "bench".
set -euo pipefail
BUILD="$1"
cd "$(dirname "$0")/.."
for b in "$BUILD"/bench/bench_*; do
  [[ -x "$b" ]] || continue
  echo "=== $(basename "$b")"
  "$b"
done
(cd "$BUILD" && ctest -L bench --output-on-failure -j 1 --timeout 3600) || exit 1
