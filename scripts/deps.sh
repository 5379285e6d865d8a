#!/usr/bin/env bash
# Installs what building intercom needs (Debian packages), only if missing.
# "scripts/deps.sh gnuplot" also installs gnuplot-nox (for the figures);
# "scripts/deps.sh fuzz" clang and its libFuzzer runtime (scripts/fuzz.sh);
# "scripts/deps.sh mpi" Debian's Open MPI and MPICH (the MPI bridges,
# docs/mpi.md) and iproute2 (the pretend hosts of tests/mpi/netns_test.sh).
set -euo pipefail
need=()
command -v cmake >/dev/null 2>&1 || need+=(cmake)
command -v cc >/dev/null 2>&1 || need+=(gcc)
command -v make >/dev/null 2>&1 || need+=(make)
command -v pkg-config >/dev/null 2>&1 || need+=(pkgconf) # tests/install: the installed intercom.pc
for extra in "$@"; do
  case "$extra" in
    gnuplot) command -v gnuplot >/dev/null 2>&1 || need+=(gnuplot-nox) ;;
    fuzz)
      command -v clang >/dev/null 2>&1 || need+=(clang)
      ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1 ||
        need+=(libclang-rt-dev)
      ;;
    mpi)
      command -v mpicc.openmpi >/dev/null 2>&1 || need+=(openmpi-bin libopenmpi-dev)
      command -v mpicc.mpich >/dev/null 2>&1 || need+=(mpich libmpich-dev)
      command -v ip >/dev/null 2>&1 || need+=(iproute2)
      command -v unshare >/dev/null 2>&1 || need+=(util-linux)
      ;;
    *) echo "scripts/deps.sh: unknown extra '$extra' (known: gnuplot, fuzz, mpi)" >&2; exit 2 ;;
  esac
done
if [ ${#need[@]} -gt 0 ]; then
  echo "installing: ${need[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}"
fi
