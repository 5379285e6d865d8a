#!/bin/bash
# netns_rsh.sh — the "ssh" that mpirun.openmpi (plm_rsh_agent) and
# mpiexec.mpich (-launcher rsh -launcher-exec) use to start their daemons
# on the pretend hosts of netns_hosts.sh ($IC_NETNS, inherited from the
# launcher).  Called like ssh: [options] HOST COMMAND WORDS...; the words
# are joined and run by sh on HOST, as ssh would.  Logs to $NETNS_RSH_LOG
# (it runs on ichost0).
set -euo pipefail
while [[ $# -gt 0 && $1 == -* ]]; do shift; done   # ssh/rsh options (-x, -n)
host=$1
shift
[[ -z ${NETNS_RSH_LOG:-} ]] || echo "netns_rsh: $host: $*" >> "$NETNS_RSH_LOG"
source "$(dirname "${BASH_SOURCE[0]}")/netns_hosts.sh"
netns_exec "$host" sh -c "$*"
