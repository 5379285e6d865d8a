#!/bin/bash
# mpi_hosts.sh [BUILD_DIR] [LAYOUT] — intercom through ic_comm_from_mpi next
# to the same MPI's MPI_Allreduce / MPI_Bcast, across pretend hosts
# (tests/mpi/netns_hosts.sh; root needed), for each MPI bridge built in
# BUILD_DIR (default build): bench_mpi_<impl> (bench/mpi_side_by_side.c),
# sizes 8 B .. 16 MiB, 5 alternating repetitions of 20 timed calls.
# LAYOUT: ranks per host (default 2,2,2: 3 hosts x 2 ranks).
# Extra options for the benchmark program: BENCH_ARGS="--reps 7".
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build=$(cd "${1:-$here/build}" && pwd)
layout=${2:-2,2,2}
source "$here/tests/mpi/netns_hosts.sh"
why=$(netns_probe) || { echo "mpi_hosts: no pretend hosts here: $why" >&2; exit 2; }
nh=$(awk -F, '{print NF}' <<<"$layout")
netns_up "$nh"
trap 'netns_down' EXIT
cd "$build"
for impl in openmpi mpich; do
    [[ -x bench_mpi_$impl ]] || continue
    echo "== $impl, hosts $layout"
    if [[ $impl == openmpi ]]; then
        netns_mpirun openmpi "$layout" ./bench_mpi_$impl ${BENCH_ARGS:-} 2>&1 | grep -v '^\[\|setpgid'
    else
        netns_mpirun mpich "$layout" ./bench_mpi_$impl ${BENCH_ARGS:-} 2>&1 | grep -v '^netns_ucx_close'
    fi
done
