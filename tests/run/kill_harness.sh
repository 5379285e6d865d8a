#!/usr/bin/env bash
# kill_harness.sh RUN KILL_VICTIM TRIALS [SEED]
# The kill harness: TRIALS jobs, each with a random collective (any of the
# 16), p in {2, 3, 4, 7}, a small (1..64 doubles) or large (256..512 KiB)
# message, a random victim rank and a random moment (iteration 0..7 plus
# 0..3 ms), in which the victim SIGKILLs itself.  Each trial must show:
#   - no hang (the job ends well within its 30 s limit);
#   - the launcher names the killed rank ("rank V was killed by signal 9")
#     and exits with 137;
#   - every survivor leaves on its own with IC_ERR_PEER_FAILED or
#     IC_ERR_REVOKED, its failing call returning within 1 s of the death;
#   - the job's segment is gone from /dev/shm.
# Prints one line per failed trial and a summary with the figures.
set -u
run=$1 victim=$2 trials=$3 seed=${4:-1}
RANDOM=$seed
ps=(2 3 4 7)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 hangs=0 wrong_code=0 blame=0 slow=0 left=0 missing=0
max_ms=0
t_start=$(date +%s)
for ((i = 0; i < trials; i++)); do
  coll=$((RANDOM % 16))
  p=${ps[$((RANDOM % 4))]}
  if ((RANDOM % 2)); then n=$((1 + RANDOM % 64)); else n=$((32768 + RANDOM % 32768)); fi
  v=$((RANDOM % p)) iter=$((RANDOM % 8)) delay=$((RANDOM % 3000))
  stamp=$tmp/stamp
  rm -f "$stamp"
  args="coll=$coll p=$p n=$n victim=$v iter=$iter delay=${delay}us"
  out=$(IC_KILL_STAMP=$stamp timeout 60 "$run" -n "$p" --timeout 30 --tag-output \
        --show-segment "$victim" "$coll" "$n" "$v" "$iter" "$delay" 2>&1)
  status=$?
  ok=1
  if [ "$status" -eq 124 ] || echo "$out" | grep -q "timeout after"; then
    echo "trial $i ($args): HANG"; hangs=$((hangs + 1)); ok=0
  fi
  if ! echo "$out" | grep -q "rank $v was killed by signal 9" || [ "$status" -ne 137 ]; then
    echo "trial $i ($args): launcher blamed: $(echo "$out" | grep '^intercom-run: rank' | head -1) (status $status)"
    blame=$((blame + 1)); ok=0
  fi
  nsurv=$(echo "$out" | grep -c "survivor [0-9]*:")
  if [ "$nsurv" -ne $((p - 1)) ]; then
    echo "trial $i ($args): $nsurv of $((p - 1)) survivors reported"; missing=$((missing + 1)); ok=0
  fi
  while read -r line; do
    [ -z "$line" ] && continue
    code=$(echo "$line" | sed -n 's/.*survivor [0-9]*: \(.*\) after .*/\1/p')
    ms=$(echo "$line" | sed -n 's/.* after \([0-9.]*\) ms.*/\1/p')
    case "$code" in
      "a peer process failed" | "the communicator has failed (revoked)") ;;
      *) echo "trial $i ($args): wrong code: $line"; wrong_code=$((wrong_code + 1)); ok=0 ;;
    esac
    if [ -n "$ms" ]; then
      if awk "BEGIN{exit !($ms >= 1000)}"; then
        echo "trial $i ($args): slow: $line"; slow=$((slow + 1)); ok=0
      fi
      max_ms=$(awk "BEGIN{print ($ms > $max_ms) ? $ms : $max_ms}")
    fi
  done <<<"$(echo "$out" | grep "survivor [0-9]*:")"
  seg=$(echo "$out" | sed -n 's/^intercom-run: segment //p')
  if [ -n "$seg" ] && [ -e "/dev/shm$seg" ]; then
    echo "trial $i ($args): $seg left in /dev/shm"; left=$((left + 1)); ok=0
  fi
  [ "$ok" -eq 1 ] && pass=$((pass + 1))
done
echo "kill harness: $trials trials in $(( $(date +%s) - t_start )) s (seed $seed): $pass passed;" \
     "hangs $hangs, wrong codes $wrong_code, wrong blame $blame, survivors missing $missing," \
     "slow $slow, segments left $left; slowest survivor ${max_ms} ms"
[ "$pass" -eq "$trials" ] && echo "1 passed, 0 failed" && exit 0
exit 1
