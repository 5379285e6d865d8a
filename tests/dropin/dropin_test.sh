#!/bin/bash
# dropin_test.sh IMPL NP PROG LIB [EXPECT...] — run the plain MPI program
# PROG (test_dropin or test_dropin_threads) under MPI IMPL (openmpi or
# mpich) on NP ranks twice: without the drop-in, and with LIB
# (libintercom_mpi.so) preloaded into the ranks only (Open MPI:
# -x LD_PRELOAD=LIB, MPICH: -genv LD_PRELOAD LIB) with IC_MPI_VERBOSE=1 and
# IC_TIMEOUT=120.  Each run is limited by `timeout`.  Asserts:
#   - both runs exit 0 and print the program's PASS line;
#   - their RESULT-HASH lines (one per rank) are identical;
#   - the drop-in run prints the report ("intercom drop-in report: ...");
#   - every EXPECT, an extended regular expression, matches some line of
#     the report's table (e.g. '^ *MPI_Allreduce .*fell back:.*MINLOC/MAXLOC');
#     an EXPECT starting with '!' must match none
#     (e.g. '!^ *MPI_[A-Za-z_]+ +[0-9]+ +[1-9]': nothing served);
#   - every function named in DROPIN_SERVED has calls served by intercom;
#   - no new intercom* entry is left in /dev/shm (one still mapped by a live
#     process belongs to some other job and is not counted).
# LIB "linked:REFPROG": PROG is linked with the drop-in itself (no preload);
# the run without the drop-in uses REFPROG, the same program built plain.
# Exit 77 (SKIPPED) when the program says SKIPPED (e.g. no
# MPI_THREAD_MULTIPLE) or, across pretend hosts, when namespaces cannot be
# made.
#
# Environment:
#   DROPIN_ENV="VAR=val ..."  more variables for the drop-in run's ranks
#                             (IC_MPI_DISABLE=all, IC_MPI_FAKE_HOSTS=2,2,1)
#   DROPIN_ARGS="..."         program arguments (both runs)
#   DROPIN_TIMEOUT=S          limit of each run (default 180 s)
#   DROPIN_NO_HASH=1          the program prints no RESULT-HASH lines
#                             (test_dropin_progress): nothing to compare
#   DROPIN_SERVED="MPI_Bcast MPI_Ibcast ..."  functions whose report row
#                             must show at least one call served by intercom
#   DROPIN_NETNS=LAYOUT       run across pretend hosts made of Linux
#                             namespaces (tests/mpi/netns_hosts.sh), e.g. 3,2
#                             (NP must be the sum); root only.  Under MPICH
#                             the drop-in is preloaded after netns_mpirun's
#                             own netns_ucx_close.so (both stay preloaded)
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
usage="usage: dropin_test.sh openmpi|mpich NP PROG LIB|linked:REFPROG [EXPECT...]"
impl=${1:?$usage}
np=${2:?$usage}
prog=${3:?$usage}
lib=${4:?$usage}
shift 4
expects=("$@")
limit=${DROPIN_TIMEOUT:-180}
read -r -a args <<< "${DROPIN_ARGS:-}"
read -r -a extra_env <<< "${DROPIN_ENV:-}"
layout=${DROPIN_NETNS:-}

fail=0
failmsg() { echo "FAIL: $*"; fail=1; }
skip() { echo "SKIPPED: $*"; exit 77; }

# shellcheck disable=SC2054  # the commas are mpirun's
case $impl in
    openmpi) launcher=(mpirun.openmpi --oversubscribe --allow-run-as-root --mca btl self,vader,tcp) ;;
    mpich) launcher=(mpiexec.mpich) ;;
    *) echo "$usage" >&2; exit 2 ;;
esac
command -v "${launcher[0]}" >/dev/null || skip "${launcher[0]} not installed"
ref=$prog
preload=$lib
if [[ $lib == linked:* ]]; then
    ref=${lib#linked:}
    preload=""
fi
for f in "$prog" "$ref" ${preload:+"$preload"}; do
    [[ -e $f ]] || { echo "FAIL: no such file: $f"; exit 1; }
done

# env_opts VAR=val...: the launcher's options giving these to the ranks.
env_opts() {
    local kv
    for kv in "$@"; do
        case $impl in
            openmpi) printf '%s\0' -x "$kv" ;;
            mpich) printf '%s\0' -genv "${kv%%=*}" "${kv#*=}" ;;
        esac
    done
}

# intercom_shm: the intercom entries of this /dev/shm, one a line.
intercom_shm() {
    local f
    for f in /dev/shm/*intercom*; do
        [[ -e $f ]] && echo "${f#/dev/shm/}"
    done
    return 0
}
logdir=$(mktemp -d)
shm_before=$logdir/shm.before
intercom_shm > "$shm_before"

if [[ -n $layout ]]; then
    # shellcheck source=../mpi/netns_hosts.sh
    source "$here/../mpi/netns_hosts.sh"
    set +e   # netns_hosts.sh sets -e; this script counts failures itself
    why=$(netns_probe) || skip "$why"
    n=0 k=0
    for c in ${layout//,/ }; do n=$((n + c)) k=$((k + 1)); done
    [[ $n -eq $np ]] || { echo "FAIL: layout $layout has $n ranks, not $np"; exit 2; }
    trap 'rc=$?; trap - EXIT INT TERM
          netns_down || { echo "FAIL: namespace teardown left something behind"; rc=1; }
          rm -rf "$logdir"; exit $rc' EXIT
    trap 'echo "interrupted"; exit 130' INT
    trap 'echo "terminated"; exit 143' TERM
    set -e   # as netns_hosts.sh's functions expect
    netns_up "$k"
    set +e
    unset IC_MPI_FAKE_HOSTS IC_MPI_NO_SHM
    prog=$(cd "$(dirname "$prog")" && pwd)/$(basename "$prog")
    ref=$(cd "$(dirname "$ref")" && pwd)/$(basename "$ref")
else
    trap 'rm -rf "$logdir"' EXIT
fi

# run NAME PROGRAM VAR=val...: one launch, output in $logdir/NAME.
run() {
    local name=$1 exe=$2 rc=0 t0=$SECONDS
    shift 2
    local opts=()
    mapfile -d '' opts < <(env_opts "$@")
    if [[ -n $layout ]]; then
        # shellcheck disable=SC2016  # expanded by that bash
        timeout -k 10 "$limit" bash -c 'source "$1"; shift; netns_mpirun "$@"' _ \
            "$here/../mpi/netns_hosts.sh" "$impl" "$layout" "${opts[@]}" "$exe" "${args[@]}" \
            > "$logdir/$name" 2>&1 &
    else
        timeout -k 10 "$limit" "${launcher[@]}" -n "$np" "${opts[@]}" "$exe" "${args[@]}" \
            > "$logdir/$name" 2>&1 &
    fi
    wait $! || rc=$?
    echo "$name: exit $rc after $((SECONDS - t0)) s"
    [[ $rc -eq 124 || $rc -eq 137 ]] && failmsg "$name run timed out after $limit s"
    return $rc
}

# show NAME: the end of a run's output, without the report's table.
show() {
    echo "---- $1: the last 30 lines but the report's ----"
    grep -vE '^ +MPI_[A-Za-z_]+ ' "$logdir/$1" | tail -n 30 | sed 's/^/    /'
}

# The run without the drop-in.
rc=0
run plain "$ref" || rc=$?
if grep -q 'SKIPPED' "$logdir/plain"; then
    grep 'SKIPPED' "$logdir/plain" | head -1
    exit 77
fi
if [[ $rc -ne 0 ]] || ! grep -qE '^test_dropin[a-z_]*: PASS' "$logdir/plain"; then
    failmsg "$impl without the drop-in, $np ranks: exit $rc, no PASS line (a test or MPI problem, not the drop-in's)"
    show plain
fi

# The run with the drop-in.
envs=(IC_MPI_VERBOSE=1 IC_TIMEOUT=120)
[[ -n $preload ]] && envs+=("LD_PRELOAD=$preload")
if [[ -n $layout && $impl == mpich && -n $preload ]]; then
    # netns_mpirun preloads its MPICH/UCX finalize fix; keep it preloaded.
    shim=$NETNS_RUN/$IC_NETNS/netns_ucx_close.so
    [[ -f $shim ]] && envs[${#envs[@]} - 1]="LD_PRELOAD=$shim $preload"
fi
envs+=("${extra_env[@]}")
rc=0
run dropin "$prog" "${envs[@]}" || rc=$?
if [[ $rc -ne 0 ]] || ! grep -qE '^test_dropin[a-z_]*: PASS' "$logdir/dropin"; then
    failmsg "$impl with the drop-in, $np ranks: exit $rc, no PASS line"
    grep '^FAIL' "$logdir/dropin" | head -n 20 | sed 's/^/    /'
    show dropin
fi
grep -hE '^test_dropin[a-z_]*: (PASS|FAIL)' "$logdir/plain" "$logdir/dropin" | sed 's/^/    /'

# Same results.
hp=$(grep '^RESULT-HASH ' "$logdir/plain")
hd=$(grep '^RESULT-HASH ' "$logdir/dropin")
if [[ -n ${DROPIN_NO_HASH:-} ]]; then
    echo "ok   (no RESULT-HASH lines to compare: DROPIN_NO_HASH)"
elif [[ -z $hp || $(grep -c . <<< "$hp") -ne $np ]]; then
    failmsg "the run without the drop-in printed $(grep -c . <<< "$hp") RESULT-HASH lines, not $np"
elif [[ $hp != "$hd" ]]; then
    failmsg "RESULT-HASH lines differ with the drop-in (rank: without / with):"
    paste <(echo "$hp") <(echo "$hd") | awk '{print "    rank " NR - 1 ": " $2 " / " $4}'
else
    echo "ok   RESULT-HASH identical on all $np ranks"
fi

# The report.
report=$(awk '/^intercom drop-in report: /{on=1} on' "$logdir/dropin")
table=$(grep -E '^ +MPI_[A-Za-z_]+ ' <<< "$report" || true)
if [[ -z $report ]]; then
    failmsg "no 'intercom drop-in report' in the drop-in run's output"
elif ! grep -qE "^intercom drop-in report: calls on rank 0 of $np\$" <<< "$report"; then
    failmsg "report header is not 'intercom drop-in report: calls on rank 0 of $np': $(head -1 <<< "$report")"
elif [[ -z $table ]]; then
    failmsg "the report has no MPI_ rows"
else
    echo "ok   report present, $(grep -c . <<< "$table") functions"
fi
for e in "${expects[@]}"; do
    if [[ $e == '!'* ]]; then
        if grep -qE -- "${e#!}" <<< "$table"; then
            failmsg "report has a line matching '${e#!}':"
            grep -E -- "${e#!}" <<< "$table" | head -n 5 | sed 's/^/    /'
        else
            echo "ok   no report line matches '${e#!}'"
        fi
    elif grep -qE -- "$e" <<< "$table"; then
        echo "ok   report matches '$e'"
    else
        failmsg "no report line matches '$e'"
    fi
done
served_missing=""
read -r -a served <<< "${DROPIN_SERVED:-}"
for f in "${served[@]}"; do
    grep -qE "^ +$f +[0-9]+ +[1-9]" <<< "$table" || served_missing+=" $f"
done
if [[ -n $served_missing ]]; then
    failmsg "no call served by intercom (or no row) for:$served_missing"
elif [[ ${#served[@]} -gt 0 ]]; then
    echo "ok   calls served by intercom in all ${#served[@]} functions named"
fi
if [[ $fail -ne 0 && -n $report ]]; then
    echo "---- the report ----"
    # shellcheck disable=SC2001
    sed 's/^/    /' <<< "$report"
fi

# Nothing left in /dev/shm (on every pretend host too).
left=""
for s in $(intercom_shm); do
    grep -qxF "$s" "$shm_before" && continue
    grep -qsF "/dev/shm/$s" /proc/[0-9]*/maps && continue
    left+=" $s"
done
if [[ -n $layout ]]; then
    for ((h = 0; h < k; h++)); do
        left+=$(netns_exec "$h" ls /dev/shm | grep intercom | sed "s/^/ ichost$h:/" | tr '\n' ' ' || true)
    done
fi
if [[ -n ${left// /} ]]; then
    failmsg "left in /dev/shm:$left"
else
    echo "ok   nothing of intercom left in /dev/shm"
fi

if [[ $fail -eq 0 ]]; then
    echo "dropin_test: PASS ($impl, $np ranks${layout:+, hosts $layout})"
else
    echo "dropin_test: FAIL ($impl, $np ranks${layout:+, hosts $layout})"
fi
exit $fail
