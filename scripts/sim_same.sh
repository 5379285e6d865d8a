#!/usr/bin/env bash
# sim_same.sh OLD NEW [--quick] — do two intercom-sim binaries simulate the
# same times, bit for bit?
#
# Runs a fixed list of scenarios (every collective with every applicable
# entry on meshes, tori, hypercubes and the full network; each switching
# mode, all-port, set-up overlap, link speeds, hop times, data moved or not;
# and the scale runs up to p = 4096) through both binaries with --exact and
# compares every CSV field but the wall time.  Prints one line per scenario
# and a summary; exit status 1 when any time, link load, message or byte
# count differs.  --quick leaves out the p >= 1024 runs.
#
# Use it before and after changing the engine: build the old engine into
# another build directory (git worktree) and pass both intercom-sim paths.
set -u
old=${1:?usage: sim_same.sh OLD NEW [--quick]}
new=${2:?usage: sim_same.sh OLD NEW [--quick]}
quick=${3:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

colls="bcast reduce allreduce scatter scatterv gather gatherv allgather allgatherv
reduce_scatter_block reduce_scatter alltoall alltoallv barrier scan exscan"
scen=()
for net in "--mesh 5x7" "--torus 4x5" "--hypercube 4" "--full 12" "--mesh 3x3x3"; do
    for c in $colls; do
        scen+=("$net --coll $c --algos all --sizes 8,1K,64K,1M")
    done
done
for c in bcast allreduce allgather alltoall reduce_scatter_block; do
    scen+=("--mesh 6x6 --switching circuit --coll $c --algos all --sizes 8,4K,256K")
    scen+=("--mesh 6x6 --switching circuit --setup-overlap --coll $c --algos all --sizes 8,4K,256K")
    scen+=("--torus 6x6 --switching store-forward --coll $c --algos all --sizes 8,4K,256K")
    scen+=("--mesh 6x6 --all-port --coll $c --algos all --sizes 8,4K,256K")
    scen+=("--torus 8x8 --beta-net 0.004 --hop 0.5 --coll $c --algos all --sizes 8,4K,256K")
    scen+=("--mesh 4x6 --no-contention --coll $c --algos all --sizes 8,4K,256K")
    scen+=("--mesh 4x5 --check --elem float --coll $c --algos all --sizes 4K,100K")
    scen+=("--torus 16x16 --coll $c --algos all --sizes 8,64K,4M")
done
scen+=("--mesh 6x6 --ranks 20 --coll bcast --algos all --sizes 8,64K --root 7")
scen+=("--hypercube 7 --coll allreduce --algos all --sizes 8,1K,64K,1M,16M")
scen+=("--torus 32x32 --coll allreduce --algos all --sizes 8,1M")
scen+=("--mesh 12x18 --coll allreduce --algos hybrid,auto,pfr --sizes 8,4K,256K,4M")
scen+=("--full 360 --coll allreduce --algos auto,hybrid --sizes 8,4K,256K,4M")
if [ "$quick" != --quick ]; then
    scen+=("--mesh 64x64 --coll allreduce --algos dr --sizes 1M")
    scen+=("--torus 64x64 --coll allreduce --algos pfr,hybrid,reduce_bcast --sizes 8")
    scen+=("--hypercube 12 --coll allreduce --algos pfr,hybrid,reduce_bcast --sizes 8")
    scen+=("--mesh 16x16 --coll alltoall --algos all --sizes 64K")
fi

fail=0 same=0
for s in "${scen[@]}"; do
    # shellcheck disable=SC2086 # the scenario is a list of options
    "$old" $s --quiet --exact --csv "$tmp/old.csv" >/dev/null 2>"$tmp/old.err"
    o=$?
    # shellcheck disable=SC2086
    "$new" $s --quiet --exact --csv "$tmp/new.csv" >/dev/null 2>"$tmp/new.err"
    n=$?
    if [ $o -ne $n ]; then
        echo "DIFF  $s: exit $o (old) vs $n (new)"; fail=$((fail + 1)); continue
    fi
    if [ $o -ne 0 ]; then # both failed: the same message?
        if cmp -s "$tmp/old.err" "$tmp/new.err"; then
            same=$((same + 1)); echo "same  $s (both fail)"
        else
            echo "DIFF  $s: errors differ"; fail=$((fail + 1))
        fi
        continue
    fi
    cut -d, -f1-8 "$tmp/old.csv" >"$tmp/o"
    cut -d, -f1-8 "$tmp/new.csv" >"$tmp/n"
    rows=$(($(wc -l <"$tmp/o") - 1))
    if cmp -s "$tmp/o" "$tmp/n"; then
        same=$((same + 1)); echo "same  $s ($rows runs)"
    else
        fail=$((fail + 1)); echo "DIFF  $s:"; diff "$tmp/o" "$tmp/n" | head -6
    fi
done
echo "sim_same: ${#scen[@]} scenarios, $same the same, $fail different"
[ $fail -eq 0 ]
