#!/bin/bash
# netns_test.sh IMPL PROGRAM [NAME] — run PROGRAM (test_mpi_real_<impl>, or
# another program that prints NAME's lines: "NAME: N ranks on K hosts" and
# "NAME rank 0 of N: X passed, 0 failed"; NAME defaults to test_real) under MPI
# IMPL (openmpi or mpich) across pretend hosts made of Linux namespaces
# (netns_hosts.sh): 2 hosts x 2 ranks, 3 x 2, 3+2+2 and 4 x 1.  For each:
# every rank must run on the host the layout says (hostname under the same
# launcher), the program must print its pass line and exit 0, and no
# intercom-* segment may be left in any host's /dev/shm.  After teardown
# nothing of ours may be left (netns_down's checks), also after a failure
# or Ctrl-C.  Exit 77 (SKIPPED) where namespaces cannot be made (not root,
# no ip/unshare, not permitted) or the launcher is missing.
# Env: IC_TIMEOUT (default 300) for the program; NETNS_RUN_TIMEOUT, limit of
# each launch (default 300 s: 4 x (300 + 60) stays under ctest's 1500 s);
# NETNS_LAYOUTS for other layouts (e.g. "2,2 1,1,1,1").
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/netns_hosts.sh"

impl=${1:?usage: netns_test.sh openmpi|mpich PROGRAM}
prog=${2:?usage: netns_test.sh openmpi|mpich PROGRAM}
name=${3:-test_real}
skip() { echo "SKIPPED: $*"; exit 77; }
case $impl in
    openmpi) launcher=mpirun.openmpi ;;
    mpich) launcher=mpiexec.mpich ;;
    *) echo "unknown MPI '$impl'" >&2; exit 2 ;;
esac
command -v $launcher >/dev/null || skip "$launcher not installed"
[[ -x $prog ]] || { echo "FAIL: no program $prog" >&2; exit 1; }
prog=$(cd "$(dirname "$prog")" && pwd)/$(basename "$prog")
why=$(netns_probe) || skip "$why"

export IC_TIMEOUT=${IC_TIMEOUT:-300}
unset IC_MPI_FAKE_HOSTS IC_MPI_NO_SHM   # real hosts here
limit=${NETNS_RUN_TIMEOUT:-300}
log=$(mktemp)

trap 'rc=$?; trap - EXIT INT TERM
      netns_down || { echo "FAIL: teardown left something behind"; rc=1; }
      rm -f "$log"; exit $rc' EXIT
trap 'echo "interrupted"; exit 130' INT
trap 'echo "terminated"; exit 143' TERM

# launch LIMIT OUT IMPL LAYOUT cmd...: netns_mpirun with a time limit,
# output to OUT; in the background, so that a signal interrupts the wait.
launch() {
    local limit=$1 out=$2
    shift 2
    timeout -k 10 "$limit" bash -c 'source "$1"; shift; netns_mpirun "$@"' _ \
        "$here/netns_hosts.sh" "$@" > "$out" 2>&1 &
    wait $!
}

netns_up 4
echo "pretend hosts ichost0..3 ($IC_NETNS), $impl"
fail=0
for layout in ${NETNS_LAYOUTS:-2,2 2,2,2 3,2,2 1,1,1,1}; do
    n=0 k=0 want=""
    for c in ${layout//,/ }; do want+="ichost$k:$c "; n=$((n + c)) k=$((k + 1)); done
    launch 60 "$log" "$impl" "$layout" hostname || true
    got=$(grep -E '^ichost[0-9]+$' "$log" | sort | uniq -c | awk '{printf "%s:%s ", $2, $1}')
    if [[ $got != "$want" ]]; then
        echo "FAIL $layout: ranks on '$got', expected '$want'"
        sed 's/^/     /' "$log"
        fail=1
        continue
    fi
    t0=$SECONDS rc=0
    export IC_TEST_EXPECT_HOSTS=$k # the bridge must find them too (test_real.c)
    launch "$limit" "$log" "$impl" "$layout" "$prog" || rc=$?
    left=$(for ((h = 0; h < k; h++)); do netns_exec $h ls /dev/shm; done | grep '^intercom-' || true)
    pass=$(grep -E "^$name rank 0 of $n: [0-9]+ passed, 0 failed$" "$log" || true)
    grep -q "^$name: $n ranks on $k hosts$" "$log" || pass=
    if [[ $rc -eq 0 && -n $pass && -z $left ]]; then
        echo "ok   $layout ($want) $((SECONDS - t0)) s: $pass"
        grep '^netns_ucx_close' "$log" | sort | uniq -c | sed 's/^/     /' || true
    else
        echo "FAIL $layout ($want) $((SECONDS - t0)) s: exit $rc${left:+, left in /dev/shm: $left}"
        tail -n 30 "$log" | sed 's/^/     /'
        fail=1
    fi
done
exit $fail
