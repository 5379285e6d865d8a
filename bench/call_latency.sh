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
        # The median of the run's 3 rounds, per loop.
        run_lib "$lib" 2>/dev/null | awk -v l="$lib" -v r="$r" '/^call_latency/ {
                b[++m] = $6; a[m] = $8; s[m] = $10 }
            function med(v, n,   i, j, x) {
                for (i = 2; i <= n; i++) { x = v[i]; for (j = i - 1; j >= 1 && v[j] > x; j--) v[j + 1] = v[j]; v[j + 1] = x }
                return v[int((n + 1) / 2)] }
            END { if (m) printf "%s %d %.4f %.4f %.4f\n", l, r, med(b, m), med(a, m), med(s, m)
                  else printf "%s %d fail fail fail\n", l, r }' | tee -a "$raw"
    done
done
echo
printf "%-16s %28s %28s %28s\n" library "bcast us (ratio to openmpi)" "allreduce us (ratio)" \
    "barrier us (ratio)"
awk -v libs="$libs" '
    $3 != "fail" { for (k = 0; k < 3; k++) v[$1, $2, k] = $(3 + k); seen[$2] = 1 }
    function med(x, n,   i, j, y) {
        for (i = 2; i <= n; i++) { y = x[i]; for (j = i - 1; j >= 1 && x[j] > y; j--) x[j + 1] = x[j]; x[j + 1] = y }
        return n % 2 ? x[(n + 1) / 2] : (x[n / 2] + x[n / 2 + 1]) / 2 }
    END {
        nl = split(libs, L, ",")
        for (i = 1; i <= nl; i++) {
            line = sprintf("%-16s", L[i])
            for (k = 0; k < 3; k++) {
                nt = nq = 0
                for (r in seen) {
                    if (!((L[i], r, k) in v)) continue
                    t[++nt] = v[L[i], r, k]
                    if (("openmpi", r, k) in v) q[++nq] = v[L[i], r, k] / v["openmpi", r, k]
                }
                if (nt == 0) { line = line sprintf(" %28s", "-"); continue }
                lo = hi = q[1]
                for (j = 1; j <= nq; j++) { lo = q[j] < lo ? q[j] : lo; hi = q[j] > hi ? q[j] : hi }
                mt = med(t, nt)
                line = line (nq ? sprintf(" %10.3f (%.2f, %.2f-%.2f)", mt, med(q, nq), lo, hi) \
                                : sprintf(" %10.3f %17s", mt, ""))
            }
            print line
        }
    }' "$raw"
