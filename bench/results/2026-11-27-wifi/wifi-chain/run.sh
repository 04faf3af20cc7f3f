#!/bin/bash
# debug run of wifi-chain emulated with fpctl monitor
cd /tmp/wdbg
B=/work/wt/wifi/build
echo "nodes: []" > empty.yaml
ip netns add fp-wdbg 2>/dev/null; ip -n fp-wdbg link set lo up
rm -f fpd.sock
ip netns exec fp-wdbg $B/bin/fastpathd --topology empty.yaml --socket /tmp/wdbg/fpd.sock > fpd.log 2>&1 &
FPD=$!
for i in $(seq 50); do [ -S fpd.sock ] && break; sleep 0.1; done
$B/bin/fpctl --socket /tmp/wdbg/fpd.sock monitor --all-nodes > monitor.log 2>&1 &
MON=$!
$B/ns3-module/examples/wifi-chain --FastPathEmulation=1 --FastPathSocket=/tmp/wdbg/fpd.sock --FastPathTag=wdbg --traffic-start=2 --rate=20 --join-at=4 --leave-at=10 --duration=20 > chain.out 2> chain.err &
CH=$!
sleep 12
$B/bin/fpctl --socket /tmp/wdbg/fpd.sock medium show wdbg-wifi0 > medium.txt 2>&1
wait $CH
kill $MON; kill $FPD; wait $FPD
ip netns del fp-wdbg
