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
#
# Design.  One run is named by a prefix, ic<pid> ($IC_NETNS), so two runs
# never collide.  A "switch" network namespace <prefix>sw holds a bridge;
# each host K has a network namespace <prefix>hK whose eth0 (a veth, peer
# <prefix>pK on the bridge) has 10.213.57.(K+1)/24, plus lo.  The bridge
# lives in its own namespace, so the root namespace is not on the subnet,
# its firewall (br_netfilter) never sees the traffic, and concurrent runs
# may use the same subnet.  In each host's network namespace a holder
# process (sleep) owns new mount, UTS and IPC namespaces with hostname
# ichostK, empty tmpfs on /dev/shm and /tmp, and a private /etc/hosts
# naming every host.  Commands run "on" a host by nsenter into the holder's
# namespaces, so all processes of one host (and only they) share /dev/shm,
# SysV IPC and the hostname — what MPI uses to tell nodes apart.  The PID
# namespace is not split: nsenter cannot enter a sibling PID namespace,
# and MPI's remote agent (netns_rsh.sh) runs on ichost0 and must reach the
# others.  State (holder pids, hosts file) is in /run/intercom-netns/<prefix>,
# which every host sees (/run is not remounted).
#
# MPI: mpirun / mpiexec runs on ichost0 and starts the daemons of the other
# hosts with netns_rsh.sh as its ssh; traffic between hosts is TCP over
# eth0 (Open MPI: btl self,vader,tcp; MPICH/UCX: UCX_TLS=tcp,sm,self on
# eth0), shared memory only inside a host.
#
# Teardown kills every process in our network namespaces (TERM, then
# KILL), deletes the namespaces (which destroys the veths and the bridge)
# and the state directory, then checks that no namespace, link, process
# or /dev/shm entry of ours remains.
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
        echo "unshare / bridge / tmpfs not permitted"
        return 1
    fi
    ip netns del $p
}

# netns_up N: create hosts ichost0..N-1 and export IC_NETNS.
netns_up() {
    local n=$1 p=ic$$ k st
    (( n >= 1 && n <= 200 )) || netns_die "up: bad host count '$n'"
    [[ ! -e $NETNS_RUN/$p ]] || netns_die "up: $p already exists"
    export IC_NETNS=$p
    st=$NETNS_RUN/$p
    mkdir -p "$st"
    ls /dev/shm > "$st/shm.before"
    echo "$n" > "$st/count"
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
        # The holder: new mount/UTS/IPC namespaces, detached from our session.
        setsid ip netns exec ${p}h$k unshare --mount --uts --ipc --propagation private \
            sh -c 'hostname "$1" && mount -t tmpfs -o mode=1777 icshm /dev/shm &&
                   mount -t tmpfs -o mode=1777 ictmp /tmp &&
                   mount --bind "$2/hosts" /etc/hosts && echo $$ > "$2/h$3.pid.new" &&
                   mv "$2/h$3.pid.new" "$2/h$3.pid" && exec sleep infinity' \
            sh ichost$k "$st" $k </dev/null >/dev/null 2>&1 &
    done
    for ((k = 0; k < n; k++)); do
        local i
        for ((i = 0; i < 100; i++)); do [[ -s $st/h$k.pid ]] && break; sleep 0.1; done
        [[ -s $st/h$k.pid ]] || netns_die "up: host $k did not start"
    done
}

# Host index of ichostK / K / 10.213.57.(K+1).
netns_host_index() {
    local h=$1
    case $h in
        ichost[0-9]*) echo "${h#ichost}" ;;
        "$NETNS_SUBNET".*) echo $((${h##*.} - 1)) ;;
        [0-9]*) echo "$h" ;;
        *) netns_die "unknown host '$h'" ;;
    esac
}

# netns_exec HOST cmd...: run cmd on HOST, in the current directory.
netns_exec() {
    local k pid st=$NETNS_RUN/${IC_NETNS:?IC_NETNS not set (run up first)}
    k=$(netns_host_index "$1")
    shift
    pid=$(cat "$st/h$k.pid") || netns_die "no host $k in $IC_NETNS"
    nsenter --target "$pid" --net --mount --uts --ipc --wd="$PWD" -- "$@"
}

# netns_mpirun IMPL COUNTS cmd...: COUNTS "3,2,2" = 3 ranks on ichost0, 2 on
# ichost1, 2 on ichost2.  Runs the launcher on ichost0.
netns_mpirun() {
    local impl=$1 counts=$2 hosts="" k=0 c n=0
    shift 2
    for c in ${counts//,/ }; do
        hosts+=${hosts:+,}ichost$k:$c
        n=$((n + c)) k=$((k + 1))
    done
    case $impl in
        openmpi)
            (netns_exec 0 mpirun.openmpi --allow-run-as-root \
                --mca plm_rsh_agent "$NETNS_DIR/netns_rsh.sh" \
                --host "$hosts" -n $n \
                --mca btl self,vader,tcp \
                --mca btl_tcp_if_include $NETNS_SUBNET.0/24 \
                --mca oob_tcp_if_include $NETNS_SUBNET.0/24 "$@") ;;
        mpich)
            (UCX_TLS=${UCX_TLS:-tcp,sm,self} UCX_NET_DEVICES=${UCX_NET_DEVICES:-eth0} \
             netns_exec 0 mpiexec.mpich -launcher rsh \
                -launcher-exec "$NETNS_DIR/netns_rsh.sh" \
                -hosts "$hosts" -n $n -iface eth0 "$@") ;;
        *) netns_die "mpirun: unknown MPI '$impl' (openmpi, mpich)" ;;
    esac
}

# netns_down: tear everything of $IC_NETNS down; non-zero if anything is left.
netns_down() {
    local p=${IC_NETNS:-} st ns pids i left=0
    [[ -n $p ]] || return 0
    st=$NETNS_RUN/$p
    for ns in $(ip netns list | awk '{print $1}' | grep "^${p}[hs]" || true); do
        for i in 1 2 3 4 5 6 7 8 9 10 11; do
            pids=$(ip netns pids "$ns" 2>/dev/null || true)
            [[ -n $pids ]] || break
            # shellcheck disable=SC2086
            kill -$([[ $i -le 10 ]] && echo TERM || echo KILL) $pids 2>/dev/null || true
            sleep 0.3
        done
        ip netns del "$ns" || left=1
    done
    # What is left?  Namespaces, links, processes in our network namespaces,
    # new intercom-* segments in this namespace's /dev/shm.
    if ip netns list | grep "^$p" >&2; then echo "netns_hosts: namespaces left" >&2; left=1; fi
    if ip -o link | grep "$p" >&2; then echo "netns_hosts: links left" >&2; left=1; fi
    if [[ -f $st/netino ]]; then
        for ns in /proc/[0-9]*/ns/net; do
            i=$(stat -L -c %i "$ns" 2>/dev/null) || continue
            if grep -qx "$i" "$st/netino"; then
                echo "netns_hosts: process left: ${ns%/ns/net}" >&2; left=1
            fi
        done
    fi
    if [[ -f $st/shm.before ]] &&
       ls /dev/shm | grep '^intercom-' | grep -vxFf "$st/shm.before" >&2; then
        echo "netns_hosts: /dev/shm entries left" >&2; left=1
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
        up) netns_up "$@"; echo "export IC_NETNS=$IC_NETNS" ;;
        down) netns_down ;;
        exec) netns_exec "$@" ;;
        mpirun) netns_mpirun "$@" ;;
        run) netns_run "$@" ;;
        *) sed -n '2,13p' "$0" >&2; exit 2 ;;
    esac
fi
