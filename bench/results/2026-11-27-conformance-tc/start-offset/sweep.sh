#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# queue-discs-benchmark simulated (stock ns-3 3.37, no emulation) with one of its two TCP
# sources started later than the other: builds a copy of the example from ns3-doc in a
# temporary folder with two added command-line values (upOffset, downOffset: seconds added
# to the upload's and the download's start), runs it for each offset pair and prints
# FlowMonitor's per-flow received packets and mean delay.
# Usage: sweep.sh OUTDIR   (prints to stdout; each run's files in OUTDIR/off-UP-DOWN/)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: sweep.sh OUTDIR}
mkdir -p "$out"
sed -e 's|sourceApps.Start(Seconds(0 + 0.1));|sourceApps.Get(0)->SetStartTime(Seconds(0.1 + upOffset)); sourceApps.Get(1)->SetStartTime(Seconds(0.1 + downOffset));|' \
    -e 's|cmd.Parse(argc, argv);|double upOffset = 0, downOffset = 0; cmd.AddValue("upOffset", "", upOffset); cmd.AddValue("downOffset", "", downOffset); cmd.Parse(argc, argv);|' \
    /usr/share/doc/ns3/examples/traffic-control/queue-discs-benchmark.cc > "$out/qdb-off.cc"
grep -c Offset "$out/qdb-off.cc" >/dev/null
g++ -std=c++17 -O1 "$out/qdb-off.cc" -o "$out/qdb-off" $(pkg-config --cflags --libs ns3-applications \
    ns3-core ns3-flow-monitor ns3-internet-apps ns3-internet ns3-network ns3-point-to-point \
    ns3-traffic-control)
for o in "0 0" "0 0.001" "0 0.002" "0 0.003" "0 0.005" "0 0.02" "0 0.1" "0.001 0" "0.005 0" "0.02 0"; do
    set -- $o
    d="$out/off-$1-$2"; mkdir -p "$d"
    (cd "$d" && "$out/qdb-off" --simDuration=10 --upOffset="$1" --downOffset="$2" > stdout.txt 2>&1)
    echo "upload +$1 s, download +$2 s: $(/usr/bin/python3 "$here/flowmon_summary.py" "$d/PfifoFast-flowMonitor.xml")"
done
