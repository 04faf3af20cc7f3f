#!/bin/bash
# The emulated runs of this folder, as `/work/wt/quiet bench/results/2026-11-28-wifi-f/hold.sh
# NAME ITEM...`, ITEM = aodv:K, olsr:K, dsdv:K (manet-routing-compare at RngRun K, 200 s real
# time) or hidden (wifi-hidden-terminal, RTS/CTS off and on). One fastpathd per item
# (wifi_conformance.py starts it). Start, end, load and commit in conditions-NAME.txt.
# An item that does not fit in the 12-minute hold is not started (noted as such). A manet
# example still running after 230 s (it should end after 200) is taken as hung: the
# backtraces of its threads and fastpathd's go to hang-ITEM-*.txt before it is killed.
# An end time in /tmp/wifi-f-until (epoch seconds), if present: no item is started
# that would end after it. WIFI_OUT=FOLDER writes into another folder,
# HOLD_S=SECONDS sets the hold's length (705 by default).
set -u
cd "$(git -C "$(dirname "$0")" rev-parse --show-toplevel)"
out=${WIFI_OUT:-bench/results/2026-11-28-wifi-f}; mkdir -p "$out"
name=$1; shift
c=$out/conditions-$name.txt
t0=$(date +%s)
until_s=$(cat /tmp/wifi-f-until 2>/dev/null || echo 9999999999)
{ echo "start: $(date -u +%FT%TZ)"; echo "load: $(cat /proc/loadavg)"; echo "commit: $(git rev-parse HEAD)"; git status --short -uno -- bpf common ctrl-bridge fastpath ns3-module proto bench/wifi; } > $c
rc=0
declare -A num=([olsr]=1 [aodv]=2 [dsdv]=3)
for item in "$@"; do
  need=240; [ "$item" = hidden ] && need=60
  if (( $(date +%s) - t0 + need > ${HOLD_S:-705} )); then
    echo "$item: not started (would not fit in the hold)" >> $c; continue
  fi
  if (( $(date +%s) + need > until_s )); then
    echo "$item: not started (would end after $(date -u -d @$until_s +%TZ))" >> $c; continue
  fi
  echo "$item start: $(date -u +%FT%TZ) load: $(cat /proc/loadavg)" >> $c
  if [ "$item" = hidden ]; then
    /usr/bin/python3 bench/wifi/wifi_conformance.py --build-dir build --emulated --skip-simulated \
      --skip-manet > $out/emulated-hidden.json 2> $out/emulated-hidden.log &
    py=$!; pat=fp-wifi-hidden-terminal; limit=90
  else
    p=${item%%:*}; k=${item##*:}
    /usr/bin/python3 bench/wifi/wifi_conformance.py --build-dir build --emulated --skip-simulated \
      --skip-hidden --protocols ${num[$p]} --first-run $k --emu-runs 1 \
      > $out/emulated-$p-$k.json 2> $out/emulated-$p-$k.log &
    py=$!; pat=fp-wifi-manet-routing-compare; limit=230
  fi
  while kill -0 $py 2>/dev/null; do
    sleep 5
    ex=$(pgrep -P $py -f $pat | head -1)
    [ -n "$ex" ] || continue
    age=$(ps -o etimes= -p $ex | tr -d ' ')
    if [ -n "$age" ] && (( age > limit )); then
      echo "$item: example pid $ex still running after ${age}s: backtraces, then killed" >> $c
      gdb -p $ex -batch -ex 'thread apply all bt' > $out/hang-${item/:/-}-example.txt 2>&1
      fpd=$(pgrep -P $py -f 'bin/fastpathd' | head -1)
      [ -n "$fpd" ] && gdb -p $fpd -batch -ex 'thread apply all bt' > $out/hang-${item/:/-}-fastpathd.txt 2>&1
      ps -o pid,etimes,pcpu,stat,wchan:20,cmd -p $ex ${fpd:-} >> $out/hang-${item/:/-}-example.txt
      kill $ex
    fi
  done
  wait $py; r=$?; (( r )) && rc=1
  echo "$item end: $(date -u +%FT%TZ) rc=$r load: $(cat /proc/loadavg)" >> $c
done
{ echo "end: $(date -u +%FT%TZ) rc=$rc"; echo "load: $(cat /proc/loadavg)"; } >> $c
exit $rc
