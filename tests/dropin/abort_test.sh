#!/bin/bash
# abort_test.sh IMPL NP PROG LIB — test_dropin_abort under the drop-in:
# the job must end within the time limit with a nonzero status (MPI_Abort's
# code), no rank may get past the aborted call, and no intercom segment may
# be left in /dev/shm.
set -uo pipefail
impl=${1:?usage: abort_test.sh IMPL NP PROG LIB}; np=$2; prog=$3; lib=$4
case $impl in
    openmpi) run=(mpirun.openmpi --oversubscribe --allow-run-as-root --mca btl self,vader,tcp
                  -n "$np" -x LD_PRELOAD="$lib" -x IC_TIMEOUT=60) ;;
    mpich) run=(mpiexec.mpich -n "$np" -genv LD_PRELOAD "$lib" -genv IC_TIMEOUT 60) ;;
    *) echo "unknown MPI '$impl'"; exit 2 ;;
esac
before=$(ls /dev/shm | grep -c '^intercom' || true)
out=$(timeout -k 5 60 "${run[@]}" "$prog" 2>&1); rc=$?
echo "$out" | grep -v '^$' | head -20
fail=0
[[ $rc -eq 124 || $rc -eq 137 ]] && { echo "FAIL: the job did not end within 60 s"; fail=1; }
[[ $rc -eq 0 ]] && { echo "FAIL: the job exited 0 after MPI_Abort"; fail=1; }
grep -q "aborts" <<<"$out" || { echo "FAIL: the aborting rank did not get there"; fail=1; }
grep -q "got past" <<<"$out" && { echo "FAIL: a rank completed the aborted call"; fail=1; }
sleep 1
after=$(ls /dev/shm | grep -c '^intercom' || true)
[[ $after -gt $before ]] && { echo "FAIL: intercom segments left in /dev/shm:"; ls /dev/shm | grep '^intercom'; fail=1; }
[[ $fail -eq 0 ]] && echo "abort_test: PASS (exit status $rc, nothing left in /dev/shm)"
exit $fail
