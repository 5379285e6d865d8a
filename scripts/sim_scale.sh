#!/usr/bin/env bash
# sim_scale.sh — how far the network simulator scales on this machine.
#
# Four series of one collective each, p growing until the next run would not
# fit (memory estimated from the last two runs, --max-gb) or would take too
# long (--max-s), links and contention on (wormhole, one-port):
#   dr-mesh     allreduce `dr` of 1 MiB on an s x s mesh, s = 64, 128, 256, 320
#   pfr-cube    allreduce `pfr` of 8 B (recursive doubling) on the D-cube,
#               D = 12, 14, 16, 18, 20, 21, 22
#   rb-torus    allreduce `reduce_bcast` of 8 B (binomial reduce + broadcast,
#               contention-free in rank order) on an s x s torus,
#               s = 64, 128, 256, 512, 1024, 1448
#   pfr-torus   allreduce `pfr` of 8 B on an s x s torus, s = 32, 64, 128, 256:
#               recursive doubling contends there (link load s/2), and every
#               start or end of a message reprices the messages sharing its
#               links, so this series grows fastest
# For every run it prints and records p, plan steps, messages, events, the
# build, link and run times, events per second, wall time, peak memory, and
# the memory per step and per rank (from IC_SIM_PROFILE=1).
#
# Writes bench/results/sim-scale.csv, bench/results/sim-scale.md and
# docs/figures/sim-scale.png (wall time and peak memory against p, log-log).
# With --compare OLD (another intercom-sim), every run with p <= 4096 is also
# run by OLD and the simulated times must agree bit for bit.
#
# Usage: scripts/sim_scale.sh [--max-gb G] [--max-s S] [--quick] [--compare OLD]
#                             [BUILD_DIR]
#   --max-gb  memory a run may take (default: 85 % of MemAvailable)
#   --max-s   predicted wall time a run may take (default 600)
#   --quick   p <= 16384 only (a minute or two)
set -euo pipefail
cd "$(dirname "$0")/.."
max_gb="" max_s=600 quick=0 old="" BUILD=""
while [ $# -gt 0 ]; do
  case "$1" in
    --max-gb) max_gb=$2; shift 2 ;;
    --max-s) max_s=$2; shift 2 ;;
    --quick) quick=1; shift ;;
    --compare) old=$2; shift 2 ;;
    -h|--help) sed -n '2,30p' "$0"; exit 0 ;;
    -*) echo "sim_scale.sh: unknown option $1" >&2; exit 2 ;;
    *) BUILD=$1; shift ;;
  esac
done
BUILD=${BUILD:-${BUILD_DIR:-build}}
if [ -z "$max_gb" ]; then
  max_gb=$(awk '/MemAvailable/ { printf "%.1f", $2 / 1048576 * 0.85 }' /proc/meminfo)
fi

bash scripts/deps.sh gnuplot
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$BUILD" -j2 --target intercom-sim >/dev/null
SIM="$BUILD/intercom-sim"
RES=bench/results
FIG=docs/figures
mkdir -p "$RES" "$FIG"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
csv=$RES/sim-scale.csv
echo "series,network,algo,bytes,p,steps,messages,events,build_s,link_s,run_s,events_per_s,wall_s,peak_mb,bytes_per_step,kb_per_rank,sim_time_us" >"$csv"
echo "sim_scale: $(nproc) CPUs, $(awk '/MemTotal/ { printf "%.1f", $2 / 1048576 }' /proc/meminfo) GB; runs up to $max_gb GB and ~$max_s s each"
printf '%-10s %-16s %9s %11s %10s %8s %8s %8s %8s %9s %8s %7s %7s\n' series network p steps messages \
  build_s link_s run_s wall_s events/s peak_MB B/step KB/rank
cmp_fail=0

# One run: series, network option, its value, p, algo, bytes.  Sets last_mb,
# last_wall; appends to the CSV.
run_one() {
  local series=$1 netopt=$2 netval=$3 p=$4 algo=$5 bytes=$6
  local t0 t1 prof
  t0=$(date +%s.%N)
  if ! IC_SIM_PROFILE=1 "$SIM" "$netopt" "$netval" --coll allreduce --algos "$algo" \
      --sizes "$bytes" --quiet --exact --csv "$tmp/new.csv" >/dev/null 2>"$tmp/err"; then
    echo "sim_scale: $netopt $netval $algo failed:" >&2
    cat "$tmp/err" >&2
    exit 1
  fi
  t1=$(date +%s.%N)
  prof=$(grep '^ic_sim_run:' "$tmp/err" | tail -1)
  # ic_sim_run: S steps, M messages, E events: build B s, link L s, run R s
  # (X events/s); peak memory after them M1, M2, M3 MB
  read -r steps msgs events build link run eps peak < <(echo "$prof" | awk '{
      gsub(/[,;():]/, " ");
      for (i = 1; i <= NF; i++) {
        if ($(i+1) == "steps") s = $i; if ($(i+1) == "messages") m = $i;
        if ($(i+1) == "events" && e == "") e = $i;
        if ($i == "build") b = $(i+1); if ($i == "link") l = $(i+1); if ($i == "run") r = $(i+1);
        if ($(i+1) == "events/s") x = $i; if ($i == "MB") pk = $(i-1);
      }
      print s, m, e, b, l, r, x, pk }')
  local wall simt
  wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
  simt=$(awk -F, 'NR == 2 { print $5 }' "$tmp/new.csv")
  local bps kbr
  bps=$(awk -v m="$peak" -v s="$steps" 'BEGIN { printf "%.1f", m * 1048576 / s }')
  kbr=$(awk -v m="$peak" -v p="$p" 'BEGIN { printf "%.1f", m * 1024 / p }')
  printf '%-10s %-16s %9d %11d %10d %8s %8s %8s %8s %9s %8s %7s %7s\n' "$series" \
    "${netopt#--} $netval" "$p" "$steps" "$msgs" "$build" "$link" "$run" "$wall" "$eps" \
    "$peak" "$bps" "$kbr"
  echo "$series,${netopt#--} $netval,$algo,$bytes,$p,$steps,$msgs,$events,$build,$link,$run,$eps,$wall,$peak,$bps,$kbr,$simt" >>"$csv"
  if [ -n "$old" ] && [ "$p" -le 4096 ]; then
    "$old" "$netopt" "$netval" --coll allreduce --algos "$algo" --sizes "$bytes" --quiet \
      --exact --csv "$tmp/old.csv" >/dev/null 2>&1 || true
    if cut -d, -f1-8 "$tmp/old.csv" | cmp -s - <(cut -d, -f1-8 "$tmp/new.csv"); then
      echo "           (the same times as $old, bit for bit)"
    else
      echo "           DIFFERENT from $old: $(sed -n 2p "$tmp/old.csv" | cut -d, -f5) us"
      cmp_fail=1
    fi
  fi
  last_mb=$peak
  last_wall=$wall
}

# A series: name, network option, algo, bytes, then "value p" pairs.
# Stops before a run whose memory or time, extrapolated from the last two
# runs (log-log), exceeds the limits.
series() {
  local name=$1 netopt=$2 algo=$3 bytes=$4
  shift 4
  local prev_p="" prev_mb="" prev_wall="" pp="" pmb="" pwall=""
  while [ $# -gt 0 ]; do
    local val=$1 p=$2
    shift 2
    if [ "$quick" = 1 ] && [ "$p" -gt 16384 ]; then break; fi
    if [ -n "$prev_p" ]; then
      local verdict
      verdict=$(awk -v p="$p" -v p1="$prev_p" -v m1="$prev_mb" -v w1="$prev_wall" \
        -v p0="$pp" -v m0="$pmb" -v w0="$pwall" -v G="$max_gb" -v S="$max_s" 'BEGIN {
          em = 1.5; ew = 1.5;
          if (p0 != "" && p0 != p1 && m0 > 0 && w0 > 0 && w1 > 0) {
            em = log(m1 / m0) / log(p1 / p0); ew = log(w1 / w0) / log(p1 / p0);
            if (em < 1) em = 1; if (ew < 1) ew = 1;
          }
          m = m1 * (p / p1) ^ em; w = w1 * (p / p1) ^ ew;
          if (m > G * 1024) printf "skip: about %.1f GB expected, more than %s GB", m / 1024, G;
          else if (w > S) printf "skip: about %.0f s expected, more than %s s", w, S;
          else print "run" }')
      if [ "$verdict" != run ]; then
        echo "$name ${netopt#--} $val (p = $p): $verdict"
        break
      fi
    fi
    run_one "$name" "$netopt" "$val" "$p" "$algo" "$bytes"
    pp=$prev_p pmb=$prev_mb pwall=$prev_wall
    prev_p=$p prev_mb=$last_mb prev_wall=$last_wall
  done
}

series dr-mesh --mesh dr 1M 64x64 4096 128x128 16384 256x256 65536 320x320 102400
series pfr-cube --hypercube pfr 8 12 4096 14 16384 16 65536 18 262144 20 1048576 \
  21 2097152 22 4194304
series rb-torus --torus reduce_bcast 8 64x64 4096 128x128 16384 256x256 65536 512x512 262144 \
  1024x1024 1048576 1448x1448 2096704
series pfr-torus --torus pfr 8 32x32 1024 64x64 4096 128x128 16384 256x256 65536

# The table and the figure.
{
  echo "| series | network | p | steps | messages | build s | link s | run s | wall s | events/s | peak MB | B/step | KB/rank |"
  echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  awk -F, 'NR > 1 { printf "| %s | %s | %d | %d | %d | %s | %s | %s | %s | %.3g | %s | %s | %s |\n",
    $1, $2, $5, $6, $7, $9, $10, $11, $13, $12, $14, $15, $16 }' "$csv"
} >"$RES/sim-scale.md"
for s in dr-mesh pfr-cube rb-torus pfr-torus; do
  awk -F, -v s="$s" 'NR > 1 && $1 == s { print $5, $13, $14 / 1024 }' "$csv" >"$tmp/$s.dat"
done
if gnuplot -e 'set terminal' 2>&1 | grep pngcairo >/dev/null; then
  TERM_PNG='pngcairo font "sans,9" size 1000,420'
else
  TERM_PNG='png small size 1000,420'
fi
gnuplot <<EOF
set terminal $TERM_PNG
set output "$FIG/sim-scale.png"
set multiplot layout 1,2 title "intercom-sim on $(nproc) CPUs: one allreduce, links and contention on"
set logscale xy
set xlabel "ranks p"
set grid
set key top left
set ylabel "wall time (s)"
plot "$tmp/dr-mesh.dat" u 1:2 w lp t "dr 1 MiB, mesh", \
     "$tmp/pfr-cube.dat" u 1:2 w lp t "pfr 8 B, hypercube", \
     "$tmp/rb-torus.dat" u 1:2 w lp t "reduce\\\\_bcast 8 B, torus", \
     "$tmp/pfr-torus.dat" u 1:2 w lp t "pfr 8 B, torus (contended)"
set ylabel "peak memory (GB)"
plot "$tmp/dr-mesh.dat" u 1:3 w lp t "dr 1 MiB, mesh", \
     "$tmp/pfr-cube.dat" u 1:3 w lp t "pfr 8 B, hypercube", \
     "$tmp/rb-torus.dat" u 1:3 w lp t "reduce\\\\_bcast 8 B, torus", \
     "$tmp/pfr-torus.dat" u 1:3 w lp t "pfr 8 B, torus (contended)"
unset multiplot
EOF
echo "sim_scale: wrote $csv, $RES/sim-scale.md, $FIG/sim-scale.png"
exit $cmp_fail
