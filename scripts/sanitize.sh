#!/usr/bin/env bash
# The test suite under AddressSanitizer and UndefinedBehaviorSanitizer: a
# RelWithDebInfo build with -DIC_SANITIZE=ON in build-asan (or the
# directory given), then ctest.  Any sanitizer report fails its test (the
# build aborts on the first UBSan report; LeakSanitizer checks every
# process, the launcher's ranks included).
# usage: scripts/sanitize.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build-asan}
cmake -S . -B "$bin" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DIC_SANITIZE=ON >/dev/null
cmake --build "$bin" -j2
cd "$bin"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1
# The correctness matrices sample roots above p = 4 here (every root ran in
# the Release stage); see tests/coll/matrix.h.
export IC_TEST_SAMPLED=1
ctest -j2 --output-on-failure
