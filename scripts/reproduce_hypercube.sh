#!/usr/bin/env bash
# Reproduces two of the papers' experiments with intercom-sim (the library's
# own plans in the network simulator):
#
#   [vdG91]  the hybrid global combine against its two pure versions on a
#             64-node hypercube, alpha = 525 us, beta = 2 us, gamma = 0.35 us
#             per single-precision element (Figure 7, predicted side);
#   [BR90]  algorithm AAP and its dual-phase variant (all-to-all
#             personalized) on a circuit-switched hypercube with the
#             iPSC/860 figures: 65 us start-up, 10 us per hop, 0.425 us/B.
#
# Writes docs/figures/reproduce-004-combine.png, docs/figures/reproduce-003-aap.png,
# bench/results/reproduce-004-combine.{md,csv}, bench/results/reproduce-003-aap.{md,csv}
# and prints a summary.  docs/reproduce.md explains the results.  Installs
# gnuplot-nox with apt-get when gnuplot is missing.  About 30 s on 2 vCPUs.
#
# Usage: scripts/reproduce_hypercube.sh [BUILD_DIR]
#        (default: $BUILD, as scripts/reproduce.sh sets it, else build);
#        BR90_DIMS="3 5 6 7" picks the cube dimensions of [BR90].
set -euo pipefail
source "$(dirname "$0")/reproduce_setup.sh" "$@" -- intercom-sim

# Runs intercom-sim, echoing the command (a long --sizes list shortened).
run_sim() {
  local shown=() a
  for a in "$@"; do
    if [ ${#a} -gt 60 ]; then shown+=("${a:0:40}...(${#a} chars)"); else shown+=("$a"); fi
  done
  echo "+ $SIM ${shown[*]}"
  "$SIM" "$@" --quiet >/dev/null
}

# ---------------------------------------------------------------------------
# Experiment 1: [vdG91], hybrid global combine on a 6-cube.
# Per element (float, 4 B): alpha 525 us, beta 2 us, gamma 0.35 us, i.e.
# beta = 0.5 us/B, gamma = 0.0875 us/B.  pfr on the 2x..x2 logical mesh is
# Version 2 (exchange the whole vector in each dimension), pfr_dc is
# Version 3 (distributed reduction, then collect), hybrid the hybrid: the
# cost model picks how many dimensions to halve (j), the other d - j
# exchange the half-vector.
# ---------------------------------------------------------------------------
echo "== [vdG91]: hybrid global combine, 64-node hypercube"
D4=6
# n in elements: every n up to 1024, every 8 up to 4096, dense around the
# hybrid's later switches (n = 1663.3, 6222.2, 96000 by the paper's rule),
# log-spaced (factor 2^(1/8)) beyond.
{
  seq 1 1024
  seq 1032 8 4096
  seq 1650 1 1680
  seq 6200 1 6250
  awk 'BEGIN { for (x = 4096; x <= 131072 * 1.0001; x *= 2 ^ 0.125) printf "%d\n", x + 0.5 }'
  seq 95980 4 96020
  echo 131072
} | sort -n -u >"$tmp/n4"
sizes4=$(awk '{ printf "%s%d", (NR > 1 ? "," : ""), 4 * $1 }' "$tmp/n4")
run_sim --hypercube $D4 --logical 2x2x2x2x2x2 --alpha 525 --beta 0.5 --gamma 0.0875 \
  --elem float --coll allreduce --algos pfr,pfr_dc,hybrid --sizes "$sizes4" \
  --csv "$tmp/vdg91-raw.csv"

# Derived table: per n (elements) the three times, the hybrid's j (from its
# message count: p*(d + j) messages, j halvings + d - j exchanges + j
# collects), the paper's rule j (halve while n/2^i >= 2 alpha / ((d-1-i)
# (beta+gamma) + gamma)), the closed forms of the pure versions.
awk -F, -v d=$D4 -v out="$tmp/vdg91.dat" '
  NR == 1 { next }
  { n = $4 / 4; t[n, $2] = $5; if ($2 == "hybrid") m[n] = $7; if (!(n in seen)) { seen[n] = 1; ns[++cnt] = n } }
  END {
    a = 525; b = 2; g = 0.35; p = 2 ^ d
    print "n,t_pfr_us,t_pfr_dc_us,t_hybrid_us,hybrid_j,rule_j,v2_formula_us,v3_formula_us,hybrid_formula_us,best_pure,hybrid_gain_pct"
    for (i = 1; i <= cnt; i++) {
      n = ns[i]
      v2 = t[n, "pfr"]; v3 = t[n, "pfr_dc"]; h = t[n, "hybrid"]
      js = m[n] / p - d
      j = 0
      while (j < d && n / 2 ^ j >= 2 * a / ((d - 1 - j) * (b + g) + g)) j++
      f2 = d * (a + n * (b + g))
      f3 = 2 * d * a + (p - 1) / p * n * (2 * b + g)
      fh = 2 * js * a + (d - js) * a + n * (1 - 2 ^ -js) * (2 * b + g) + (d - js) * n * 2 ^ -js * (b + g)
      best = v2 <= v3 ? v2 : v3
      printf "%d,%.2f,%.2f,%.2f,%d,%d,%.2f,%.2f,%.2f,%s,%.3f\n", n, v2, v3, h, js, j, f2, f3, fh, \
        (v2 <= v3 ? "v2" : "v3"), 100 * (best - h) / best
      printf "%d %.4f %.4f %.4f %.6f %.6f %.6f\n", n, v2 / 1000, v3 / 1000, h / 1000, v2 / best, v3 / best, h / best > out
    }
  }' "$tmp/vdg91-raw.csv" >"$RES/reproduce-004-combine.csv"

# Key numbers.
read -r x_last_v2 x_first_v3 worst_gain best_gain best_gain_n v2_dev v3_dev h_dev v3_dev64 \
  rule_agree rule_total < <(awk -F, -v d=$D4 '
  NR == 1 { next }
  { n = $1
    if ($10 == "v2") last_v2 = n
    if ($10 == "v3" && first_v3 == "") first_v3 = n
    if (worst == "" || $11 < worst) worst = $11
    if (best == "" || $11 > best) { best = $11; bestn = n }
    e = $2 - $7; if (e < 0) e = -e; if (e > d2) d2 = e
    e = $3 - $8; if (e < 0) e = -e; if (e > d3) d3 = e
    if (n % 64 == 0 && e > d3m) d3m = e
    e = $4 - $9; if (e < 0) e = -e; if (n % 2 ^ $5 == 0 && e > dh) dh = e
    tot++; if ($5 == $6) agree++ }
  END { printf "%d %d %.3f %.3f %d %.3g %.3g %.3g %.3g %d %d\n", last_v2, first_v3, worst, best, bestn,
        d2, d3, dh, d3m, agree, tot }' "$RES/reproduce-004-combine.csv")
# The pure versions cross where d(a + n(b+g)) = 2da + (p-1)/p n (2b+g);
# the hybrid first halves (j = 1) at the paper's n = 2a/((d-1)(b+g)+g).
read -r x_pred sw_pred < <(awk -v d=$D4 'BEGIN { a = 525; b = 2; g = 0.35; p = 2 ^ d
  printf "%.1f %.1f\n", d * a / (d * (b + g) - (p - 1) / p * (2 * b + g)), 2 * a / ((d - 1) * (b + g) + g) }')
sw_sim=$(awk -F, 'NR > 1 && $5 > 0 { print $1; exit }' "$RES/reproduce-004-combine.csv")
# Where the hybrid's j changes (simulated) and where the rule's does.
j_steps_sim=$(awk -F, 'NR > 1 { if ($5 != pj) { s = s (s ? " " : "") "j" $5 "@" $1; pj = $5 } } END { print s }' "$RES/reproduce-004-combine.csv")
j_steps_rule=$(awk -F, 'NR > 1 { if ($6 != pj) { s = s (s ? " " : "") "j" $6 "@" $1; pj = $6 } } END { print s }' "$RES/reproduce-004-combine.csv")

{
  echo "# [vdG91]: hybrid global combine vs Versions 2 and 3 (simulated)"
  echo
  echo "64-node hypercube (logical 2x2x2x2x2x2), wormhole, one-port; alpha = 525 us,"
  echo "beta = 2 us, gamma = 0.35 us per float (0.5 / 0.0875 us/B).  Generated by"
  echo "scripts/reproduce_hypercube.sh; every point in reproduce-004-combine.csv."
  echo "Times in ms; V2 = \`pfr\`, V3 = \`pfr_dc\`; hybrid j = dimensions halved"
  echo "(then 6 - j exchanges and j collects); rule j = the paper's switch rule;"
  echo "gain = how much faster the hybrid is than the better pure version."
  echo
  echo "| n (floats) | V2 pfr | V3 pfr_dc | hybrid | hybrid j | rule j | better pure | gain |"
  echo "|---:|---:|---:|---:|---:|---:|:--|---:|"
  awk -F, 'NR == FNR { want[$1] = 1; next }
    FNR > 1 && ($1 in want) { printf "| %d | %.3f | %.3f | %.3f | %d | %d | %s | %.1f%% |\n",
      $1, $2 / 1000, $3 / 1000, $4 / 1000, $5, $6, ($10 == "v2" ? "V2" : "V3"), $11 }' \
    <(printf '%s\n' 1 16 64 86 87 88 100 128 192 215 216 256 320 321 333 334 384 512 567 568 \
      768 1024 1536 1663 1664 2048 3072 4096 6222 6223 8192 16384 32768 65536 95996 96000 131072) \
    "$RES/reproduce-004-combine.csv"
} >"$RES/reproduce-004-combine.md"

cat >"$tmp/vdg91.gp" <<EOF
set terminal $TERM_PNG size 1000,420
set output '$FIG/reproduce-004-combine.png'
set multiplot layout 1,2 title "Global combine on a 64-node hypercube (simulated): alpha 525 us, beta 2 us, gamma 0.35 us per float"
set key top left
set grid
set xlabel 'n (floats)'
set ylabel 'time (ms)'
set xrange [0:1024]
set arrow 1 from $x_pred, graph 0 to $x_pred, graph 1 nohead dt 2 lc rgb 'gray40'
set label 1 sprintf('V2 = V3 (formula) n = %s', '$x_pred') at $x_pred, graph 0.06 offset 1,0 tc rgb 'gray30'
set arrow 2 from $sw_pred, graph 0 to $sw_pred, graph 0.75 nohead dt 3 lc rgb 'gray40'
set label 2 sprintf('rule: first halving n = %s', '$sw_pred') at $sw_pred, graph 0.78 left offset 0.5,0 tc rgb 'gray30'
plot '$tmp/vdg91.dat' u 1:2 w l lw 2 lc rgb '#1f77b4' t 'Version 2 (pfr)', \
     '' u 1:3 w l lw 2 lc rgb '#d62728' t 'Version 3 (pfr\_dc)', \
     '' u 1:4 w l lw 2 lc rgb '#2ca02c' t 'hybrid'
unset arrow; unset label
set logscale x
set xrange [1:131072]
set yrange [0.5:2.2]
set format x '10^{%T}'
set ylabel 'time / time of the better pure version'
set key top left
plot '$tmp/vdg91.dat' u 1:5 w l lw 2 lc rgb '#1f77b4' t 'Version 2 (pfr)', \
     '' u 1:6 w l lw 2 lc rgb '#d62728' t 'Version 3 (pfr\_dc)', \
     '' u 1:7 w l lw 2 lc rgb '#2ca02c' t 'hybrid'
unset multiplot
EOF
gnuplot "$tmp/vdg91.gp"

# ---------------------------------------------------------------------------
# Experiment 2: [BR90], AAP and dual AAP on a circuit-switched cube.
# A message of k bytes over i hops: 65 + 10 i + 0.425 k us (the paper's
# xi + i tau + i + k - 1 units of 0.425 us).  intercom-sim's n for
# alltoall is the total per rank, so n = k * 2^d.
# ---------------------------------------------------------------------------
echo "== [BR90]: AAP on a circuit-switched hypercube (iPSC/860 figures)"
DIMS3=${BR90_DIMS:-"3 5 6 7"}
KS3="16 32 64 100 256 512 1024 2048 4096 8192 16384"
NET3=(--switching circuit --alpha 65 --hop 10 --beta 0.425 --gamma 0 --coll alltoall)
: >"$tmp/br90-raw.csv"
for d in $DIMS3; do
  p=$((1 << d))
  sizes=$(for k in $KS3; do echo $((k * p)); done | paste -sd, -)
  run_sim --hypercube "$d" "${NET3[@]}" --algos aap,aap_dual,pairwise,bruck --sizes "$sizes" \
    --csv "$tmp/a.csv"
  awk -F, -v d="$d" 'NR > 1 { print d ",plain," $0 }' "$tmp/a.csv" >>"$tmp/br90-raw.csv"
  run_sim --hypercube "$d" "${NET3[@]}" --setup-overlap --algos aap,aap_dual --sizes "$sizes" \
    --csv "$tmp/a.csv"
  awk -F, -v d="$d" 'NR > 1 { print d ",overlap," $0 }' "$tmp/a.csv" >>"$tmp/br90-raw.csv"
done

# eta = T / T_min, T_min = k (N-1) 0.425 us; the paper's eta (AAP) and eta'
# (dual, with overlap) in its units: xi - 1 = 65/0.425, 1 + tau = 10/0.425.
awk -F, -v out="$tmp/br90.dat" '
  { d = $1; p = 2 ^ d; k = $6 / p; key = d SUBSEP k
    t[key, $2, $4] = $7; L[key, $2, $4] = $8; if (!(key in seen)) { seen[key] = 1; keys[++cnt] = key; dd[cnt] = d; kk[cnt] = k } }
  END {
    xi1 = 65 / 0.425; tau1 = 10 / 0.425; xi = xi1 + 1; tau = tau1 - 1
    print "d,k,T_min_us,T_aap_us,eta_aap,eta_paper,T_aap_overlap_us,T_dual_us,T_dual_overlap_us,eta_dual_overlap,eta_prime_paper,eta_prime_valid,T_pairwise_us,T_bruck_us,load_pairwise,load_dual_overlap"
    for (i = 1; i <= cnt; i++) {
      key = keys[i]; n = dd[i]; k = kk[i]; N = 2 ^ n
      tmin = k * (N - 1) * 0.425
      ep = 1 + (tau1 * n / 2 + xi1) / k + (tau1 * n / 2) / (k * (N - 1))
      epp = 1 + (n - 2) / (2 * k) + (n / 2 + 2 * (xi + n * tau) - tau) / (k * (N - 1))
      valid = k > xi + (n - 1) * tau ? 1 : 0
      ta = t[key, "plain", "aap"]; td = t[key, "overlap", "aap_dual"]
      printf "%d,%d,%.1f,%.1f,%.6f,%.6f,%.1f,%.1f,%.1f,%.6f,%.6f,%d,%.1f,%.1f,%d,%d\n", n, k, tmin, ta, ta / tmin, ep,
        t[key, "overlap", "aap"], t[key, "plain", "aap_dual"], td, td / tmin, epp, valid,
        t[key, "plain", "pairwise"], t[key, "plain", "bruck"], L[key, "plain", "pairwise"], L[key, "overlap", "aap_dual"]
      if (n != lastn) { if (lastn != "") printf "\n\n" > out; printf "# d=%d\n", n > out; lastn = n }
      printf "%d %.6f %.6f %.6f %.6f\n", k, ta / tmin, ep, td / tmin, epp > out
    }
  }' "$tmp/br90-raw.csv" >"$RES/reproduce-003-aap.csv"

{
  echo "# [BR90]: AAP and dual AAP, circuit-switched hypercube (simulated)"
  echo
  echo "One-port, circuit switching, 65 us start-up, 10 us per hop, 0.425 us/B"
  echo "(iPSC/860).  k = bytes per destination; T in ms; eta = T / (k (N-1) 0.425 us)."
  echo "\"paper\" = the paper's formulas (eta for AAP, eta' for the dual with set-up"
  echo "overlap; * marks k <= xi + (n-1) tau, below which the paper says eta' does not"
  echo "hold: set-ups are then longer than the transmissions they overlap)."
  echo "ov = \`--setup-overlap\`.  pairwise and bruck without overlap.  Generated by"
  echo "scripts/reproduce_hypercube.sh; all values in reproduce-003-aap.csv."
  echo
  echo "| d | k (B) | T aap | eta aap | eta paper | T aap ov | T dual | T dual ov | eta dual ov | eta' paper | T pairwise | T bruck |"
  echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  awk -F, 'NR > 1 { printf "| %d | %d | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f%s | %.3f | %.3f |\n",
    $1, $2, $4 / 1000, $5, $6, $7 / 1000, $8 / 1000, $9 / 1000, $10, $11, ($12 ? "" : "*"), $13 / 1000, $14 / 1000 }' \
    "$RES/reproduce-003-aap.csv"
} >"$RES/reproduce-003-aap.md"

# Figure: eta - 1 (the overhead over the lower bound) vs k, log-log,
# simulated points, the paper's formulas as lines.
{
  echo "set terminal $TERM_PNG size 1000,420"
  echo "set output '$FIG/reproduce-003-aap.png'"
  echo "set multiplot layout 1,2 title 'All-to-all personalized on a circuit-switched n-cube (iPSC/860: 65 us + 10 us/hop + 0.425 us/B): points simulated, lines the paper'"
  echo "set logscale xy; set grid; set xrange [12:22000]; set yrange [1e-4:30]"
  echo "set xlabel 'k (bytes per destination)'; set ylabel 'eta - 1 = T / (k (N-1) 0.425 us) - 1'"
  echo "set format x '10^{%T}'; set format y '10^{%T}'; set key bottom left"
  echo "x1 = 65/0.425; t1 = 10/0.425; xi = x1 + 1; tau = t1 - 1"
  echo "eta(k,n) = 1 + (t1*n/2 + x1)/k + (t1*n/2)/(k*(2**n-1))"
  echo "etap(k,n) = 1 + (n-2)/(2*k) + (n/2 + 2*(xi + n*tau) - tau)/(k*(2**n-1))"
  echo "set samples 200"
  i=0
  colors=('#1f77b4' '#d62728' '#2ca02c' '#9467bd' '#ff7f0e')
  p1=""
  p2=""
  for d in $DIMS3; do
    c=${colors[$i]}
    p1+="'$tmp/br90.dat' index $i u 1:(\$2-1) w p pt 7 ps 0.8 lc rgb '$c' t 'n = $d sim', eta(x,$d)-1 w l lc rgb '$c' notitle, "
    p2+="'$tmp/br90.dat' index $i u 1:(\$4-1) w p pt 7 ps 0.8 lc rgb '$c' t 'n = $d sim', etap(x,$d)-1 w l lc rgb '$c' notitle, "
    i=$((i + 1))
  done
  echo "set title \"AAP, no set-up overlap (lines: paper's eta)\""
  echo "plot ${p1%, }"
  echo "set title \"dual AAP with --setup-overlap (lines: paper's eta prime)\""
  echo "plot ${p2%, }"
  echo "unset multiplot"
} >"$tmp/br90.gp"
gnuplot "$tmp/br90.gp"

# ---------------------------------------------------------------------------
echo
echo "== summary"
echo "[vdG91] (64-node cube, floats):"
echo "  Version 2 (pfr) = d(alpha + n(beta+gamma)): max |sim - formula| $v2_dev us"
echo "  Version 3 (pfr_dc) = 2d alpha + (p-1)/p n(2beta+gamma): max |sim - formula| $v3_dev us" \
  "($v3_dev64 us at n a multiple of 64)"
echo "  pure versions cross: formula n = $x_pred; simulated V2 faster up to n = $x_last_v2," \
  "V3 from n = $x_first_v3"
echo "  hybrid first halves: paper's rule n >= $sw_pred, simulated from n = $sw_sim"
echo "  hybrid j changes (sim):  $j_steps_sim"
echo "  hybrid j changes (rule): $j_steps_rule   (agree at $rule_agree of $rule_total n)"
echo "  hybrid vs better pure: worst gain $worst_gain %, best gain $best_gain % at n = $best_gain_n"
echo "  hybrid = its closed form (even pieces) within $h_dev us"
echo "[BR90] (circuit-switched cube, iPSC/860 figures):"
awk -F, 'NR > 1 && ($2 == 100 || $2 == 16384) {
  printf "  n = %d, k = %5d: eta aap %.3f (paper %.3f), eta dual+overlap %.4f (paper eta%s %.4f)\n",
    $1, $2, $5, $6, $10, "'"'"'", $11 }' "$RES/reproduce-003-aap.csv"
echo "wrote $FIG/reproduce-004-combine.png $FIG/reproduce-003-aap.png"
echo "      $RES/reproduce-004-combine.md $RES/reproduce-004-combine.csv $RES/reproduce-003-aap.md $RES/reproduce-003-aap.csv"
for f in "$FIG/reproduce-004-combine.png" "$FIG/reproduce-003-aap.png"; do echo "  $(wc -c <"$f") B  $f"; done
