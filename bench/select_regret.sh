#!/usr/bin/env bash
# select_regret.sh — selection regret in simulation at p = 512 (16 x 32
# mesh, alpha = 100 us, beta = 0.01 us/B, gamma = 0.005 us/B): the
# selector's choice next to the fastest catalog entry forced by name, every
# collective, n = 8 B .. 64 MiB.  Writes bench/results/select-regret-p512.md
# (about 10 minutes on 2 cores).  Extra arguments go to intercom-select-table.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j2 --target intercom-select-table >/dev/null
out=bench/results/select-regret-p512.md
{
  echo '```'
  echo "\$ bench/select_regret.sh $*"
  echo '```'
  echo
  build/intercom-select-table "$@"
} >"$out"
echo "wrote $out" >&2
