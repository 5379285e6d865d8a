#!/usr/bin/env bash
# env_pairs.sh — the same intercom-bench run under two environments, side
# by side: R repetitions (default 7), A then B, their order swapped every
# repetition; prints, per collective and size, the median of the
# repetitions' medians under each and B / A (median, lowest–highest of the
# repetitions).  Used to measure a transport or copy setting that an
# environment variable turns off (docs/perf/copy.md).
#
#   bench/env_pairs.sh BUILD_DIR P "ENV_A" "ENV_B" COLLS SIZES [REPS]
#
#   bench/env_pairs.sh build 2 "IC_COPY_STREAM_MIN=0 IC_SHM_STREAM_MIN=0" "" \
#       bcast,allgather 32M,128M
#
# ENV_A and ENV_B are space-separated NAME=VALUE lists ("" for none); sizes
# as intercom-bench reads them (total bytes; K, M suffixes); --sync window.
# With BUILD_B=DIR set, B runs that build's intercom-run and intercom-bench
# instead: two builds side by side (an old commit against a new one,
# docs/perf/oversubscribed.md):
#
#   BUILD_B=build bench/env_pairs.sh /tmp/old/build 4 "" "" bcast,reduce 512K,2M 5
#
# ITERS=N and WARMUP=W set intercom-bench's timed and untimed calls per
# size and run (default 10 and 2: short calls want more, e.g. ITERS=1000).
# BENCH_ARGS adds options to every intercom-bench run (e.g. "--touch").
set -euo pipefail
build=${1:?usage: env_pairs.sh BUILD_DIR P ENV_A ENV_B COLLS SIZES [REPS]}
p=${2:?}
env_a=${3-}
env_b=${4-}
colls=${5:?}
sizes=${6:?}
reps=${7:-7}
raw=$(mktemp)
trap 'rm -f "$raw"' EXIT

build_b=${BUILD_B:-$build}

run_under() { # label envs rep
    local dir=$build
    [[ $1 == B ]] && dir=$build_b
    # shellcheck disable=SC2086
    env $2 "$dir/intercom-run" -n "$p" "$dir/intercom-bench" -c "$colls" --sizes "$sizes" \
        --iters "${ITERS:-10}" --warmup "${WARMUP:-2}" --sync window ${BENCH_ARGS:-} 2>/dev/null |
        awk -v l="$1" -v r="$3" '$1 !~ /^#/ && $1 != "collective" { print l, r, $1, $2, $4 }' >>"$raw"
}

echo "# env_pairs: $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) processors, p=$p, $reps repetitions, --sync window${BENCH_ARGS:+ $BENCH_ARGS}, ${ITERS:-10} calls per size"
echo "# A: ${env_a:-(defaults)}${BUILD_B:+, build $build}"
echo "# B: ${env_b:-(defaults)}${BUILD_B:+, build $build_b}"
for ((r = 0; r < reps; r++)); do
    if ((r % 2 == 0)); then
        run_under A "$env_a" "$r"; run_under B "$env_b" "$r"
    else
        run_under B "$env_b" "$r"; run_under A "$env_a" "$r"
    fi
done
printf "%-22s %12s %12s %12s %8s %15s\n" collective bytes A_us B_us B/A range
awk '
    { t[$3 " " $4, $2, $1] = $5; key[$3 " " $4] = 1; rep[$2] = 1 }
    function med(v, n,   i, j, x) {
        for (i = 2; i <= n; i++) { x = v[i]; for (j = i - 1; j >= 1 && v[j] > x; j--) v[j + 1] = v[j]; v[j + 1] = x }
        return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
    }
    END {
        for (k in key) {
            na = nb = nr = 0; lo = 1e30; hi = 0
            for (r in rep) {
                if ((k SUBSEP r SUBSEP "A") in t) a[++na] = t[k, r, "A"]
                if ((k SUBSEP r SUBSEP "B") in t) b[++nb] = t[k, r, "B"]
                if ((k SUBSEP r SUBSEP "A") in t && (k SUBSEP r SUBSEP "B") in t) {
                    q = t[k, r, "B"] / t[k, r, "A"]; q2[++nr] = q
                    lo = q < lo ? q : lo; hi = q > hi ? q : hi
                }
            }
            split(k, f, " ")
            printf "%-22s %12s %12.1f %12.1f %8.2f %7.2f-%-7.2f\n", f[1], f[2], med(a, na), med(b, nb), med(q2, nr), lo, hi
        }
    }' "$raw" | sort -k1,1 -k2,2n
