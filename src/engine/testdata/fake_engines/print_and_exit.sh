#!/bin/sh
# Fake engine: logs a startup line, then LINE ($1) on stderr, exits with CODE ($2).
echo "INFO fake engine starting (pid $$)"
echo "$1" >&2
exit "${2:-1}"
