#!/usr/bin/env bash
# Fixture: the untagged H200 name; the sglang key must run tinyx_fp8_h200_sglang.sh.
echo "Error: tinyx_fp8_h200.sh is the vLLM script; the launchers pick _sglang.sh first" >&2
exit 1
