#!/bin/sh
# Regenerates src/record/testdata/release-0.1.0/ with the servebench of release 0.1.0
# (schema-1 records): seven nights of nightly.yaml on the simulated engine, nights 6
# and 7 with a 1.5x slower simulated build, into one SQLite store and record files,
# then that release's `regress` verdicts for nights 5 to 7.
#   make_fixture.sh OLD_SERVEBENCH OUT_DIR
# The fixture must come from the old release: never run this with a newer binary.
set -eu
bin=$1
out=$2
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$here/nightly.yaml" "$work/"
cd "$work"
for n in 1 2 3 4 5 6 7; do
  slow=""
  if [ "$n" -ge 6 ]; then slow="--sim-build-slowdown 1.5"; fi
  "$bin" nightly nightly.yaml --out out --db store.db --issue-delay-limit-ms 200 \
    --build-date "2026-11-0$n" --build-commit "c$n" --run-id "night-0$n" $slow > "night-$n.log" 2>&1
done
mkdir -p "$out/records"
cp store.db "$out/store.db"
cp out/records/*.json "$out/records/"
for n in 5 6 7; do
  "$bin" regress --db store.db --date "2026-11-0$n" --format json > "$out/regress-2026-11-0$n.json" || true
done
"$bin" --version > "$out/VERSION"
