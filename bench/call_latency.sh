#!/usr/bin/env bash
# call_latency.sh — the time of one small collective call, side by side:
# bench/call_latency.c under Open MPI, under MPICH, under each with the MPI
# drop-in (LD_PRELOAD=libintercom_mpi.so), and on intercom's own API
# (intercom-run); one run of each per round, the order rotated every round.
#
#   bench/call_latency.sh [-p 2] [--rounds 6] [--calls 100000] [--build build-bench]
#                         [--libs openmpi,dropin-openmpi,mpich,dropin-mpich,intercom]
#
# Each run makes 3 rounds of --calls calls per loop (call_latency.c) and
# counts the median of them; the summary is, per library and loop, the
# median over --rounds runs with the lowest and highest, and the ratio to
# Open MPI's run of the same round (median, lowest-highest).  A run takes
# a few seconds; nothing else should run meanwhile.  Builds what it needs
# (Debian's MPIs with scripts/deps.sh mpi, the drop-ins and intercom-run in
# --build, the three binaries there).  See docs/perf/per-call-work.md.
set -euo pipefail
cd "$(dirname "$0")/.."
p=2 rounds=6 calls=100000 build=build-bench libs=openmpi,dropin-openmpi,mpich,dropin-mpich,intercom
while [[ $# -gt 0 ]]; do
    [[ $# -ge 2 ]] || { sed -n '2,8p' "$0" >&2; exit 2; }
    case $1 in
        -p) p=$2 ;;
        --rounds) rounds=$2 ;;
        --calls) calls=$2 ;;
        --build) build=$2 ;;
        --libs) libs=$2 ;;
        *) sed -n '2,8p' "$0" >&2; exit 2 ;;
    esac
    shift 2
done
[[ $p =~ ^[0-9]+$ && $p -ge 2 && $rounds =~ ^[0-9]+$ && $rounds -ge 1 && $calls =~ ^[0-9]+$ &&
    $calls -ge 1 ]] || { echo "call_latency: -p >= 2, --rounds and --calls positive" >&2; exit 2; }

bash scripts/deps.sh mpi >/dev/null
mkdir -p "$build"
build=$(cd "$build" && pwd)
[[ -f $build/CMakeCache.txt ]] || cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j2 --target intercom_static intercom-run intercom_dropin_openmpi \
    intercom_dropin_mpich >/dev/null
flags=(-std=c11 -O2 -Wall -Wextra -Werror)
for impl in openmpi mpich; do
    mpicc.$impl "${flags[@]}" -o "$build/call_latency_$impl" bench/call_latency.c
done
cc "${flags[@]}" -DCALL_LATENCY_INTERCOM -Iinclude -o "$build/call_latency_intercom" \
    bench/call_latency.c "$build/libintercom.a" -lm -lpthread

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
run_lib() { # lib -> the run's output
    local ompi=(mpirun.openmpi -n "$p" --oversubscribe --mca btl self,vader)
    case $1 in
        openmpi) "${ompi[@]}" "$build/call_latency_openmpi" "$calls" 3 ;;
        dropin-openmpi)
            "${ompi[@]}" -x LD_PRELOAD="$build/dropin/openmpi/libintercom_mpi.so" \
                "$build/call_latency_openmpi" "$calls" 3 ;;
        mpich) mpiexec.mpich -n "$p" "$build/call_latency_mpich" "$calls" 3 ;;
        dropin-mpich)
            mpiexec.mpich -n "$p" -genv LD_PRELOAD "$build/dropin/mpich/libintercom_mpi.so" \
                "$build/call_latency_mpich" "$calls" 3 ;;
        intercom) "$build/intercom-run" -n "$p" "$build/call_latency_intercom" "$calls" 3 ;;
        *) echo "call_latency: unknown library '$1'" >&2; exit 2 ;;
    esac
}

IFS=, read -r -a lib_list <<<"$libs"
raw=$(mktemp)
trap 'rm -f "$raw"' EXIT
echo "# call_latency: $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) processors, p=$p, $rounds rounds" \
    "of $calls calls per loop, intercom $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
n=${#lib_list[@]}
for ((r = 0; r < rounds; r++)); do
    for ((k = 0; k < n; k++)); do
        lib=${lib_list[(k + r) % n]}
        # The median of the run's 3 rounds, per loop: one line "lib round loop us" each.
        run_lib "$lib" 2>/dev/null | awk -v l="$lib" -v r="$r" '/^call_latency/ {
                m++
                for (i = 5; i + 1 <= NF; i += 2)
                    if ($(i + 1) ~ /^[0-9.]+$/) { if (m == 1) name[++nl] = $i; v[$i, m] = $(i + 1) } }
            function med(x, n,   i, j, y) {
                for (i = 2; i <= n; i++) { y = x[i]; for (j = i - 1; j >= 1 && x[j] > y; j--) x[j + 1] = x[j]; x[j + 1] = y }
                return x[int((n + 1) / 2)] }
            END { if (!m) { printf "%s %d all fail\n", l, r; exit }
                  for (k = 1; k <= nl; k++) { for (i = 1; i <= m; i++) t[i] = v[name[k], i]
                                              printf "%s %d %s %.4f\n", l, r, name[k], med(t, m) } }' |
            tee -a "$raw"
    done
done
echo
printf "%-10s %-16s %10s %10s %12s\n" loop library "us/call" "/openmpi" "range"
awk -v libs="$libs" '
    $4 != "fail" { v[$1, $2, $3] = $4; seen[$2] = 1; if (!($3 in isloop)) { isloop[$3] = 1; loop[++nloops] = $3 } }
    function med(x, n,   i, j, y) {
        for (i = 2; i <= n; i++) { y = x[i]; for (j = i - 1; j >= 1 && x[j] > y; j--) x[j + 1] = x[j]; x[j + 1] = y }
        return n % 2 ? x[(n + 1) / 2] : (x[n / 2] + x[n / 2 + 1]) / 2 }
    END {
        nl = split(libs, L, ",")
        for (k = 1; k <= nloops; k++)
            for (i = 1; i <= nl; i++) {
                nt = nq = 0
                for (r in seen) {
                    if (!((L[i], r, loop[k]) in v)) continue
                    t[++nt] = v[L[i], r, loop[k]]
                    if (("openmpi", r, loop[k]) in v) q[++nq] = v[L[i], r, loop[k]] / v["openmpi", r, loop[k]]
                }
                if (nt == 0) { printf "%-10s %-16s %10s\n", loop[k], L[i], "-"; continue }
                lo = hi = q[1]
                for (j = 1; j <= nq; j++) { lo = q[j] < lo ? q[j] : lo; hi = q[j] > hi ? q[j] : hi }
                if (nq) printf "%-10s %-16s %10.3f %10.2f %5.2f-%.2f\n", loop[k], L[i], med(t, nt), med(q, nq), lo, hi
                else printf "%-10s %-16s %10.3f\n", loop[k], L[i], med(t, nt)
            }
    }' "$raw"
