#!/usr/bin/env bash
# setup-mpi.sh — installs Debian's Open MPI (openmpi-bin, libopenmpi-dev)
# for bench/compare.sh, only if mpicc is missing.  Needs root or sudo.
set -euo pipefail

if command -v mpicc >/dev/null 2>&1 && command -v mpirun >/dev/null 2>&1; then
    echo "setup-mpi: $(command -v mpicc) is already there; nothing to do"
    exit 0
fi

SUDO=
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
        SUDO=sudo
    else
        echo "setup-mpi: mpicc is missing and this is not root (and no sudo):" >&2
        echo "  install openmpi-bin and libopenmpi-dev, then run bench/compare.sh again" >&2
        exit 1
    fi
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "setup-mpi: no apt-get here; install Open MPI (mpicc, mpirun) by hand" >&2
    exit 1
fi

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update
$SUDO apt-get install -y --no-install-recommends openmpi-bin libopenmpi-dev
command -v mpicc >/dev/null 2>&1 || { echo "setup-mpi: mpicc still missing" >&2; exit 1; }
echo "setup-mpi: installed $(mpirun --version 2>/dev/null | head -n 1)"
