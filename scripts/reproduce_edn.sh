#!/usr/bin/env bash
# Reproduces [MTR94]'s figure 24 (seeds/001_..., "Broadcasting in multi-port
# meshes and tori", the EDN approach) in intercom-sim:
#
#  (a) steps of the EDN broadcast (algo/edn_bcast.c) on n x n all-port
#      meshes, n = 2 .. 256, least and most over the sources (every source
#      up to n = 64, a fixed sample of about 500 beyond), against recursive
#      doubling's ceil(log2 n^2) and the lower bound ceil(log5 n^2) -- from
#      a small C driver linked with the built library (ic_edn_steps);
#  (b) the broadcast time of "edn" and "umesh" (U-mesh, recursive doubling
#      on the dimension-ordered chain) on all-port 8x8, 16x16 and 32x32
#      meshes with XY wormhole routing and shared links, messages of
#      32 B .. 2 KiB, the MOST over the sources (every source of 8x8, a
#      fixed sample of 16x16 and 32x32: the corners, the centre and every
#      (N/32 - 1)th node: 41 and 35 sources), as the survey's "maximum
#      broadcast latency";
#      alpha 100 us, 0.01 us/B (intercom-sim's Paragon-like defaults).
#
# Writes docs/figures/reproduce-001-edn.png and bench/results/
# reproduce-001-edn.{md,csv} (and reproduce-001-edn-steps.csv).  About
# 40 s on 2 vCPUs.
#
# Usage: scripts/reproduce_edn.sh [BUILD_DIR]   (default: $BUILD, else build)
set -euo pipefail
source "$(dirname "$0")/reproduce_setup.sh" "$@" -- intercom-sim intercom_static

# ---- (a) steps against n ------------------------------------------------------------
cat >"$tmp/steps.c" <<'C'
#include "algo/builders.h"
#include <stdio.h>
int main(void)
{
    static const int ns[] = {2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16, 20, 24, 28, 32, 40, 48, 56,
                             64, 96, 128, 192, 256};
    printf("n,edn_min,edn_max,log2,log5\n");
    for (size_t z = 0; z < sizeof ns / sizeof ns[0]; z++) {
        int n = ns[z], lo = 1 << 30, hi = 0, l2 = 0, l5 = 0;
        long N = (long)n * n, stride = N <= 4096 ? 1 : N / 499;
        for (long s = 0; s < N; s += stride) {
            int k = ic_edn_steps(n, n, (int)s);
            lo = k < lo ? k : lo;
            hi = k > hi ? k : hi;
        }
        for (long p = 1; p < N; p *= 2)
            l2++;
        for (long p = 1; p < N; p *= 5)
            l5++;
        printf("%d,%d,%d,%d,%d\n", n, lo, hi, l2, l5);
    }
    return 0;
}
C
cc -O2 -std=c11 -Isrc -Iinclude "$tmp/steps.c" "$BUILD/libintercom.a" -lm -lpthread -o "$tmp/steps"
steps=$RES/reproduce-001-edn-steps.csv
"$tmp/steps" >"$steps"

# ---- (b) most time over the sources, edn against umesh --------------------------------
csv=$RES/reproduce-001-edn.csv
echo "mesh,root,algo,bytes,time_us,max_link_load" >"$csv"
echo "== [MTR94] figure 24: EDN vs U-mesh broadcast on all-port meshes"
for n in 8 16 32; do
  N=$((n * n))
  if [ "$n" -eq 8 ]; then
    roots=$(seq 0 $((N - 1)))
  else
    roots=$( (echo 0 $((n - 1)) $((N - n)) $((N - 1)) $(((n / 2) * n + n / 2)); seq 0 $((N / 32 - 1)) $((N - 1))) |
      tr ' ' '\n' | sort -n | uniq)
  fi
  for r in $roots; do
    "$SIM" --mesh "${n}x${n}" --all-port --coll bcast --algos edn,umesh --sizes 32:2K --root "$r" \
      --csv "$tmp/run.csv" --quiet >/dev/null
    awk -F, -v m="${n}x${n}" -v r="$r" 'NR > 1 { print m "," r "," $2 "," $4 "," $5 "," $6 }' \
      "$tmp/run.csv" >>"$csv"
  done
done

md=$RES/reproduce-001-edn.md
{
  echo "Most time over the sources (us), and that time in messages of 2 KiB (time / (alpha + n beta): the steps, for the contention-free edn), all-port, alpha 100 us, 0.01 us/B."
  echo
  echo "| mesh | sources | edn 32 B | umesh 32 B | edn 2 KiB | umesh 2 KiB | edn / umesh in messages (2 KiB) | edn max link load | umesh max link load |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
  awk -F, 'NR > 1 { k = $1 SUBSEP $3 SUBSEP $4; if ($5 > T[k]) T[k] = $5; if ($6 > L[$1, $3]) L[$1, $3] = $6;
      R[$1, $2] = 1; if (!($1 in s)) { s[$1] = 1; o[++no] = $1 } }
    END { for (r in R) { split(r, a, SUBSEP); nr[a[1]]++ }
      for (i = 1; i <= no; i++) { m = o[i]; u = 100 + 2048 * 0.01;
        printf "| %s | %d | %.1f | %.1f | %.1f | %.1f | %.1f / %.1f | %d | %d |\n", m, nr[m],
          T[m, "edn", 32], T[m, "umesh", 32], T[m, "edn", 2048], T[m, "umesh", 2048],
          T[m, "edn", 2048] / u, T[m, "umesh", 2048] / u, L[m, "edn"], L[m, "umesh"] } }' "$csv"
  echo
  echo "Steps of the EDN broadcast on n x n meshes (least / most over the sources), recursive doubling's ceil(log2 n^2) and the lower bound ceil(log5 n^2):"
  echo
  echo "| n | edn (least / most) | ceil(log2 n^2) | ceil(log5 n^2) |"
  echo "|---:|---:|---:|---:|"
  awk -F, 'NR > 1 { printf "| %d | %d / %d | %d | %d |\n", $1, $2, $3, $4, $5 }' "$steps"
} >"$md"
cat "$md"

awk -F, 'NR > 1 { k = $1 SUBSEP $3 SUBSEP $4; if ($5 > T[k]) T[k] = $5; B[$4] = 1 }
  END { n = 0; for (b in B) bs[++n] = b + 0;
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (bs[j] < bs[i]) { t = bs[i]; bs[i] = bs[j]; bs[j] = t }
    for (i = 1; i <= n; i++) { b = bs[i]; printf "%d", b;
      split("8x8 16x16 32x32", ms, " ");
      for (j = 1; j <= 3; j++) printf " %s %s", T[ms[j], "edn", b], T[ms[j], "umesh", b];
      printf "\n" } }' "$csv" >"$tmp/time.dat"
awk -F, 'NR > 1 { print $1, $2, $3, $4, $5 }' "$steps" >"$tmp/steps.dat"
gnuplot <<GP
set terminal $TERM_PNG size 980,380
set output "$FIG/reproduce-001-edn.png"
set multiplot layout 1,2 title "EDN vs recursive doubling (U-mesh) broadcast, all-port 2-D meshes, XY wormhole routing"
set title "(a) steps on an n x n mesh"
set logscale x 2
set xlabel "n"
set ylabel "message-passing steps"
set key top left
plot "$tmp/steps.dat" using 1:4 with linespoints title "recursive doubling, ceil(log2 n^2)", \
     "" using 1:3 with linespoints title "edn, most over sources", \
     "" using 1:2 with linespoints dashtype 2 title "edn, least over sources", \
     "" using 1:5 with lines dashtype 3 title "lower bound ceil(log5 n^2)"
set title "(b) most time over the sources"
set logscale x 2
set xlabel "message (bytes)"
set ylabel "simulated time (us)"
set key top left
plot "$tmp/time.dat" using 1:3 with linespoints title "umesh 8x8", \
     "" using 1:2 with linespoints title "edn 8x8", \
     "" using 1:5 with linespoints title "umesh 16x16", \
     "" using 1:4 with linespoints title "edn 16x16", \
     "" using 1:7 with linespoints title "umesh 32x32", \
     "" using 1:6 with linespoints title "edn 32x32"
unset multiplot
GP
echo "wrote $FIG/reproduce-001-edn.png, $md, $csv, $steps"
