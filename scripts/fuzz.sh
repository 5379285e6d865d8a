#!/usr/bin/env bash
# Coverage-guided fuzzing with clang's libFuzzer: builds the fuzz targets
# of tests/fuzz (with AddressSanitizer and UBSan) in BUILD_DIR and runs
# each for SECONDS (default 10).  Any crash, sanitizer report or broken
# invariant fails; the input is left in BUILD_DIR/crashes.  Exits 77
# (skipped) when clang or its libFuzzer runtime is not installed
# (scripts/deps.sh fuzz installs them).
# usage: scripts/fuzz.sh [BUILD_DIR] [SECONDS]
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$src/build/fuzz}
secs=${2:-10}
cc=$(command -v clang || command -v clang-14 || true)
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
printf '#include <stdint.h>\n#include <stddef.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n){(void)d;(void)n;return 0;}\n' >"$probe/p.c"
if [ -z "$cc" ] || ! "$cc" -fsanitize=fuzzer "$probe/p.c" -o "$probe/p" 2>/dev/null; then
  echo "SKIPPED: clang with libFuzzer is not installed (scripts/deps.sh fuzz)"
  exit 77
fi
cmake -S "$src" -B "$bin" -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DIC_FUZZ=ON >/dev/null
cmake --build "$bin" -j2 --target fuzz_env fuzz_algo fuzz_tune >/dev/null
mkdir -p "$bin/crashes"
export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
for f in fuzz_env fuzz_algo fuzz_tune; do
  mkdir -p "$bin/corpus/$f"
  echo "== $f for $secs s"
  "$bin/tests/$f" -max_total_time="$secs" -max_len=4096 -print_final_stats=1 \
      -artifact_prefix="$bin/crashes/$f-" "$bin/corpus/$f" 2>&1 |
    grep -E "^(#[0-9]+ *DONE|stat::number_of_executed_units|stat::peak_rss|==[0-9]+==ERROR|SUMMARY|fuzz invariant)" || true
  if ls "$bin/crashes/$f-"* >/dev/null 2>&1; then
    echo "FAIL: $f found a crash: $(ls "$bin/crashes/$f-"*)"
    exit 1
  fi
done
echo "libFuzzer: no crash in 3 targets x $secs s"
