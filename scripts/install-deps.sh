#!/usr/bin/env bash
# Installs the Debian 12 packages servebench builds and tests with, only those
# missing, so `make demo` and `make test` work as the first command on a fresh
# machine. Needs root (or sudo) for apt-get.
set -euo pipefail

PACKAGES=(
  cmake ninja-build g++ pkg-config git
  libboost1.81-dev libboost-json1.81-dev   # Asio, Beast (HTTP), JSON
  libyaml-cpp-dev                          # recipe files
  libsqlite3-dev libpq-dev                 # results store: SQLite, PostgreSQL
  libssl-dev                               # https:// in the load generator
  libcli11-dev libfmt-dev                  # command line, formatting
  libgtest-dev libgmock-dev libbenchmark-dev
  postgresql                               # a real server for the store tests
  python3
  clang-format                             # make format-check (run by make test)
)
for option in "$@"; do
  case "$option" in
    --with-browser) PACKAGES+=(chromium) ;;   # dashboard tests in a real headless browser
    --with-slurm) PACKAGES+=(slurm-wlm) ;;    # Slurm executor tests against a real controller
    # The real engine: llama.cpp's source comes from npm's node-llama-cpp
    # (scripts/llama-server.sh). Any npm will do; Debian's only when none is there
    # (a NodeSource nodejs already ships npm and conflicts with Debian's).
    --with-llamacpp) command -v npm >/dev/null || PACKAGES+=(npm) ;;
    *) echo "install-deps: unknown option $option (--with-browser, --with-slurm, --with-llamacpp)" >&2; exit 64 ;;
  esac
done

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if ((${#missing[@]} == 0)); then
  exit 0
fi
echo "servebench: installing missing packages: ${missing[*]}"
SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
