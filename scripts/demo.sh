#!/usr/bin/env bash
# The main job: builds intercom (Release), its launcher intercom-run, the
# example programs of examples/ and intercom-demo, then
#   1-3. runs each example on real processes with intercom-run (every rank
#        checks its own results; a failure stops the script), and
#   4.   runs the in-process demo: every collective on 12 simulated ranks,
#        checked against a serial reference, and what the selector picks;
#   5.   simulates an allreduce on a 16 x 32 mesh machine with intercom-sim.
# Arguments go to intercom-demo only (e.g. scripts/demo.sh -p 33).
set -euo pipefail
cd "$(dirname "$0")/.."
t0=$(date +%s.%N)
scripts/deps.sh

# A heading: a title line, then lines saying what is shown.
heading() {
  printf '\n=== %s\n' "$1"
  shift
  for line in "$@"; do printf '    %s\n' "$line"; done
  echo
}
since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }

echo "=== Building intercom, intercom-run, the examples and intercom-demo (Release)"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j2 --target intercom intercom-run intercom-demo intercom-sim \
  allreduce_vector row_col_bcast prefix_sum >/dev/null
echo "built in $(since "$t0") s"
t1=$(date +%s.%N)

run=(build/intercom-run --timeout 60)

heading "1. allreduce_vector on 4 processes (examples/allreduce_vector.c)" \
  "A vector of 1000003 doubles split over the processes: the global dot products" \
  "and max with ic_allreduce (the max in place), checked against closed forms."
"${run[@]}" -n 4 build/allreduce_vector

heading "2. row_col_bcast on 6 processes (examples/row_col_bcast.c)" \
  "The processes as a 2 x 3 grid with row and column communicators (ic_comm_split);" \
  "the diagonal blocks are broadcast along rows, then down columns, as in 2-D linear algebra."
"${run[@]}" -n 6 build/row_col_bcast

heading "3. prefix_sum on 4 processes (examples/prefix_sum.c)" \
  "A parallel prefix sum over chunks of different sizes: each process finds where its" \
  "chunk starts with ic_exscan; rank 0 collects the results with ic_gather and ic_gatherv."
"${run[@]}" -n 4 build/prefix_sum

heading "4. intercom-demo: the in-process engine (tools/intercom_demo.c)" \
  "Every collective simulated in one process under the cost model, and which algorithm" \
  "the selector would pick for each message size (context for the runs above)."
build/intercom-demo "$@"

heading "5. intercom-sim: the same plans on a 16 x 32 mesh machine (docs/simulator.md)" \
  "512 ranks, wormhole routing, links shared: prime-factor rings (pfr) put up to 16" \
  "messages on one link, dimensional rings (dr) one; the hybrid and the selector (auto)" \
  "choose with that contention priced.  Times are simulated; (n) is the busiest link's load."
build/intercom-sim --mesh 16x32 --coll allreduce --algos pfr,dr,hybrid,auto \
  --sizes 64,4K,256K,16M --quiet

printf '\n=== Done: parts 1-4 checked every result; the runs took %s s, %s s in all\n' \
  "$(since "$t1")" "$(since "$t0")"
