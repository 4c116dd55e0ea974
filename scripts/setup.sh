#!/usr/bin/env bash
# Installs every Debian package that building and testing headroom needs.
# Idempotent: packages already present are skipped, and apt is not touched at all when
# nothing is missing. Needs root (or sudo) only when something must be installed.
set -euo pipefail

packages=(
  # toolchain
  build-essential cmake ninja-build pkg-config ccache git
  clang clang-format clang-tidy libclang-rt-14-dev
  # libraries the code links
  libabsl-dev
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
  nlohmann-json3-dev
  libspdlog-dev libfmt-dev
  libcpp-httplib-dev libssl-dev openssl
  libyaml-cpp-dev libsimdjson-dev
  zlib1g-dev  # headroom simulate --usage-trace (usage.csv.gz)
  libboost1.81-dev  # Boost.Beast: the HTTP server (io/http_server.h)
  prometheus-cpp-dev  # both daemons' /metrics (app/metrics.h)
  # tests and benchmarks
  libgtest-dev libgmock-dev googletest libbenchmark-dev
  python3 python3-yaml  # scripts/check-dashboard.py
  chromium  # e2e/local/ui-suite.sh: the status page in a real headless browser
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ "${#missing[@]}" -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages present"
  exit 0
fi

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  sudo_cmd=(sudo)
fi

echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
echo "setup: done"
