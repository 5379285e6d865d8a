#!/usr/bin/env bash
# Reproduces [MTR94]'s complete-exchange comparison (seeds/001_..., "complete
# exchange": the direct algorithm, the binary exchange and the quadrant
# exchange on wormhole-routed 2-D meshes) in intercom-sim.
#
# On 8 x 8 and 16 x 16 meshes (dimension-ordered routing, one-port nodes,
# alpha 100 us, 0.01 us/B: the Paragon-like defaults), all-to-all with
# blocks of 16 B .. 64 KiB per pair, under wormhole switching (a flow shares
# a link's bandwidth) and circuit switching (a message waits until every
# link of its path is free), with
#   aap       the survey's direct algorithm: step k pairs i with i XOR k
#   pairwise  direct exchange with partners i +- k
#   bruck     log2 N steps of N/2 blocks: the step and volume count of the
#             binary (standard) exchange, partners i + 2^k instead of
#             i XOR 2^k
#   dr        dimensional rings (rows, then columns)
#   quadrant  the quadrant exchange, 3(sqrt(N) - 1) contention-free steps
# and records the simulated time and the max link load.
#
# Writes docs/figures/reproduce-001-quadrant.png and
# bench/results/reproduce-001-quadrant.{md,csv}.  About 10 s on 2 vCPUs.
#
# Usage: scripts/reproduce_quadrant.sh [BUILD_DIR]   (default: $BUILD, else build)
set -euo pipefail
source "$(dirname "$0")/reproduce_setup.sh" "$@" -- intercom-sim

ALGOS=aap,pairwise,bruck,dr,quadrant
csv=$RES/reproduce-001-quadrant.csv
echo "mesh,switching,algo,block_bytes,time_us,max_link_load" >"$csv"
echo "== [MTR94]: complete exchange on 8x8 and 16x16 meshes, wormhole and circuit switching"
for side in 8 16; do
  p=$((side * side))
  for sw in wormhole circuit; do
    # Total bytes per rank = block * p: blocks 16 B .. 64 KiB.
    "$SIM" --mesh "${side}x${side}" --switching "$sw" --coll alltoall --algos "$ALGOS" \
      --sizes "$((16 * p)):$((65536 * p)):4" --csv "$tmp/run.csv" --quiet >/dev/null
    awk -F, -v m="${side}x${side}" -v sw="$sw" -v p="$p" \
      'NR > 1 { print m "," sw "," $2 "," $4 / p "," $5 "," $6 }' "$tmp/run.csv" >>"$csv"
  done
done

md=$RES/reproduce-001-quadrant.md
{
  echo "Simulated time in ms (max link load in parentheses); the fastest of each row in bold."
  echo
  echo "| mesh | switching | block | aap (direct, XOR) | pairwise | bruck (binary-exchange steps) | dr | quadrant |"
  echo "|---|---|---:|---:|---:|---:|---:|---:|"
  awk -F, 'NR > 1 {
      k = $1 "," $2 "," $4; t[k, $3] = $5; l[k, $3] = $6;
      if (!(k in seen)) { seen[k] = 1; order[++n] = k }
    } END {
      split("aap pairwise bruck dr quadrant", A, " ");
      for (i = 1; i <= n; i++) {
        k = order[i]; split(k, f, ",");
        best = ""; for (j = 1; j <= 5; j++) if (best == "" || t[k, A[j]] < t[k, best]) best = A[j];
        b = f[3] >= 1024 ? sprintf("%d KiB", f[3] / 1024) : sprintf("%d B", f[3]);
        line = sprintf("| %s | %s | %s", f[1], f[2], b);
        for (j = 1; j <= 5; j++) {
          c = sprintf("%.2f (%d)", t[k, A[j]] / 1000, l[k, A[j]]);
          line = line " | " (A[j] == best ? "**" c "**" : c);
        }
        print line " |";
      }
    }' "$csv"
} >"$md"
cat "$md"

for side in 8 16; do
  for sw in wormhole circuit; do
    awk -F, -v m="${side}x${side}" -v sw="$sw" '$1 == m && $2 == sw {
        t[$4, $3] = $5; if (!($4 in s)) { s[$4] = 1; o[++n] = $4 } }
      END { for (i = 1; i <= n; i++) { b = o[i];
        print b, t[b, "aap"] / 1000, t[b, "pairwise"] / 1000, t[b, "bruck"] / 1000,
              t[b, "dr"] / 1000, t[b, "quadrant"] / 1000 } }' "$csv" >"$tmp/${side}_${sw}.dat"
  done
done
gnuplot <<GP
set terminal $TERM_PNG size 960,720
set output "$FIG/reproduce-001-quadrant.png"
set multiplot layout 2,2 title "all-to-all on a mesh (alpha 100 us, 0.01 us/B, one-port, dimension-ordered routing)"
set logscale xy 2
set xlabel "block per pair (bytes)"
set ylabel "simulated time (ms)"
set key top left
do for [pair in "8_wormhole 8_circuit 16_wormhole 16_circuit"] {
  side = pair[1:strstrt(pair, "_") - 1]
  sw = pair[strstrt(pair, "_") + 1:]
  set title sprintf("%sx%s mesh, %s switching", side, side, sw)
  f = sprintf("$tmp/%s.dat", pair)
  plot f using 1:2 with linespoints title "aap (direct)", \
       f using 1:3 with linespoints title "pairwise", \
       f using 1:4 with linespoints title "bruck (binary-exchange steps)", \
       f using 1:5 with linespoints title "dr", \
       f using 1:6 with linespoints lw 2 title "quadrant"
}
unset multiplot
GP
echo "wrote $FIG/reproduce-001-quadrant.png, $md, $csv"
