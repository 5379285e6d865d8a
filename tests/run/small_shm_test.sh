#!/usr/bin/env bash
# small_shm_test.sh RUN VICTIM
# A /dev/shm too small for the job (an 8 MiB tmpfs mounted over /dev/shm in
# a private mount namespace) must give a clean error naming the sizes, not
# a SIGBUS in some rank.  Skipped (77) without root or mount namespaces.
set -u
run=$1 victim=$2
if [ "$(id -u)" -ne 0 ] || ! command -v unshare >/dev/null ||
   ! unshare -m true 2>/dev/null; then
  echo "SKIPPED: needs root and mount namespaces (unshare -m)"
  exit 77
fi
out=$(unshare -m sh -c "mount -t tmpfs -o size=8m tmpfs /dev/shm && \
      '$run' -n 64 --timeout 60 '$victim' kill" 2>&1)
status=$?
echo "$out" | tail -5
echo "exit status $status"
echo "$out" | grep -q "needs .* MiB of /dev/shm, which has 8.0 MiB free" ||
  { echo "FAIL: no message naming the sizes"; exit 1; }
echo "$out" | grep -qi "bus error\|signal 7" && { echo "FAIL: a rank got SIGBUS"; exit 1; }
[ "$status" -ne 0 ] || { echo "FAIL: exit status 0"; exit 1; }
echo "1 passed, 0 failed"
