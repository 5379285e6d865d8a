#!/usr/bin/env bash
# Checks that every #include "dir/file.h" in src/ points down the layers of
# docs/architecture.md (or stays in its own directory):
#
#   mpi_shim                      6  (the PMPI drop-in, on top of core)
#   core  sim                     5  (peers: neither includes the other)
#   select                        4
#   algo                          3
#   plan                          2
#   transport (shm, mpi, route)   1
#   base                          0
#
# "intercom.h" and "intercom_mpi.h" (the public vocabulary) may be included
# anywhere.  Usage: scripts/check_layers.sh [SRC_DIR]   (default: src/)
# Prints each offending include and exits 1 if there is one.
set -euo pipefail
src=${1:-"$(dirname "$0")/../src"}

rank_of() {
    case "$1" in
        base) echo 0 ;;
        transport) echo 1 ;;
        plan) echo 2 ;;
        algo) echo 3 ;;
        select) echo 4 ;;
        core | sim) echo 5 ;;
        mpi_shim) echo 6 ;;
        *) echo -1 ;;
    esac
}

bad=0
checked=0
include_re='^[[:space:]]*#[[:space:]]*include[[:space:]]+"([^"]+)"'
# One grep over the tree: "path:line:text" for every quoted include.
while IFS= read -r hit; do
    file=${hit%%:*}
    rest=${hit#*:}
    line=${rest%%:*}
    text=${rest#*:}
    rel=${file#"$src"/}
    from=${rel%%/*}
    from_rank=$(rank_of "$from")
    [[ $text =~ $include_re ]] || continue
    target=${BASH_REMATCH[1]}
    checked=$((checked + 1))
    if [ "$from_rank" -lt 0 ]; then
        echo "layers: $rel: directory '$from' has no layer (add it to scripts/check_layers.sh and docs/architecture.md)"
        bad=1
        continue
    fi
    case "$target" in
        */*) ;;
        *) continue ;; # same directory, or intercom.h / intercom_mpi.h
    esac
    to=${target%%/*}
    [ "$to" = "$from" ] && continue
    to_rank=$(rank_of "$to")
    if [ "$to_rank" -lt 0 ] || [ "$to_rank" -ge "$from_rank" ]; then
        echo "layers: $rel:$line: includes \"$target\": $from (layer $from_rank) may not include $to (layer $to_rank)"
        bad=1
    fi
done < <(grep -rnE --include='*.c' --include='*.h' --include='*.inc' "$include_re" "$src" | sort)

if [ "$bad" -ne 0 ]; then
    echo "layers: FAILED (see docs/architecture.md for the rule)"
    exit 1
fi
echo "layers: $checked includes checked, every one points down or stays in its directory"
