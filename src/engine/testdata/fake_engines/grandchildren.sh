#!/bin/sh
# Fake engine with workers: a background child, and an orphaned grandchild whose
# parent subshell exits (as engines' worker pools can leave behind). Writes the
# worker pids to $1, then waits. $2 = "exit" makes the engine exit after 0.5 s,
# leaving its workers running.
sleep 600 &
echo $! > "$1.tmp"
( sleep 600 & echo $! >> "$1.tmp" )
mv "$1.tmp" "$1"
echo "INFO fake engine with workers"
if [ "$2" = "exit" ]; then sleep 0.5; exit 0; fi
wait
