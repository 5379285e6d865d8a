#!/usr/bin/env bash
# ThreadSanitizer test of the thread promise: builds the library, the
# launcher, test_threads and the transport's concurrency tests with
# -fsanitize=thread in a tree of their own (IC_TSAN=ON), runs two threads
# per rank on two communicators at p = 2 and p = 3, then test_shm_match,
# test_shm_many (6 ranks, both protocols) and test_shm_fault.  Any TSan
# report fails the test (exit code 66).  Exits 77 (skipped) when the
# compiler cannot build a TSan program here.
# usage: tsan_test.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src=$1
bin=$2
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
echo 'int main(void){return 0;}' >"$probe/p.c"
if ! cc -fsanitize=thread "$probe/p.c" -o "$probe/p" 2>/dev/null || ! "$probe/p"; then
  echo "SKIPPED: this compiler cannot build or run a ThreadSanitizer program"
  exit 77
fi
cmake -S "$src" -B "$bin" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DIC_TSAN=ON >/dev/null
cmake --build "$bin" -j2 --target intercom-run test_threads test_shm_match test_shm_many \
      test_shm_fault >/dev/null
export TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1"
for p in 2 3; do
  echo "== p = $p under ThreadSanitizer"
  "$bin/intercom-run" -n "$p" --timeout 600 --tag-output "$bin/tests/test_threads"
done
# The transport's own concurrency tests (forked ranks, waits, failures).
for t in test_shm_match "test_shm_many both 6 3" test_shm_fault; do
  echo "== $t under ThreadSanitizer"
  # shellcheck disable=SC2086
  "$bin/tests/"$t >/dev/null
done
echo "ThreadSanitizer: no report (two threads per rank at p = 2 and 3; the transport tests)"
