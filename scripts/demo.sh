#!/usr/bin/env bash
# make demo: the main job on the built-in simulated engine. A fresh output folder
# and store each time, so the demo always shows a whole sweep.
#
# The demo runs the engine (servebench sim) on the same two cores as the client, so
# a scheduling hiccup of the simulated server can delay a send by a few ms; with the
# quickstart's small prompt counts the P99 issue delay is then one such hiccup. The
# 1 ms client_saturated rule (metrics.md §8) is for a client with the machine to
# itself; the demo states its looser limit here and every record keeps it.
set -euo pipefail
BIN="$1"
cd "$(dirname "$0")/.."
rm -rf out/demo
status=0
"$BIN" run examples/quickstart.yaml --out out/demo --db out/demo/servebench.db \
  --issue-delay-limit-ms 10 || status=$?
# The web view of what was just stored (docs/dashboard.md), written even after a
# failed point: it shows what failed and why.
"$BIN" dashboard --db out/demo/servebench.db --out out/demo/dashboard.html --title "servebench quickstart"
exit "$status"
