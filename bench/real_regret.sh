#!/usr/bin/env bash
# real_regret.sh — selection regret measured for real on this machine:
# for p in PS, every collective and sizes 8 B, 4 KiB, 256 KiB, 16 MiB, the
# median time of the algorithm the selector picks next to every algorithm
# forced by name (intercom-bench --algo), R repetitions alternating
# between them in one session; each figure is the median over the R runs
# of each run's median.  regret = selected / fastest forced - 1.
# Writes bench/results/real-regret.md (and the raw rows to real-regret.csv).
#
# The selected algorithm is timed twice: as chosen (auto, its own launch)
# and forced by name among the others; "forced regret" compares the
# latter with the fastest forced one, which leaves out the difference
# between launches (each launch runs at one of two speeds on this
# machine, docs/benchmarks.md).
#
# Environment: PS (default "2 4"), R (default 3), COLLS (names, default all), SIZES
# (intercom-bench totals, default 8,4096,262144,16777216), ITERS/WARMUP (default
# 20/3 per size), BUILD_DIR (default build), BENCH_ARGS (added to every
# intercom-bench run, e.g. "--touch": inputs rewritten before each call, as
# a program has them; docs/selection.md), OUT (default real-regret: the
# names of the .csv and .md in bench/results), REPORT_ONLY=1 (no runs: the
# table again from the csv).  Information, not a
# test: the machine is shared and p > cores oversubscribes it.
set -euo pipefail
cd "$(dirname "$0")/.."
PS=${PS:-"2 4"}
R=${R:-3}
ITERS=${ITERS:-20}
WARMUP=${WARMUP:-3}
SIZES=${SIZES:-8,4096,262144,16777216}
B=${BUILD_DIR:-build}
OUT=${OUT:-real-regret}
raw=bench/results/$OUT.csv
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
if [ "${REPORT_ONLY:-0}" != 1 ]; then
cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$B" -j2 --target intercom-bench intercom-run >/dev/null
echo "p,rep,mode,collective,bytes,algorithm,median_us" >"$raw"
mapfile -t lines < <("$B/intercom-bench" --list)
for p in $PS; do
  for rep in $(seq 1 "$R"); do
    for line in "${lines[@]}"; do
      coll=${line%%:*}
      [ -n "${COLLS:-}" ] && [[ " $COLLS " != *" $coll "* ]] && continue
      [ "$coll" = barrier ] && sizes=8 || sizes=$SIZES
      for algo in auto $(echo "${line#*: }" | tr -d ','); do
        echo "p=$p rep $rep/$R $coll $algo" >&2
        "$B/intercom-run" -n "$p" "$B/intercom-bench" -c "$coll" --sizes "$sizes" \
          --iters "$ITERS" --warmup "$WARMUP" --algo "$algo" ${BENCH_ARGS:-} --csv "$tmp" \
          >/dev/null 2>&1 || continue
        mode=forced
        [ "$algo" = auto ] && mode=auto
        # collective,p,size,bytes,algorithm,iters,warmup,median_us,min_us,max_us
        awk -F, -v p="$p" -v rep="$rep" -v mode="$mode" \
          'NR > 1 { print p "," rep "," mode "," $1 "," $3 "," $5 "," $8 }' "$tmp" >>"$raw"
      done
    done
  done
done
fi
out=bench/results/$OUT.md
{
  echo "# Selection regret measured on $(hostname) ($(nproc) CPUs), $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo
  echo "R = $R runs of $ITERS timed iterations ($WARMUP warm-up) per algorithm and size;"
  [ -n "${BENCH_ARGS:-}" ] && echo "intercom-bench options: $BENCH_ARGS."

  echo "each figure is the median over the runs of each run's median (us)."
  echo
  awk -F, 'NR > 1 {
      key = $1 "," $4 "," $5
      if (!(key in seen)) { seen[key] = 1; order[n++] = key }
      k = key "," ($3 == "auto" ? "auto" : $6)
      vals[k] = vals[k] " " $7; cnt[k]++
      if ($3 == "auto") selname[key] = $6; else algos[key] = algos[key] " " $6
    }
    function median(list,   a, m, i, j, t) {
      m = split(list, a, " ")
      for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
      return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
    }
    function pct(x) { return sprintf("%.1f %%", x) }
    END {
      for (i = 0; i < n; i++) {
        key = order[i]; split(key, f, ",")
        ts = median(vals[key ",auto"]); best = ""; tb = -1
        m = split(algos[key], al, " ")
        for (j = 1; j <= m; j++) {
          if (al[j] in done) continue; done[al[j]] = 1
          t = median(vals[key "," al[j]])
          if (tb < 0 || t < tb) { tb = t; best = al[j] }
        }
        delete done
        s = selname[key]; tf = (key "," s) in vals ? median(vals[key "," s]) : -1
        ra = 100 * (ts / tb - 1); rf = tf > 0 ? 100 * (tf / tb - 1) : -1
        row[i] = sprintf("| %s | %s | %s | %s | %.2f | %s | %s | %.2f | %s | %s |", f[1], f[2], f[3], s,
                         ts, tf > 0 ? sprintf("%.2f", tf) : "-", best, tb, pct(ra), tf > 0 ? pct(rf) : "-")
        P = f[1]; if (!(P in np)) ps[nps++] = P; np[P]++; la[P, np[P]] = ra
        if (ra <= 10) wa[P]++; if (ra > 25) oa[P]++
        if (tf > 0) { nf[P]++; lf[P, nf[P]] = rf; if (rf <= 10) wf[P]++; if (rf > 25) of[P]++ }
      }
      print "| p | cells | median regret | within 10 % | over 25 % | median forced regret | within 10 % | over 25 % |"
      print "|---:|---:|---:|---:|---:|---:|---:|---:|"
      for (q = 0; q < nps; q++) {
        P = ps[q]
        la_s = ""; for (j = 1; j <= np[P]; j++) la_s = la_s " " la[P, j]
        lf_s = ""; for (j = 1; j <= nf[P]; j++) lf_s = lf_s " " lf[P, j]
        printf "| %s | %d | %s | %d | %d | %s | %d | %d |\n", P, np[P], pct(median(la_s)), wa[P], oa[P],
               nf[P] ? pct(median(lf_s)) : "-", wf[P], of[P]
      }
      print ""
      print "| p | collective | bytes | selected | selected us | selected, forced us | fastest forced | fastest us | regret | forced regret |"
      print "|---:|---|---:|---|---:|---:|---|---:|---:|---:|"
      for (i = 0; i < n; i++) print row[i]
    }' "$raw"
} >"$out"
echo "wrote $out" >&2
