#!/bin/bash
# dropin_ab.sh — two builds of the MPI drop-in and the MPI alone, side by
# side: R repetitions of one bench/dropin_bench.c run under each (A, B and
# M = the MPI without the drop-in), their order rotated every repetition
# (A B M, B M A, M A B); prints per cell the median of the runs' medians
# (us) under each, B / A (median and range of the per-repetition ratios)
# and B / M (median of the per-repetition ratios).  For a change to the
# drop-in's per-call path: an old commit's build against a new one
# (docs/perf/per-call-work.md).
#
#   bench/dropin_ab.sh P COLLS SIZES REPS LIB_A LIB_B
#
#   git worktree add /tmp/old HEAD~1 && cmake -S /tmp/old -B /tmp/old/build \
#       -DCMAKE_BUILD_TYPE=Release && make -C /tmp/old/build intercom_dropin_openmpi
#   bench/dropin_ab.sh 2 gather,bcast 8,256 6 /tmp/old/build/dropin/openmpi/libintercom_mpi.so \
#       build/dropin/openmpi/libintercom_mpi.so
#
# IMPL=mpich runs MPICH's launcher and program instead of Open MPI's;
# BENCH=DIR the directory with dropin_bench_<impl> (default build-bench,
# made by bench/dropin_compare.sh); DB_ARGS more options for dropin_bench
# (default --sync window, iterations adaptive as in bench/compare).
set -euo pipefail
p=${1:?usage: dropin_ab.sh P COLLS SIZES REPS LIB_A LIB_B}
colls=${2:?} sizes=${3:?} reps=${4:?} lib_a=${5:?} lib_b=${6:?}
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
impl=${IMPL:-openmpi}
bin=${BENCH:-$here/build-bench}/dropin_bench_$impl
[[ -x $bin ]] || { echo "dropin_ab: no $bin (bench/dropin_compare.sh builds it)" >&2; exit 1; }
for l in "$lib_a" "$lib_b"; do
    [[ -f $l ]] || { echo "dropin_ab: no drop-in $l" >&2; exit 1; }
done
raw=$(mktemp)
trap 'rm -f "$raw"' EXIT

run() { # label lib rep
    local cmd
    if [[ $impl == openmpi ]]; then
        cmd=(mpirun.openmpi --oversubscribe --allow-run-as-root --mca btl self,vader,tcp -n "$p")
        [[ $2 == mpi ]] || cmd+=(-x "LD_PRELOAD=$2")
    else
        cmd=(mpiexec.mpich -n "$p")
        [[ $2 == mpi ]] || cmd+=(-genv LD_PRELOAD "$2")
    fi
    # shellcheck disable=SC2086 # DB_ARGS: several options
    timeout 300 "${cmd[@]}" "$bin" --sizes "$sizes" --colls "$colls" ${DB_ARGS:---sync window} \
        2>/dev/null | awk -v L="$1" -v R="$3" '/^cell/ {
            for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
            print R, L, v["coll"], v["bytes"], v["median_us"] }' >> "$raw" || true
}

for ((r = 0; r < reps; r++)); do
    case $((r % 3)) in
        0) run A "$lib_a" $r; run B "$lib_b" $r; run M mpi $r ;;
        1) run B "$lib_b" $r; run M mpi $r; run A "$lib_a" $r ;;
        2) run M mpi $r; run A "$lib_a" $r; run B "$lib_b" $r ;;
    esac
    echo "dropin_ab: repetition $((r + 1)) of $reps done" >&2
done

echo "# dropin_ab.sh p=$p impl=$impl reps=$reps A=$lib_a B=$lib_b"
python3 - "$raw" <<'PY'
import collections, statistics as st, sys
d = collections.defaultdict(dict)
for line in open(sys.argv[1]):
    r, lab, coll, b, med = line.split()
    d[(coll, int(b))].setdefault(lab, {})[int(r)] = float(med)
print("%-22s %9s %9s %9s %9s %6s %12s %6s" % ("coll", "bytes", "A", "B", "mpi", "B/A", "range",
                                              "B/mpi"))
for k in sorted(d):
    v = d[k]
    if not all(x in v for x in "ABM"):
        continue
    ba = [v["B"][r] / v["A"][r] for r in v["A"] if r in v["B"]]
    bm = [v["B"][r] / v["M"][r] for r in v["B"] if r in v["M"]]
    print("%-22s %9d %9.3f %9.3f %9.3f %6.2f %5.2f-%5.2f %6.2f" % (
        k[0], k[1], st.median(v["A"].values()), st.median(v["B"].values()),
        st.median(v["M"].values()), st.median(ba), min(ba), max(ba), st.median(bm)))
PY
