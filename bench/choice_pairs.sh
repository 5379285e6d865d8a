#!/usr/bin/env bash
# choice_pairs.sh — two algorithms of one call, timed side by side: for
# every "P COLL BYTES ALGO_A ALGO_B" line on stdin, R repetitions (default
# 5) of intercom-bench with ALGO_A forced, then ALGO_B, their order swapped
# every repetition; prints one line per repetition and a summary per line
# (median of the repetitions' medians, and B / A).  Used to check the
# decisions a model change moves (docs/perf/transport-model.md).
#
#   bench/choice_pairs.sh BUILD_DIR [REPS] [SYNC] < pairs.txt
#
# BUILD_DIR holds intercom-run and intercom-bench; SYNC is intercom-bench's
# --sync (window, the default here, or barrier).  Sizes as intercom-bench
# reads them (total bytes; K, M suffixes).
set -euo pipefail
build=${1:?usage: choice_pairs.sh BUILD_DIR [REPS] [SYNC] < pairs}
reps=${2:-5}
sync=${3:-window}
run="$build/intercom-run"
bench="$build/intercom-bench"

time_of() { # p coll bytes algo -> median microseconds
    "$run" -n "$1" "$bench" -c "$2" --sizes "$3" --iters 200 --warmup 20 --sync "$sync" \
        --algo "$4" 2>/dev/null | awk -v c="$2" '$1 == c { print $4; exit }'
}

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "# choice_pairs: $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) processors, $reps repetitions, --sync $sync"
while read -r p coll bytes a b; do
    [[ -z "${p:-}" || "$p" == \#* ]] && continue
    ta=() tb=()
    for ((r = 0; r < reps; r++)); do
        if ((r % 2 == 0)); then
            x=$(time_of "$p" "$coll" "$bytes" "$a"); y=$(time_of "$p" "$coll" "$bytes" "$b")
        else
            y=$(time_of "$p" "$coll" "$bytes" "$b"); x=$(time_of "$p" "$coll" "$bytes" "$a")
        fi
        ta+=("$x") tb+=("$y")
        echo "rep $r p=$p $coll $bytes $a $x $b $y"
    done
    ma=$(printf '%s\n' "${ta[@]}" | median)
    mb=$(printf '%s\n' "${tb[@]}" | median)
    lo=$(for i in "${!ta[@]}"; do awk -v x="${ta[$i]}" -v y="${tb[$i]}" 'BEGIN { print y / x }'; done | sort -g | head -1)
    hi=$(for i in "${!ta[@]}"; do awk -v x="${ta[$i]}" -v y="${tb[$i]}" 'BEGIN { print y / x }'; done | sort -g | tail -1)
    awk -v p="$p" -v c="$coll" -v n="$bytes" -v a="$a" -v b="$b" -v x="$ma" -v y="$mb" -v lo="$lo" -v hi="$hi" \
        'BEGIN { printf "summary p=%s %s %s: %s %.2f us, %s %.2f us, %s/%s %.2f (%.2f-%.2f)\n", p, c, n, a, x, b, y, b, a, y / x, lo, hi }'
done
