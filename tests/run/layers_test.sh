#!/usr/bin/env bash
# The layer rule (docs/architecture.md): scripts/check_layers.sh passes on
# src/, and fails on a copy of src/ with one include pointing up (plan/ ->
# core/), naming the file and both layers.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
"$top/scripts/check_layers.sh" "$top/src"
tmp=$(mktemp -d /tmp/intercom-layers.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cp -r "$top/src" "$tmp/src"
echo '#include "core/comm.h"' >>"$tmp/src/plan/plan.c"
if out=$("$top/scripts/check_layers.sh" "$tmp/src" 2>&1); then
    echo "$out"
    echo "test_layers: FAILED: an upward include (plan -> core) was not caught"
    exit 1
fi
echo "$out" | grep -q 'plan/plan.c:.*plan (layer 2) may not include core (layer 5)' ||
    { echo "$out"; echo "test_layers: FAILED: the message does not name the include"; exit 1; }
echo "test_layers: the check passes on src/ and catches an upward include:"
echo "$out" | sed 's/^/    /'
