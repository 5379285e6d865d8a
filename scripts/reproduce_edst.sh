#!/usr/bin/env bash
# Reproduces [MTR94]'s point about the edge-disjoint spanning trees (EDST,
# Johnsson and Ho; seeds/001_..., "Broadcast Trees in Hypercubes"): cutting
# the message into d segments, one per edge-disjoint spanning tree, makes a
# long broadcast on a multi-port d-cube cost about (1 + 1/d) n beta, where
# the Double Tree pays ceil(d/2) n beta and the binomial tree d n beta; with
# too few ports the segments queue at the nodes ("contention at the ports").
#
# Broadcast from node 0 of the all-port 6-cube, 1 KiB .. 1 MiB (factor 4),
# "edst", "double_tree" and "mst" (alpha 100 us, 0.01 us/B, e-cube wormhole
# routing, links shared), plus edst on 2-port and one-port nodes.
#
# Writes docs/figures/reproduce-001-edst.png and
# bench/results/reproduce-001-edst.{md,csv}.  About 2 s on 2 vCPUs.
#
# Usage: scripts/reproduce_edst.sh [BUILD_DIR]   (default: $BUILD, else build)
set -euo pipefail
source "$(dirname "$0")/reproduce_setup.sh" "$@" -- intercom-sim

D=6
SIZES=1K:1M:4
csv=$RES/reproduce-001-edst.csv
echo "d,ports,algo,bytes,time_us,max_link_load" >"$csv"
echo "== [MTR94]: EDST vs Double Tree vs binomial broadcast on the all-port $D-cube"
"$SIM" --hypercube "$D" --all-port --coll bcast --algos edst,double_tree,mst --sizes "$SIZES" \
  --csv "$tmp/a.csv" --quiet >/dev/null
awk -F, -v d="$D" 'NR > 1 { print d ",all," $2 "," $4 "," $5 "," $6 }' "$tmp/a.csv" >>"$csv"
for k in 2 1; do
  "$SIM" --hypercube "$D" --ports "$k" --coll bcast --algos edst --sizes "$SIZES" \
    --csv "$tmp/k.csv" --quiet >/dev/null
  awk -F, -v d="$D" -v k="$k" 'NR > 1 { print d "," k "," $2 "," $4 "," $5 "," $6 }' \
    "$tmp/k.csv" >>"$csv"
done
md=$RES/reproduce-001-edst.md
{
  echo "| bytes | edst (us) | double_tree (us) | mst (us) | edst 2-port (us) | edst one-port (us) | max link load, all-port edst |"
  echo "|---:|---:|---:|---:|---:|---:|---:|"
  awk -F, 'NR > 1 { t[$2, $3, $4] = $5; if ($2 == "all" && $3 == "edst") L[$4] = $6;
      if (!($4 in s)) { s[$4] = 1; o[++k] = $4 } }
    END { for (i = 1; i <= k; i++) { n = o[i];
      printf "| %d | %.1f | %.1f | %.1f | %.1f | %.1f | %d |\n", n, t["all", "edst", n],
        t["all", "double_tree", n], t["all", "mst", n], t[2, "edst", n], t[1, "edst", n], L[n] } }' \
    "$csv"
} >"$md"
cat "$md"
awk -F, 'NR > 1 { t[$2, $3, $4] = $5; if (!($4 in s)) { s[$4] = 1; o[++k] = $4 } }
  END { for (i = 1; i <= k; i++) { n = o[i]; print n, t["all", "edst", n], t["all", "double_tree", n],
    t["all", "mst", n], t[2, "edst", n], t[1, "edst", n] } }' "$csv" >"$tmp/edst.dat"
gnuplot <<GP
set terminal $TERM_PNG size 640,400
set output "$FIG/reproduce-001-edst.png"
set termoption noenhanced
set title "bcast on the $D-cube (alpha 100 us, 0.01 us/B, e-cube wormhole routing)"
set xlabel "bytes"
set ylabel "simulated time (us)"
set logscale xy
set key top left
plot "$tmp/edst.dat" using 1:2 with linespoints title "edst, all-port", \
     "" using 1:3 with linespoints title "double_tree, all-port", \
     "" using 1:4 with linespoints title "mst (binomial), all-port", \
     "" using 1:5 with linespoints dashtype 2 title "edst, 2-port", \
     "" using 1:6 with linespoints dashtype 3 title "edst, one-port"
GP
echo "wrote $FIG/reproduce-001-edst.png, $md, $csv"
