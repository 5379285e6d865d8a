#!/usr/bin/env bash
# launcher_killed_test.sh RUN VICTIM
# SIGKILL the launcher of a running 3-rank job (rank 2 hangs, the others
# wait in a collective): every rank must be gone within 1 s
# (PR_SET_PDEATHSIG), and nothing left in /dev/shm.
set -u
run=$1 victim=$2
errf=$(mktemp)
trap 'rm -f "$errf"' EXIT
"$run" -n 3 --show-segment "$victim" hang 2>"$errf" &
launcher=$!
sleep 1
ranks=$(pgrep -P "$launcher" | tr '\n' ' ')
seg=$(sed -n 's/^intercom-run: segment //p' "$errf")
[ -n "$ranks" ] || { echo "FAIL: no ranks found under launcher $launcher"; exit 1; }
echo "launcher $launcher, ranks $ranks, segment $seg"
kill -9 "$launcher"
wait "$launcher" 2>/dev/null
# A rank counts as gone once it has exited: it may linger as a zombie if
# the process that inherits it does not reap (PID 1 in some containers).
running() {
  local st
  st=$(sed -n 's/^[0-9]* (.*) \([A-Z]\) .*/\1/p' "/proc/$1/stat" 2>/dev/null)
  [ -n "$st" ] && [ "$st" != Z ] && [ "$st" != X ]
}
for i in $(seq 1 20); do
  alive=""
  for r in $ranks; do running "$r" && alive="$alive $r"; done
  [ -z "$alive" ] && break
  sleep 0.05
done
if [ -n "$alive" ]; then
  echo "FAIL: ranks$alive still alive 1 s after the launcher died"
  kill -9 $alive 2>/dev/null
  exit 1
fi
echo "every rank died with the launcher within $((i * 50)) ms"
if [ -n "$seg" ] && [ -e "/dev/shm$seg" ]; then
  echo "FAIL: $seg left in /dev/shm"
  rm -f "/dev/shm$seg"
  exit 1
fi
echo "1 passed, 0 failed"
