#!/bin/bash
# reproducible_bench.sh — allreduce of 16 MiB floats with IC_REPRODUCIBLE=1
# against the default, on this host, p = 2 and 4, R repetitions (default 5)
# alternating which goes first; each run is intercom-bench's median of 30
# timed calls (slowest rank).  Prints one line per run and, per p, the
# median of the per-repetition ratios reproducible / default with their
# range.  Then the simulated p = 512 (fully connected, and a 16 x 32 mesh
# with shared links) from intercom-sim, default vs --reproducible.
#   bench/reproducible_bench.sh [BUILD_DIR]   (default build, Release)
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:-build}
R=${R:-5}
cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$B" -j2 --target intercom-run intercom-bench intercom-sim >/dev/null
out=$(mktemp)
for p in 2 4; do
    for rep in $(seq 1 "$R"); do
        order="0 1"; [ $((rep % 2)) = 0 ] && order="1 0"
        for r in $order; do
            line=$(IC_REPRODUCIBLE=$r "$B/intercom-run" -n $p "$B/intercom-bench" -c allreduce \
                       --sizes 16M --iters 30 --warmup 5 | grep '^allreduce' | tail -1)
            echo "p=$p rep=$rep reproducible=$r $line" | tee -a "$out"
        done
    done
done
awk '{ split($1, a, "="); split($2, b, "="); split($3, c, "=");
       t[a[2], b[2], c[2]] = $8; ps[a[2]] = 1; if (b[2] > n) n = b[2] }
     END { for (p in ps) { m = 0; for (r = 1; r <= n; r++) x[++m] = t[p, r, 1] / t[p, r, 0];
             asort(x); printf "p=%s: reproducible / default median %.3f (range %.3f-%.3f, %d reps)\n",
                    p, (m % 2 ? x[(m + 1) / 2] : (x[m / 2] + x[m / 2 + 1]) / 2), x[1], x[m], m; delete x } }' "$out"
rm -f "$out"
for net in "--full 512" "--mesh 16x32"; do
    for flag in "" --reproducible; do
        # shellcheck disable=SC2086
        "$B/intercom-sim" $net --coll allreduce --algos auto --sizes 16M --elem float --quiet $flag |
            awk -v n="$net" -v f="${flag:-default}" '/MiB/ { print "simulated", n, f ":", $0 }'
    done
done
