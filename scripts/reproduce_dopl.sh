#!/usr/bin/env bash
# DOPL broadcast with alternating dimension orders ([Watts94] sections 9 and
# 15.2, seeds/000_...): k_alt = 1 (bcast "dopl"), k_alt = 2 and the k_alt
# the "dopl_alt" entry picks from the paper's formula, on the physical
# 16 x 32 mesh (one-port, wormhole, links shared), root 0, 1 KiB .. 16 MiB,
# intercom-sim's default model (alpha 100 us, beta 0.01 us/B).  The
# simulations are run by tests/unit/test_cost_dopl_alt --table (the same
# plans as the catalog entry, with k_alt forced), next to the paper's
# T_DOPL-BROADCAST for k_alt = 1 and 2.
#
# Writes docs/figures/reproduce-000-dopl.png and
# bench/results/reproduce-000-dopl.{csv,md}.  A few seconds on 2 vCPUs.
#
# Usage: scripts/reproduce_dopl.sh [BUILD_DIR]   (default: $BUILD, else build)
set -euo pipefail
source "$(dirname "$0")/reproduce_setup.sh" "$@" -- test_cost_dopl_alt

csv=$RES/reproduce-000-dopl.csv
echo "== [Watts94] DOPL, k_alt = 1 vs 2 vs chosen, bcast on a 16x32 mesh"
"$BUILD/tests/test_cost_dopl_alt" --table >"$csv"

md=$RES/reproduce-000-dopl.md
{
  echo "| n | k_alt 1 (us) | k_alt 2 (us) | k_alt 2 / 1 | entry's k_alt | entry (us) | entry / k_alt 1 | paper k_alt 2 / 1 |"
  echo "|---:|---:|---:|---:|---:|---:|---:|---:|"
  awk -F, 'NR > 1 { printf "| %d | %.0f | %.0f | %.3f | %d | %.0f | %.3f | %.3f |\n",
                    $1, $2, $3, $3 / $2, $4, $5, $5 / $2, $7 / $6 }' "$csv"
} >"$md"
cat "$md"

awk -F, 'NR > 1 { print $1, $2, $3, $5, $6, $7, $3 / $2, $5 / $2, $7 / $6 }' "$csv" >"$tmp/dopl.dat"
cat >"$tmp/dopl.gp" <<GP
set terminal $TERM_PNG size 1000,420
set output "$FIG/reproduce-000-dopl.png"
set termoption noenhanced
set multiplot layout 1,2 title "DOPL broadcast on a 16x32 mesh (one-port, wormhole; alpha 100 us, beta 0.01 us/B), simulated"
set logscale x 2
set xtics ("1K" 1024, "4K" 4096, "16K" 16384, "64K" 65536, "256K" 262144, "1M" 1048576, "4M" 4194304, "16M" 16777216)
set xrange [800:21000000]
set xlabel "message size n (bytes)"
set key top left
set logscale y
set ylabel "time (us)"
plot "$tmp/dopl.dat" using 1:2 with linespoints title "k_alt = 1 (dopl)", \
     "" using 1:3 with linespoints title "k_alt = 2", \
     "" using 1:4 with linespoints title "dopl_alt (k_alt from the paper's formula)", \
     "" using 1:6 with lines dashtype 2 title "paper, k_alt = 2"
unset logscale y
set ylabel "time / time(k_alt = 1)"
set yrange [0.5:1.4]
set key top right
plot "$tmp/dopl.dat" using 1:7 with linespoints title "k_alt = 2, simulated", \
     "" using 1:8 with linespoints title "dopl_alt, simulated", \
     "" using 1:9 with lines dashtype 2 title "k_alt = 2, paper's formula", \
     1 with lines lc rgb "gray" notitle
unset multiplot
GP
gnuplot "$tmp/dopl.gp"
echo "figure: $FIG/reproduce-000-dopl.png"
