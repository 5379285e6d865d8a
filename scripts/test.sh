#!/usr/bin/env bash
# Builds intercom and runs the whole test suite with ctest (Release; the
# ThreadSanitizer and libFuzzer stages run inside it as tests), then the
# suite again under AddressSanitizer and UBSan (scripts/sanitize.sh).
# IC_TEST_NO_SANITIZE=1 skips that second stage for a quick local run.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh fuzz mpi
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build build -j2
(cd build && ctest -j2 --output-on-failure)
if [ "${IC_TEST_NO_SANITIZE:-0}" != 1 ]; then
  echo "== the suite under AddressSanitizer and UBSan (scripts/sanitize.sh)"
  scripts/sanitize.sh build-asan
fi
