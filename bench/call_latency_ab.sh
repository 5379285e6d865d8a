#!/usr/bin/env bash
# call_latency_ab.sh — bench/call_latency.c (loops of small calls: bcast
# with alternating roots, allreduce, barrier, scatter, gather, scan) under
# Open MPI with several builds of the drop-in, and alone, side by side:
# one run of each per repetition, the order rotated every repetition.
# For a change to the per-message path (docs/perf/per-call-work.md).
#
#   bench/call_latency_ab.sh REPS NAME=LIB [NAME=LIB ...]
#
# LIB is a drop-in (.../dropin/openmpi/libintercom_mpi.so), or empty for
# Open MPI alone ("ompi=").  P (default 2) ranks.  Prints, per loop, the
# median over the repetitions of each run's median (µs per call) and each
# build's ratio to the first one (median, lowest-highest over the
# repetitions).  Raw lines in $OUT (default bench/results/call_latency_ab_raw.txt).
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${1:?usage: call_latency_ab.sh REPS NAME=LIB [NAME=LIB ...]}
shift
(($# >= 2)) || { echo "call_latency_ab: give at least two NAME=LIB" >&2; exit 2; }
names=() libs=()
for a in "$@"; do names+=("${a%%=*}"); libs+=("${a#*=}"); done
command -v mpicc.openmpi >/dev/null || bash scripts/deps.sh mpi
bin=$(mktemp -d)/call_latency_openmpi
mpicc.openmpi -std=c11 -O2 -Wall -Wextra -Werror -o "$bin" bench/call_latency.c
raw=${OUT:-bench/results/call_latency_ab_raw.txt}
: >"$raw"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
n=${#names[@]}
for ((r = 0; r < reps; r++)); do
    for ((k = 0; k < n; k++)); do
        i=$(((k + r) % n))
        lib=${libs[$i]}
        mpirun.openmpi -n "${P:-2}" --oversubscribe --mca btl self,vader \
            ${lib:+-x LD_PRELOAD="$lib"} "$bin" 2>&1 | grep round | sed "s/^/${names[$i]} rep$r /" >>"$raw"
    done
    echo "call_latency_ab: repetition $((r + 1)) of $reps done" >&2
done
rm -rf "$(dirname "$bin")"
echo "# call_latency_ab.sh p=${P:-2} reps=$reps $(date -u +%Y-%m-%dT%H:%MZ) $*"
python3 - "$raw" "${names[@]}" <<'PY'
import collections, re, statistics as S, sys
raw, names = sys.argv[1], sys.argv[2:]
d = collections.defaultdict(lambda: collections.defaultdict(list))
for line in open(raw):
    f = line.split()
    for k, v in re.findall(r'(\w+) ([0-9.]+)', line.split(':', 1)[1]):
        d[(f[0], f[1])][k].append(float(v))
reps = sorted({r for (_, r) in d})
base = names[0]
print('loop      ' + ' '.join(f'{x:>9s}' for x in names) + ''.join(f'   {x}/{base}' for x in names[1:]))
for c in ['bcast', 'allreduce', 'barrier', 'scatter', 'gather', 'scan']:
    m = {x: [S.median(d[(x, r)][c]) for r in reps] for x in names}
    out = f'{c:9s} ' + ' '.join(f'{S.median(m[x]):9.4f}' for x in names)
    for x in names[1:]:
        q = [b / a for a, b in zip(m[base], m[x])]
        out += f'   {S.median(q):.2f} ({min(q):.2f}-{max(q):.2f})'
    print(out)
PY
