#!/bin/bash
# netns_hosts.sh — pretend hosts on this one machine, built from Linux
# namespaces, for running MPI jobs "across hosts" (tests and benchmarks).
#
# Usage (as root):
#   eval "$(netns_hosts.sh up 4)"        # hosts ichost0..3; prints export IC_NETNS=...
#   netns_hosts.sh exec ichost1 hostname # run a command on a host (or: exec 1 ...)
#   netns_hosts.sh mpirun openmpi 3,2,2 prog args...  # 3+2+2 ranks on ichost0..2
#   netns_hosts.sh mpirun mpich 2,2 prog args...
#   netns_hosts.sh down                  # tear down; fails if anything is left
#   netns_hosts.sh run 4 cmd...          # up, cmd (with IC_NETNS set), down
#   netns_hosts.sh probe                 # exit 0 if namespaces can be made here
# or `source` it and call netns_up / netns_exec / netns_mpirun / netns_down.
# The environment reaches every rank (the launchers' agent inherits it).
#
# Design.  A run is named by a prefix, ic<pid> ($IC_NETNS), so runs never
# collide.  A "switch" network namespace <prefix>sw holds a bridge; host K
# has a network namespace <prefix>hK whose eth0 (a veth, peer <prefix>pK on
# the bridge) has 10.213.57.(K+1)/24, and lo.  The bridge has its own
# namespace, so the root namespace is not on the subnet, its firewall
# (br_netfilter) never sees the traffic, and concurrent runs may share the
# subnet.  In host K's network namespace a holder process (sleep) owns new
# mount, UTS and IPC namespaces: hostname ichostK, an empty tmpfs on
# /dev/shm, a private /etc/hosts naming all hosts.  /tmp stays shared, so
# that programs built under /tmp (a CI clone) run on every host; the MPIs'
# session directories there are named by host.  A command runs "on" a
# host by nsenter into the holder's namespaces, so the processes of a host,
# and only they, share /dev/shm, SysV IPC and the hostname (what MPI uses
# to tell nodes apart).  The PID namespace is shared: nsenter cannot enter
# a sibling PID namespace, and the launchers' remote agent (netns_rsh.sh)
# runs on ichost0 and must reach the others.  State (holder pids, hosts
# file, owner pid) is in /run/intercom-netns/<prefix>, which every host sees.
#
# MPI: the launcher runs on ichost0 and starts the daemons of the other
# hosts with netns_rsh.sh as its ssh.  Between hosts TCP over eth0, shared
# memory only inside a host.  Open MPI: pml ob1, btl self,vader,tcp, TCP
# (btl and oob) on the subnet only.  MPICH (ch4:ucx): UCX_TLS=tcp,sm,self,
# UCX_NET_DEVICES=eth0, -iface eth0, and netns_ucx_close.c preloaded into
# the ranks against an MPICH/UCX hang in MPI_Finalize (see there;
# NETNS_UCX_CLOSE_TIMEOUT=0 disables it).
#
# Teardown kills every process in our network namespaces (TERM, then KILL),
# deletes the namespaces (which destroys the veths and the bridge) and the
# state, then checks that no namespace, link, process or new intercom-*
# entry of the root /dev/shm is left.  netns_up first tears down runs whose
# owner has died (e.g. killed by a ctest timeout).
set -euo pipefail

NETNS_SUBNET=10.213.57
NETNS_RUN=/run/intercom-netns
NETNS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

netns_die() { echo "netns_hosts: $*" >&2; return 1; }

# Can we make namespaces here?  Prints the reason when not.
netns_probe() {
    local p=icprobe$$ tool
    [[ $EUID -eq 0 ]] || { echo "not root"; return 1; }
    for tool in ip unshare nsenter setsid; do
        command -v $tool >/dev/null || { echo "$tool not installed"; return 1; }
    done
    ip netns add $p 2>/dev/null || { echo "ip netns add not permitted"; return 1; }
    if ! ip -n $p link add ${p}br type bridge 2>/dev/null ||
       ! ip netns exec $p unshare --mount --uts --ipc --propagation private \
            sh -c 'hostname x && mount -t tmpfs none /dev/shm' 2>/dev/null; then
        ip netns del $p
        echo "unshare / bridge / tmpfs mount not permitted"
        return 1
    fi
    ip netns del $p
}

# Tear down runs whose owner process is gone.
netns_gc() {
    local d owner
    for d in "$NETNS_RUN"/ic*; do
        [[ -f $d/owner ]] || continue
        owner=$(cat "$d/owner")
        kill -0 "$owner" 2>/dev/null && continue
        echo "netns_hosts: tearing down stale ${d##*/} (owner $owner gone)" >&2
        (IC_NETNS=${d##*/} netns_down) || true
    done
}

# netns_up N [OWNER]: create hosts ichost0..N-1, export IC_NETNS.  The run
# belongs to OWNER (default: this shell) for netns_gc.
netns_up() {
    local n=$1 owner=${2:-$$} p=ic$$ k i st
    (( n >= 1 && n <= 200 )) || netns_die "up: bad host count '$n'"
    netns_gc
    [[ ! -e $NETNS_RUN/$p ]] || netns_die "up: $p already exists"
    export IC_NETNS=$p
    st=$NETNS_RUN/$p
    mkdir -p "$st"
    echo "$owner" > "$st/owner"
    ls /dev/shm > "$st/shm.before"
    { echo "127.0.0.1 localhost"
      for ((k = 0; k < n; k++)); do echo "$NETNS_SUBNET.$((k + 1)) ichost$k"; done
    } > "$st/hosts"
    ip netns add ${p}sw
    ip -n ${p}sw link add ${p}br type bridge
    ip -n ${p}sw link set ${p}br up
    for ((k = 0; k < n; k++)); do
        ip netns add ${p}h$k
        stat -L -c %i /run/netns/${p}h$k >> "$st/netino"
        ip link add eth0 netns ${p}h$k type veth peer name ${p}p$k netns ${p}sw
        ip -n ${p}sw link set ${p}p$k master ${p}br up
        ip -n ${p}h$k addr add $NETNS_SUBNET.$((k + 1))/24 dev eth0
        ip -n ${p}h$k link set eth0 up
        ip -n ${p}h$k link set lo up
        # The holder, detached from our session and terminal.
        setsid ip netns exec ${p}h$k unshare --mount --uts --ipc --propagation private \
            sh -c 'hostname "$1" && mount -t tmpfs -o mode=1777 icshm /dev/shm &&
                   mount --bind "$2/hosts" /etc/hosts && echo $$ > "$2/h$3.new" &&
                   mv "$2/h$3.new" "$2/h$3.pid" && exec sleep infinity' \
            sh ichost$k "$st" $k </dev/null >/dev/null 2>&1 &
    done
    for ((k = 0; k < n; k++)); do
        for ((i = 0; i < 100; i++)); do [[ -s $st/h$k.pid ]] && break; sleep 0.1; done
        [[ -s $st/h$k.pid ]] || netns_die "up: host $k did not start"
    done
}

# Host index of ichostK / K / 10.213.57.(K+1).
netns_host_index() {
    case $1 in
        ichost[0-9]*) echo "${1#ichost}" ;;
        "$NETNS_SUBNET".*) echo $((${1##*.} - 1)) ;;
        [0-9]*) echo "$1" ;;
        *) netns_die "unknown host '$1'" ;;
    esac
}

# netns_exec HOST cmd...: run cmd on HOST, in the current directory.
netns_exec() {
    local k pid st=$NETNS_RUN/${IC_NETNS:?IC_NETNS not set (run up first)}
    k=$(netns_host_index "$1")
    shift
    pid=$(cat "$st/h$k.pid" 2>/dev/null) || netns_die "no host $k in $IC_NETNS"
    nsenter --target "$pid" --net --mount --uts --ipc --wd="$PWD" -- "$@"
}

# netns_mpirun IMPL COUNTS cmd...: COUNTS "3,2,2" = 3 ranks on ichost0, 2
# on ichost1, 2 on ichost2.  The launcher runs on ichost0.
netns_mpirun() {
    local impl=$1 counts=$2 hosts="" k=0 c n=0 st shim pre=()
    shift 2
    for c in ${counts//,/ }; do
        hosts+=${hosts:+,}ichost$k:$c
        n=$((n + c)) k=$((k + 1))
    done
    case $impl in
        openmpi)
            netns_exec 0 mpirun.openmpi --allow-run-as-root \
                --mca plm_rsh_agent "$NETNS_DIR/netns_rsh.sh" \
                --host "$hosts" -n $n --mca pml ob1 --mca btl self,vader,tcp \
                --mca btl_tcp_if_include $NETNS_SUBNET.0/24 \
                --mca oob_tcp_if_include $NETNS_SUBNET.0/24 "$@" ;;
        mpich)
            st=$NETNS_RUN/${IC_NETNS:?IC_NETNS not set (run up first)}
            shim=$st/netns_ucx_close.so
            if [[ ${NETNS_UCX_CLOSE_TIMEOUT:-10} != 0 ]]; then
                [[ -f $shim ]] || cc -shared -fPIC -O2 -o "$shim" \
                    "$NETNS_DIR/netns_ucx_close.c" -ldl ||
                    netns_die "cannot build netns_ucx_close.so"
                pre=(-genv LD_PRELOAD "$shim")
            fi
            UCX_TLS=${UCX_TLS:-tcp,sm,self} UCX_NET_DEVICES=${UCX_NET_DEVICES:-eth0} \
            netns_exec 0 mpiexec.mpich -launcher rsh \
                -launcher-exec "$NETNS_DIR/netns_rsh.sh" \
                -hosts "$hosts" -n $n -iface eth0 "${pre[@]}" "$@" ;;
        *) netns_die "mpirun: unknown MPI '$impl' (openmpi, mpich)" ;;
    esac
}

# netns_down: tear down $IC_NETNS; non-zero if anything is left.
netns_down() {
    local p=${IC_NETNS:-} st ns pids i sig left=0
    [[ -n $p ]] || return 0
    st=$NETNS_RUN/$p
    for ns in $(ip netns list | awk '{print $1}' | grep -E "^${p}(sw|h[0-9]+)$" || true); do
        for i in 1 2 3 4 5 6 7 8 9 10 11; do
            pids=$(ip netns pids "$ns" 2>/dev/null || true)
            [[ -n $pids ]] || break
            sig=TERM
            [[ $i -le 10 ]] || sig=KILL
            # shellcheck disable=SC2086
            kill -$sig $pids 2>/dev/null || true
            sleep 0.3
        done
        ip netns del "$ns" || left=1
    done
    # Anything left?  Namespaces, links, processes in our network namespaces,
    # new unmapped intercom-* segments in this namespace's /dev/shm.
    if ip netns list | grep -E "^${p}(sw|h[0-9]+)\b" >&2; then
        echo "netns_hosts: namespaces left" >&2; left=1
    fi
    if ip -o link | grep -E "${p}(br|p[0-9]+)\b" >&2; then
        echo "netns_hosts: links left" >&2; left=1
    fi
    if [[ -f $st/netino ]]; then
        for ns in /proc/[0-9]*/ns/net; do
            i=$(stat -L -c %i "$ns" 2>/dev/null) || continue
            if grep -qx "$i" "$st/netino"; then
                echo "netns_hosts: process left: ${ns%/ns/net}" >&2; left=1
            fi
        done
    fi
    if [[ -f $st/shm.before ]]; then
        for i in /dev/shm/intercom-*; do
            [[ -e $i ]] && ! grep -qxF "${i#/dev/shm/}" "$st/shm.before" || continue
            # A segment mapped by a live process belongs to someone else's job.
            if ! grep -qsF "$i" /proc/[0-9]*/maps; then
                echo "netns_hosts: $i left" >&2; left=1
            fi
        done
    fi
    rm -rf "$st"
    rmdir "$NETNS_RUN" 2>/dev/null || true
    unset IC_NETNS
    return $left
}

# netns_run N cmd...: up, cmd, down (also on failure and signals).
netns_run() {
    local rc=0
    netns_up "$1"
    shift
    trap 'netns_down; exit 130' INT
    trap 'netns_down; exit 143' TERM
    "$@" || rc=$?
    trap - INT TERM
    netns_down || rc=1
    return $rc
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
    cmd=${1:-}
    shift || true
    case $cmd in
        probe) netns_probe ;;
        up) netns_up "$1" $PPID; echo "export IC_NETNS=$IC_NETNS" ;;
        down) netns_down ;;
        exec) netns_exec "$@" ;;
        mpirun) netns_mpirun "$@" ;;
        run) netns_run "$@" ;;
        *) sed -n '2,15p' "$0" >&2; exit 2 ;;
    esac
fi
