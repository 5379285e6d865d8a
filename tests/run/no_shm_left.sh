#!/usr/bin/env bash
# Runs after every other test: no shared-memory segment of ours is left.
left=$(ls /dev/shm 2>/dev/null | grep '^intercom-' || true)
if [ -n "$left" ]; then
  echo "FAIL: left in /dev/shm: $left"
  exit 1
fi
echo "1 passed, 0 failed"
