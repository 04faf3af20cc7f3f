#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# cobalt-vs-codel simulated (stock ns-3 3.37, no emulation), its second UDP sender started
# OFFSET seconds after the first: builds a copy of the example from ns3-doc in a temporary
# folder with three changes (the second UDP source's start from $UDP_OFFSET, the run 30 s
# long, a FlowMonitor written per experiment), runs it for each offset and prints
# FlowMonitor's received packets and mean delay per flow of each experiment.
# Usage: sweep.sh OUTDIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: sweep.sh OUTDIR}
mkdir -p "$out"
sed -e 's|clientApps7.Start(Seconds(0));|clientApps7.Start(Seconds(std::atof(std::getenv("UDP_OFFSET"))));|' \
    -e 's|double stopTime = 101;|double stopTime = 31;|' \
    -e 's|^    Simulator::Run();|    FlowMonitorHelper fmh; Ptr<FlowMonitor> fm = fmh.InstallAll(); Simulator::Run(); fm->SerializeToXmlFile(queue_disc_type + "-fm.xml", false, false);|' \
    -e 's|#include "ns3/traffic-control-module.h"|#include "ns3/traffic-control-module.h"\n#include "ns3/flow-monitor-module.h"\n#include <cstdlib>|' \
    /usr/share/doc/ns3/examples/traffic-control/cobalt-vs-codel.cc > "$out/cvc-off.cc"
[ "$(grep -c 'UDP_OFFSET\|stopTime = 31\|fmh.InstallAll' "$out/cvc-off.cc")" = 3 ]
g++ -std=c++17 -O1 "$out/cvc-off.cc" -o "$out/cvc-off" $(pkg-config --cflags --libs ns3-applications \
    ns3-core ns3-flow-monitor ns3-internet ns3-network ns3-point-to-point ns3-traffic-control)
for off in 0 0.0001 0.0002 0.0004 0.0006 0.001 0.01; do
    d="$out/off-$off"; mkdir -p "$d"
    (cd "$d" && UDP_OFFSET=$off "$out/cvc-off" > stdout.txt 2>&1)
    for q in CobaltQueueDisc CoDelQueueDisc; do
        echo "UDP sender 2 +$off s, $q: $(/usr/bin/python3 "$here/../start-offset/flowmon_summary.py" "$d/$q-fm.xml" | tr '|' '\n' | grep ':50001' | tr '\n' '|')"
    done
done
