#!/usr/bin/env bash
# compare.sh — intercom next to Open MPI on 2 processes of this machine:
# 8-byte allreduce latency and 16 MiB broadcast time.
#
# Builds intercom (Release, build/) and bench/mpi_bench (mpicc -O2), then
# runs R repetitions in one session, alternating the two libraries (and
# which goes first), of
#   intercom-run -n 2 intercom-bench -c allreduce --sizes 8 ...
#   mpirun -n 2 ... bench/mpi_bench -c allreduce --sizes 8 ...
# and the same for bcast of 16 MiB.  Each run reports the median over its
# iterations (barrier, then one timed call; max over ranks); the table
# gives the median of the R runs' medians and the ratio intercom / Open MPI
# (> 1: intercom is slower).  Writes bench/results/compare-p2.txt.
#
# Environment: R (repetitions, >= 5, default 7), AR_ITERS/AR_WARMUP
# (allreduce, default 10000/1000), BC_ITERS/BC_WARMUP (bcast, default
# 200/20), BUILD_DIR (default build), MPIRUN_EXTRA (more mpirun options),
# PIN=1 (pin intercom rank r to CPU r mod the online CPUs with taskset, as Open MPI
# binds its ranks to cores by default; output bench/results/compare-p2-pinned.txt).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
P=2
R=${R:-7}
AR_ITERS=${AR_ITERS:-10000}
AR_WARMUP=${AR_WARMUP:-1000}
BC_ITERS=${BC_ITERS:-200}
BC_WARMUP=${BC_WARMUP:-20}
BC_SIZE=16777216
BUILD_DIR=${BUILD_DIR:-build}
OUT=bench/results/compare-p2.txt
PIN=${PIN:-0}
[ "$PIN" = 1 ] && OUT=bench/results/compare-p2-pinned.txt
if ! [[ "$R" =~ ^[0-9]+$ ]] || [ "$R" -lt 5 ]; then
    echo "compare.sh: R must be a whole number >= 5 (got '$R')" >&2
    exit 2
fi

# ---- build -----------------------------------------------------------------
scripts/deps.sh
bench/setup-mpi.sh
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$BUILD_DIR" -j2 --target intercom-run intercom-bench >/dev/null
mpicc -O2 -o bench/mpi_bench bench/mpi_bench.c

# Debian's Open MPI refuses to start as root without these; the shared-
# memory BTL (vader, single-copy via CMA) and the ob1 PML are pinned so a
# container without a network fabric does not probe for one.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
IC_RUN=("$BUILD_DIR/intercom-run" -n "$P" "$BUILD_DIR/intercom-bench")
if [ "$PIN" = 1 ]; then
    # shellcheck disable=SC2016
    IC_RUN=("$BUILD_DIR/intercom-run" -n "$P" sh -c
            'exec taskset -c $((IC_RANK % $(getconf _NPROCESSORS_ONLN))) "$0" "$@"' "$BUILD_DIR/intercom-bench")
fi
# shellcheck disable=SC2206
MPI_RUN=(mpirun -n "$P" --oversubscribe --allow-run-as-root --mca pml ob1
         --mca btl self,vader ${MPIRUN_EXTRA:-} bench/mpi_bench)
AR_ARGS=(-c allreduce --sizes 8 --iters "$AR_ITERS" --warmup "$AR_WARMUP")
BC_ARGS=(-c bcast --sizes "$BC_SIZE" --iters "$BC_ITERS" --warmup "$BC_WARMUP")

RAW=$(mktemp -d)
trap 'rm -rf "$RAW"' EXIT

# Runs one benchmark; appends the median (us) of its CSV row to $RAW/$1.
one() {
    local key=$1
    shift
    "$@" --csv "$RAW/last.csv" >"$RAW/last.out" 2>&1 || {
        echo "compare.sh: failed: $*" >&2
        cat "$RAW/last.out" >&2
        exit 1
    }
    awk -F, 'NR == 2 { print $8 }' "$RAW/last.csv" >>"$RAW/$key"
}

LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
echo "compare.sh: $R repetitions of 4 runs (intercom and Open MPI alternate) ..."
for ((i = 1; i <= R; i++)); do
    if ((i % 2)); then
        one ic_ar "${IC_RUN[@]}" "${AR_ARGS[@]}"
        one mpi_ar "${MPI_RUN[@]}" "${AR_ARGS[@]}"
        one ic_bc "${IC_RUN[@]}" "${BC_ARGS[@]}"
        one mpi_bc "${MPI_RUN[@]}" "${BC_ARGS[@]}"
    else
        one mpi_ar "${MPI_RUN[@]}" "${AR_ARGS[@]}"
        one ic_ar "${IC_RUN[@]}" "${AR_ARGS[@]}"
        one mpi_bc "${MPI_RUN[@]}" "${BC_ARGS[@]}"
        one ic_bc "${IC_RUN[@]}" "${BC_ARGS[@]}"
    fi
    echo "  repetition $i/$R done"
done

# Median of a file of numbers.
med() { sort -g "$1" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
runs() { tr '\n' ' ' <"$1"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)
ic_ar=$(med "$RAW/ic_ar")
mpi_ar=$(med "$RAW/mpi_ar")
ic_bc=$(med "$RAW/ic_bc")
mpi_bc=$(med "$RAW/mpi_bc")
{
    echo "# intercom vs Open MPI, p=$P, $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "# machine: nproc=$(nproc), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
    echo "# $(mpirun --version 2>/dev/null | head -n 1); intercom $(git rev-parse --short HEAD 2>/dev/null || echo '?') (+ working tree), Release"
    echo "# load average (1/5/15 min) before: $LOAD_BEFORE, after: $LOAD_AFTER"
    echo "# R=$R repetitions, alternating; each figure: median over the R runs of each run's median"
    echo "# run median: over the timed iterations (barrier, then one timed call; max over ranks)"
    echo "# intercom ranks pinned to CPUs (PIN=1): $([ "$PIN" = 1 ] && echo yes || echo no); Open MPI: its default binding (to core for 2 ranks)"
    echo "# intercom: $(printf '%q ' "${IC_RUN[@]}" "${AR_ARGS[@]}")"
    echo "#           $(printf '%q ' "${IC_RUN[@]}" "${BC_ARGS[@]}")"
    echo "# Open MPI: OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 $(printf '%q ' "${MPI_RUN[@]}" "${AR_ARGS[@]}")"
    echo "#           (same) ${BC_ARGS[*]}"
    echo "# allreduce: 8 bytes = 2 floats, SUM; bcast: 16 MiB of bytes from rank 0"
    printf '%-26s %14s %14s %16s\n' "test" "intercom_us" "openmpi_us" "intercom/openmpi"
    printf '%-26s %14.2f %14.2f %16s\n' "allreduce 8 B (latency)" "$ic_ar" "$mpi_ar" "$(ratio "$ic_ar" "$mpi_ar")"
    printf '%-26s %14.2f %14.2f %16s\n' "bcast 16 MiB" "$ic_bc" "$mpi_bc" "$(ratio "$ic_bc" "$mpi_bc")"
    echo "# the R run medians (us), in run order:"
    echo "#   allreduce intercom: $(runs "$RAW/ic_ar")"
    echo "#   allreduce Open MPI: $(runs "$RAW/mpi_ar")"
    echo "#   bcast intercom:     $(runs "$RAW/ic_bc")"
    echo "#   bcast Open MPI:     $(runs "$RAW/mpi_bc")"
} | tee "$OUT.tmp"
mv "$OUT.tmp" "$OUT"
echo "compare.sh: wrote $OUT"
