#!/usr/bin/env bash
# Reproduces two of [MTR94]'s points (seeds/001_...) in intercom-sim:
#
#  1. multicast to arbitrary groups ("multicast"): on a 16 x 16 mesh with
#     dimension-ordered wormhole routing, the U-mesh tree (recursive doubling
#     on the members sorted into a dimension-ordered chain) never puts two
#     messages on one link, while the plain minimum spanning tree over the
#     members in rank order does;
#  2. the Double Tree broadcast on all-port hypercubes ("multiple-port"):
#     ceil(d/2) steps against the binomial tree's d.
#
# 1: for group sizes m = 2 .. 256 it draws UMESH_GROUPS (10) random groups (distinct
# nodes, a random rank order; seeded, so a rerun gives the same digits),
# broadcasts 4 KiB from rank 0 with "umesh" and "mst" in intercom-sim
# (alpha 100 us, 0.01 us/B, the Paragon-like defaults) and records the
# simulated time and the max link load.
#
# 2: d = 2 .. 10, bcast of 32 B and 2 KiB from node 0, "mst" and
# "double_tree" on all-port cubes (and double_tree on one-port ones).
#
# Writes docs/figures/reproduce-001-umesh.png, docs/figures/reproduce-001-dtree.png,
# bench/results/reproduce-001-umesh.{md,csv} and reproduce-001-dtree.{md,csv}.
# About 10 s on 2 vCPUs.
#
# Usage: scripts/reproduce_mtr94.sh [BUILD_DIR]   (default: $BUILD, else build)
set -euo pipefail
source "$(dirname "$0")/reproduce_setup.sh" "$@" -- intercom-sim
GROUPS_PER_SIZE=${UMESH_GROUPS:-10}

csv=$RES/reproduce-001-umesh.csv
echo "m,group,algo,time_us,max_link_load" >"$csv"
echo "== [MTR94]: U-mesh vs rank-order MST, random groups on a 16x16 mesh, bcast 4 KiB"
for m in 2 4 8 16 32 64 96 128 192 256; do
  for g in $(seq 1 "$GROUPS_PER_SIZE"); do
    # m distinct nodes of 256 in random order (awk's srand: deterministic).
    awk -v m="$m" -v seed=$((m * 1000 + g)) 'BEGIN {
      srand(seed); for (i = 0; i < 256; i++) n[i] = i;
      for (i = 0; i < m; i++) { j = i + int(rand() * (256 - i)); t = n[i]; n[i] = n[j]; n[j] = t; print n[i] }
    }' >"$tmp/place"
    "$SIM" --mesh 16x16 --place "$tmp/place" --ranks "$m" --coll bcast --algos umesh,mst \
      --sizes 4K --csv "$tmp/run.csv" --quiet >/dev/null
    awk -F, -v m="$m" -v g="$g" 'NR > 1 { print m "," g "," $2 "," $5 "," $6 }' "$tmp/run.csv" >>"$csv"
  done
done

md=$RES/reproduce-001-umesh.md
{
  echo "| m | umesh time (us) | mst time (us) | umesh max load | mst max load (mean, max) | groups where mst loads a link twice |"
  echo "|---:|---:|---:|---:|---:|---:|"
  awk -F, 'NR > 1 {
      k = $1; t[k, $3] += $4; n[k, $3]++;
      if ($5 > L[k, $3]) L[k, $3] = $5; S[k, $3] += $5; if ($3 == "mst" && $5 > 1) c[k]++;
      if (!(k in seen)) { seen[k] = 1; order[++no] = k }
    } END {
      for (i = 1; i <= no; i++) { k = order[i];
        printf "| %d | %.1f | %.1f | %d | %.2f, %d | %d of %d |\n", k, t[k, "umesh"] / n[k, "umesh"],
               t[k, "mst"] / n[k, "mst"], L[k, "umesh"], S[k, "mst"] / n[k, "mst"], L[k, "mst"],
               c[k] + 0, n[k, "mst"] }
    }' "$csv"
} >"$md"
cat "$md"

awk -F, 'NR > 1 { t[$1, $3] += $4; n[$1, $3]++; l[$1, $3] += $5; if (!($1 in s)) { s[$1] = 1; o[++k] = $1 } }
  END { for (i = 1; i <= k; i++) { m = o[i];
    print m, t[m, "umesh"] / n[m, "umesh"], t[m, "mst"] / n[m, "mst"], l[m, "umesh"] / n[m, "umesh"], l[m, "mst"] / n[m, "mst"] } }' \
  "$csv" >"$tmp/umesh.dat"
gnuplot <<GP
set terminal $TERM_PNG size 900,360
set output "$FIG/reproduce-001-umesh.png"
set multiplot layout 1,2 title "bcast 4 KiB to random groups of m nodes of a 16x16 mesh (mean of $GROUPS_PER_SIZE groups)"
set logscale x 2
set xlabel "group size m"
set ylabel "simulated time (us)"
set key top left
plot "$tmp/umesh.dat" using 1:2 with linespoints title "umesh (U-mesh chain)", \
     "" using 1:3 with linespoints title "mst (rank order)"
set ylabel "max link load (mean)"
set yrange [0:*]
plot "$tmp/umesh.dat" using 1:4 with linespoints title "umesh", \
     "" using 1:5 with linespoints title "mst"
unset multiplot
GP
echo "wrote $FIG/reproduce-001-umesh.png, $md, $csv"

# ---- 2. Double Tree against the binomial tree on all-port hypercubes ------------
csv=$RES/reproduce-001-dtree.csv
echo "d,ports,algo,bytes,time_us,max_link_load" >"$csv"
echo "== [MTR94]: Double Tree vs binomial (mst) broadcast on all-port d-cubes"
for d in 2 3 4 5 6 7 8 9 10; do
  "$SIM" --hypercube "$d" --all-port --coll bcast --algos mst,double_tree --sizes 32,2K \
    --csv "$tmp/a.csv" --quiet >/dev/null
  awk -F, -v d="$d" 'NR > 1 { print d ",all," $2 "," $4 "," $5 "," $6 }' "$tmp/a.csv" >>"$csv"
  "$SIM" --hypercube "$d" --coll bcast --algos double_tree --sizes 32,2K --csv "$tmp/o.csv" \
    --quiet >/dev/null
  awk -F, -v d="$d" 'NR > 1 { print d ",one," $2 "," $4 "," $5 "," $6 }' "$tmp/o.csv" >>"$csv"
done
md=$RES/reproduce-001-dtree.md
{
  echo "| d | nodes | mst 32 B (us) | double_tree 32 B (us) | mst 2 KiB (us) | double_tree 2 KiB (us) | steps mst / double_tree | double_tree one-port 2 KiB (us) | max link load (every run) |"
  echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  awk -F, 'NR > 1 { t[$1, $2, $3, $4] = $5; if ($6 > L[$1]) L[$1] = $6; if (!($1 in s)) { s[$1] = 1; o[++k] = $1 } }
    END { for (i = 1; i <= k; i++) { d = o[i]; u = 100 + 2048 * 0.01;
      printf "| %d | %d | %.1f | %.1f | %.1f | %.1f | %d / %d | %.1f | %d |\n", d, 2 ^ d,
        t[d, "all", "mst", 32], t[d, "all", "double_tree", 32], t[d, "all", "mst", 2048],
        t[d, "all", "double_tree", 2048], t[d, "all", "mst", 2048] / u + 0.5,
        t[d, "all", "double_tree", 2048] / u + 0.5, t[d, "one", "double_tree", 2048], L[d] } }' "$csv"
} >"$md"
cat "$md"
awk -F, 'NR > 1 && $4 == 2048 { t[$1, $2, $3] = $5; if (!($1 in s)) { s[$1] = 1; o[++k] = $1 } }
  END { for (i = 1; i <= k; i++) { d = o[i]; print d, t[d, "all", "mst"], t[d, "all", "double_tree"], t[d, "one", "double_tree"] } }' \
  "$csv" >"$tmp/dtree.dat"
gnuplot <<GP
set terminal $TERM_PNG size 640,400
set output "$FIG/reproduce-001-dtree.png"
set title "bcast 2 KiB on a d-cube (alpha 100 us, 0.01 us/B, e-cube wormhole routing)"
set xlabel "cube dimension d"
set ylabel "simulated time (us)"
set key top left
plot "$tmp/dtree.dat" using 1:2 with linespoints title "mst (binomial), all-port", \
     "" using 1:3 with linespoints title "double_tree, all-port", \
     "" using 1:4 with linespoints dashtype 2 title "double_tree, one-port"
GP
echo "wrote $FIG/reproduce-001-dtree.png, $md, $csv"
