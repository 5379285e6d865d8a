#!/usr/bin/env bash
# interrupt_test.sh RUN VICTIM — Ctrl-C on the launcher: a 4-rank job whose
# rank 2 hangs is interrupted with SIGINT after 1 s; the launcher must exit
# with 130 within a few seconds and leave no rank running.
set -u
run=$1 victim=$2
"$run" -n 4 "$victim" hang "interrupt-$$" &
pid=$!
sleep 1
kill -INT "$pid"
start=$(date +%s)
wait "$pid"
status=$?
took=$(( $(date +%s) - start ))
echo "exit status $status after ${took}s"
[ "$status" -eq 130 ] || { echo "FAIL: exit status $status, want 130"; exit 1; }
[ "$took" -le 10 ] || { echo "FAIL: took ${took}s"; exit 1; }
sleep 0.2
if pgrep -f "interrupt-$$" >/dev/null; then
  echo "FAIL: ranks still running"; pkill -9 -f "interrupt-$$"; exit 1
fi
echo "1 passed, 0 failed"
