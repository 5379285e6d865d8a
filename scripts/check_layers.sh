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
while IFS= read -r file; do
    rel=${file#"$src"/}
    from=${rel%%/*}
    from_rank=$(rank_of "$from")
    if [ "$from_rank" -lt 0 ]; then
        echo "layers: $rel: directory '$from' has no layer (add it to scripts/check_layers.sh and docs/architecture.md)"
        bad=1
        continue
    fi
    while IFS= read -r line; do
        target=$(sed -E 's/^[[:space:]]*#[[:space:]]*include[[:space:]]+"([^"]+)".*/\1/' <<<"${line#*:}")
        checked=$((checked + 1))
        case "$target" in
            intercom.h | intercom_mpi.h | */*) ;;
            *) continue ;; # same directory
        esac
        [ "${target#*/}" = "$target" ] && continue
        to=${target%%/*}
        to_rank=$(rank_of "$to")
        if [ "$to" = "$from" ]; then
            continue
        fi
        if [ "$to_rank" -lt 0 ] || [ "$to_rank" -ge "$from_rank" ]; then
            echo "layers: $rel:${line%%:*}: includes \"$target\": $from (layer $from_rank) may not include $to (layer $to_rank)"
            bad=1
        fi
    done < <(grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]+"' "$file" || true)
done < <(find "$src" -type f \( -name '*.c' -o -name '*.h' -o -name '*.inc' \) | sort)

if [ "$bad" -ne 0 ]; then
    echo "layers: FAILED (see docs/architecture.md for the rule)"
    exit 1
fi
echo "layers: $checked includes checked, every one points down or stays in its directory"
