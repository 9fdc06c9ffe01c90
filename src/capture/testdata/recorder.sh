#!/bin/bash
# Test helper: records how it was called, under $RECORD_DIR, in the stand-ins' record
# format (call_record.h), and exits 0. Installed under a server's name to execute a
# dry run's shell text and see exactly what it would start.
set -u
n=$(find "$RECORD_DIR" -mindepth 1 -maxdepth 1 | wc -l)
d="$RECORD_DIR/$(printf '%06d' "$n")-$$"
mkdir -p "$d"
printf '%s' "${0##*/}" > "$d/tool"
if (($#)); then printf '%s\0' "$@" > "$d/argv"; else : > "$d/argv"; fi
env -0 > "$d/env"
printf '%s' "$PWD" > "$d/cwd"
