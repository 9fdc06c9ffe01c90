#!/usr/bin/env bash
# Builds llama.cpp's llama-server (CPU only) from the source tree that the npm package
# node-llama-cpp ships, into a cache folder outside the work tree, and prints the
# binary's path. Rebuilds only when the cached build is missing or does not match what
# this script pins (package version, source commit, build flags, this CPU).
#
#   scripts/llama-server.sh          build if needed, print the binary's path
#   scripts/llama-server.sh --dir    build if needed, print the cache folder
#   scripts/llama-server.sh --check  print the path if cached, exit 1 otherwise
#
# The cache folder (SERVEBENCH_CACHE, default ${XDG_CACHE_HOME:-$HOME/.cache}/servebench)
# holds llama.cpp/<key>/{bin/llama-server, vocab/ggml-vocab-llama-spm.gguf, MANIFEST}.
# MANIFEST records what was built and the sha256 of each file; the build is checked
# against it before it is used. Why npm: no Debian package and no registry prebuilt
# carries llama-server; the package's git bundle is the whole llama.cpp tree
# (docs/engines.md, "llama.cpp"). `--ignore-scripts` means nothing of the package runs.
set -euo pipefail

PACKAGE=node-llama-cpp
VERSION=3.21.1
COMMIT=80fb11a  # the commit the bundle of 3.21.1 holds (llama.cpp release 0.4.0)
# sha256 of that package's llama/gitRelease.bundle: a republished package is refused.
BUNDLE_SHA256=9336d8aab8f8e6a8919380f3641fe92e57b02fb55df1b6bd083b82491a6293b8
CMAKE_OPTIONS=(
  -DCMAKE_BUILD_TYPE=Release -DLLAMA_OPENSSL=OFF -DLLAMA_USE_PREBUILT_UI=OFF
  -DLLAMA_BUILD_UI=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF
  -DBUILD_SHARED_LIBS=OFF -DGGML_NATIVE=ON -DLLAMA_CURL=OFF
)
VOCAB=ggml-vocab-llama-spm.gguf

mode=build
case "${1:-}" in
  "") ;;
  --dir) mode=dir ;;
  --check) mode=check ;;
  *) echo "llama-server.sh: unknown option '$1' (--dir, --check)" >&2; exit 64 ;;
esac

# GGML_NATIVE tunes for this CPU, so the CPU's feature flags are part of the key: a
# cache copied to another machine is rebuilt rather than crashing on an instruction.
cpu_flags=$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null | sha256sum | cut -c1-12)
options_sum=$(printf '%s\n' "${CMAKE_OPTIONS[@]}" | sha256sum | cut -c1-12)
key="$PACKAGE-$VERSION-$COMMIT-$options_sum-cpu$cpu_flags"
root="${SERVEBENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/servebench}/llama.cpp"
dir="$root/$key"

verified() {
  [[ -f "$dir/MANIFEST" && -x "$dir/bin/llama-server" && -f "$dir/vocab/$VOCAB" ]] || return 1
  (cd "$dir" && grep '^sha256 ' MANIFEST | cut -d' ' -f2- | sha256sum --quiet -c -) >/dev/null 2>&1
}

report() {
  if [[ $mode == dir ]]; then echo "$dir"; else echo "$dir/bin/llama-server"; fi
}

if verified; then report; exit 0; fi
if [[ $mode == check ]]; then
  echo "llama-server.sh: no verified build in $dir" >&2
  exit 1
fi

mkdir -p "$root"
# One build at a time per cache: a second caller (the other ctest pass, a parallel
# make) waits here and then finds the finished build.
exec 9>"$root/.lock"
flock 9
if verified; then report; exit 0; fi

for tool in npm git cmake c++ sha256sum; do
  command -v "$tool" >/dev/null || {
    echo "llama-server.sh: '$tool' is not installed (scripts/install-deps.sh installs it)" >&2
    exit 1
  }
done

work=$(mktemp -d "$root/.build.XXXXXX")
trap 'rm -rf "$work"' EXIT
start=$(date +%s)
echo "llama-server.sh: building llama-server from $PACKAGE@$VERSION into $dir (about 5 min on 2 cores)" >&2

npm install --silent --no-audit --no-fund --ignore-scripts --omit=optional \
  --prefix "$work/npm" "$PACKAGE@$VERSION" >&2
bundle="$work/npm/node_modules/$PACKAGE/llama/gitRelease.bundle"
[[ -f "$bundle" ]] || { echo "llama-server.sh: $PACKAGE@$VERSION has no llama/gitRelease.bundle" >&2; exit 1; }
bundle_sum=$(sha256sum "$bundle" | cut -d' ' -f1)
if [[ $bundle_sum != "$BUNDLE_SHA256" ]]; then
  echo "llama-server.sh: $bundle has sha256 $bundle_sum, expected $BUNDLE_SHA256" >&2
  exit 1
fi

git clone --quiet "$bundle" "$work/src" >&2
got=$(git -C "$work/src" rev-parse --short=7 HEAD)
[[ $got == "$COMMIT" ]] || { echo "llama-server.sh: bundle holds commit $got, expected $COMMIT" >&2; exit 1; }

jobs=${JOBS:-$(nproc)}
cmake -S "$work/src" -B "$work/build" -G Ninja "${CMAKE_OPTIONS[@]}" >"$work/cmake.log" 2>&1 ||
  { tail -n 40 "$work/cmake.log" >&2; echo "llama-server.sh: cmake configure failed" >&2; exit 1; }
cmake --build "$work/build" -j "$jobs" --target llama-server >"$work/build.log" 2>&1 ||
  { tail -n 40 "$work/build.log" >&2; echo "llama-server.sh: build failed" >&2; exit 1; }

stage="$work/out"
mkdir -p "$stage/bin" "$stage/vocab"
cp "$work/build/bin/llama-server" "$stage/bin/"
cp "$work/src/models/$VOCAB" "$stage/vocab/"
cp "$work/src/LICENSE" "$stage/LICENSE"
seconds=$(($(date +%s) - start))
{
  echo "package $PACKAGE@$VERSION"
  echo "commit $(git -C "$work/src" rev-parse HEAD)"
  echo "bundle_sha256 $bundle_sum"
  echo "cmake ${CMAKE_OPTIONS[*]}"
  echo "version $("$stage/bin/llama-server" --version 2>&1 | sed -n 's/^version: //p' | head -n1)"
  echo "build_seconds $seconds"
  echo "built $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  (cd "$stage" && sha256sum bin/llama-server "vocab/$VOCAB" LICENSE | sed 's/^/sha256 /')
} >"$stage/MANIFEST"
rm -rf "$dir"
mv "$stage" "$dir"
echo "llama-server.sh: built in ${seconds}s" >&2
report
