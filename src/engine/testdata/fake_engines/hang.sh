#!/bin/sh
# Fake engine: logs, then never becomes ready (no server); dies on SIGTERM.
echo "INFO fake engine loading weights"
while :; do sleep 1; done
