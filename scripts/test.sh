#!/usr/bin/env bash
# Builds intercom and runs the whole test suite with ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build build -j2
cd build
ctest -j2 --output-on-failure
