#!/usr/bin/env bash
# fault_test.sh RUN VICTIM MODE EXPECTED_STATUS PATTERN
# Runs a 4-rank job whose rank 2 fails in MODE; checks the launcher's exit
# status, that it said which rank failed and how, and that it took well
# under the bound (the survivors did not hang).
set -u
run=$1 victim=$2 mode=$3 want=$4 pattern=$5
start=$(date +%s)
out=$("$run" -n 4 --timeout "${IC_FAULT_TIMEOUT:-20}" "$victim" "$mode" 2>&1)
status=$?
took=$(( $(date +%s) - start ))
echo "$out"
echo "exit status $status after ${took}s"
[ "$status" -eq "$want" ] || { echo "FAIL: exit status $status, want $want"; exit 1; }
echo "$out" | grep -q -- "$pattern" || { echo "FAIL: no line matching '$pattern'"; exit 1; }
[ "$took" -le 25 ] || { echo "FAIL: took ${took}s"; exit 1; }
echo "1 passed, 0 failed"
