#!/usr/bin/env bash
# The main job: builds intercom and runs its demo (every collective on 12
# ranks in the in-process engine, checked against a serial reference).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j2 --target intercom-demo >/dev/null
exec build/intercom-demo "$@"
