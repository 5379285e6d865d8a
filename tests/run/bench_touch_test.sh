#!/usr/bin/env bash
# bench_touch_test.sh RUN BENCH — intercom-bench --touch (every rank copies
# its input in again before each call) runs every collective at 3 ranks in
# both timing modes, says so in its header and prints a row per
# (collective, size): 15 collectives x 2 sizes + the barrier's one row.
# Under the sanitizers this also checks the rewrite stays in the buffers.
set -u
run=$1 bench=$2
for sync in window barrier; do
    out=$("$run" -n 3 --timeout 120 "$bench" --touch -c all --sizes 8,5K --iters 3 --warmup 1 \
        --sync "$sync" 2>&1)
    rc=$?
    if ((rc != 0)); then
        echo "FAIL --sync $sync: exit status $rc"; echo "$out"; exit 1
    fi
    if ! grep -q "^# each iteration: every rank rewrites its input (untimed)" <<<"$out"; then
        echo "FAIL --sync $sync: the header does not say the input is rewritten"; echo "$out"; exit 1
    fi
    rows=$(grep -cE '^[a-z_]+ +[0-9]+\*? ' <<<"$out")
    if ((rows != 31)); then
        echo "FAIL --sync $sync: $rows rows, want 31"; echo "$out"; exit 1
    fi
done
echo "PASS intercom-bench --touch: 31 rows in each timing mode"
