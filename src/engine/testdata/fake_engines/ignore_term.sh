#!/bin/sh
# Fake engine: ignores SIGTERM (so does its sleep child); only SIGKILL ends it.
trap '' TERM
echo "INFO fake engine ignoring SIGTERM"
while :; do sleep 1; done
