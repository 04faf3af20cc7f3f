#!/usr/bin/env bash
# Samples the threads and open descriptors of every `grid` process every 2 s until none is
# left (after one appeared; gives up when none appeared within 60 s): "time pid threads
# fds" lines on stdout.
set -u
seen=0
for _ in $(seq 600); do
  pids=$(pgrep -x grid || true)
  if [[ -z $pids ]]; then
    [[ $seen == 1 ]] && break
    [[ $SECONDS -ge 60 ]] && break
  else
    seen=1
    for p in $pids; do
      t=$(ls /proc/$p/task 2>/dev/null | wc -l)
      f=$(ls /proc/$p/fd 2>/dev/null | wc -l)
      echo "$(date -u +%T) $p $t $f"
    done
  fi
  sleep 2
done
