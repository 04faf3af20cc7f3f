#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# run-grid.sh: the 8x8 OLSR grid emulated by fastpathd in one command (as root). Starts
# fastpathd in a scratch namespace (one idle veth port: fastpathd needs one to start; the
# script's 66 nodes and 114 links are created by the script) with the socket owned by
# nobody (--socket-uid: an operator, which may hold the 67 connections the script needs),
# runs grid as nobody with --FastPathEmulation=1, and prints the script's JSON line and a
# summary: OLSR convergence, the UDP flow's received rate, ping RTT, and the CPU time of
# fastpathd and of the ns-3 process over the run. Everything is removed on any exit.
# --simulated runs grid alone (pure simulation). --hosts attaches two real hosts h1 (at
# r0_0) and h2 (at the far corner) instead (grid --hosts=1) and measures between them with
# ping and iperf3 (TCP, 10 s) from their namespaces. --ranks K runs grid as K processes
# with Open MPI's mpirun (each the control planes of its share of the routers; one fastpathd)
# and merges their reports: convergence is the latest of the processes', the flow's sent
# side is s's process's and its received side d's; CPU time is given per process, and how
# far behind real time each process's simulator ran (FastPathRealtimeLag).
# Emulated, fastpathd and the script's processes run at nice -10 (--nice N; 0: the normal
# weight): each process needs a steady share of a CPU in real time (about 0.23 CPU per
# process at 8x8 with 2 processes), and beside other work at the normal weight it gets less
# and falls behind (OLSR's neighbours expire, frames are lost); fastpathd's worker timing
# the links is real-time already.
# Emulated, the links' configured and measured figures (fpctl link list --json, taken every
# 2 s while the script runs; the last one before the script deletes its links) are
# summarized: frames, drops, sojourn against the configured delay, lateness. --keep DIR
# keeps the reports, that link list and fastpathd's log in DIR.
#
#   sudo ns3-module/examples/run-grid.sh [--build-dir DIR] [--simulated|--hosts|--ranks K]
#        [--nice N] [--keep DIR] [-- GRID ARGS]
#
# e.g. sudo ns3-module/examples/run-grid.sh -- --udp-rate=20 --udp-seconds=20
#      sudo ns3-module/examples/run-grid.sh --ranks 2 -- --side=16
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/emulation-runner.sh"

build=build
emulated=1
hosts=0
ranks=1
nice_level=-10
keep=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build-dir) build="$2"; shift 2 ;;
    --simulated) emulated=0; shift ;;
    --hosts) hosts=1; shift ;;
    --ranks) ranks="$2"; shift 2 ;;
    --keep) keep="$2"; shift 2 ;;
    --nice) nice_level="$2"; shift 2 ;;
    --) shift; break ;;
    -h|--help) sed -n '3,32p' "$0"; exit 0 ;;
    *) echo "run-grid.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
fp_binaries run-grid.sh grid fp_ns3_grid
grid="$example"
if [[ $emulated == 0 ]]; then
  exec "$grid" "$@"
fi
[[ $nice_level =~ ^-?[0-9]+$ && $nice_level -ge -20 && $nice_level -le 19 ]] ||
  { echo "run-grid.sh: --nice expects -20..19, not '$nice_level'" >&2; exit 2; }
# Inherited by fastpathd and the script's processes (mpirun and its ranks too).
renice -n "$nice_level" -p $$ >/dev/null
# One process attaching the whole 16x16 grid holds 259 connections (one per node and the
# helper's): more than an operator's process may hold by default (256).
fp_start_fastpathd run-grid.sh grid --socket-gid "$(id -g nobody)" --operator-connections 300
fpctl="$build/bin/fpctl"
grid_keep() {
  [[ -n "$keep" ]] || return 0
  mkdir -p "$keep"
  cp -f "$dir"/grid.json* "$dir/fastpathd.log" "$keep/" 2>/dev/null || true
  [[ -s "$dir/links.json" ]] && cp -f "$dir/links.json" "$keep/links.json"
  return 0
}
trap 'grid_keep; fp_cleanup' EXIT INT TERM
# The links' figures while they exist: the script deletes its links when it ends.
(
  while kill -0 "$fpd_pid" 2>/dev/null; do
    if "$fpctl" -s "$dir/fastpathd.sock" --json -t 3000 link list >"$dir/links.tmp" 2>/dev/null &&
       /usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if (d.get("links") if isinstance(d, dict) else d) else 1)' "$dir/links.tmp"; then
      mv -f "$dir/links.tmp" "$dir/links.json"
    fi
    sleep 2
  done
) &

# fastpathd's CPU time (user + system, seconds) from /proc.
fpd_cpu() {
  awk -v hz="$(getconf CLK_TCK)" '{ sub(/.*\) /, ""); print ($12 + $13) / hz }' "/proc/$fpd_pid/stat"
}
fp_as_nobody
install -m 644 -o nobody /dev/null "$dir/grid.json"
cpu0=$(fpd_cpu)
t0=$(date +%s.%N)
if [[ $hosts == 1 ]]; then
  command -v iperf3 >/dev/null || { echo "run-grid.sh: --hosts needs iperf3" >&2; exit 2; }
  "${as_nobody[@]}" "$grid" --FastPathEmulation=1 --FastPathSocket="$dir/fastpathd.sock" \
    --FastPathTag=grid --report="$dir/grid.json" --hosts=1 "$@" &
  grid_pid=$!
  # fastpathd runs under `ip netns exec`: the hosts' namespace names exist in its mount
  # namespace only.
  in_host() { local h=$1; shift; nsenter --mount="/proc/$fpd_pid/ns/mnt" ip netns exec "fp-grid-$h" "$@"; }
  reached=0
  for _ in $(seq 120); do
    if in_host h1 ping -c 1 -W 1 198.18.201.2 >/dev/null 2>&1; then reached=1; break; fi
    sleep 0.5
  done
  if [[ $reached == 1 ]]; then
    echo "h1 reaches h2 after $(awk -v a="$(date +%s.%N)" -v b="$t0" 'BEGIN { printf "%.1f", a - b }') s"
    in_host h1 ping -c 20 -i 0.2 -W 2 198.18.201.2 | tail -3
    in_host h2 iperf3 -s -1 >/dev/null 2>&1 &
    sleep 0.5
    in_host h1 timeout 30 iperf3 -c 198.18.201.2 -t 10 -O 1 --connect-timeout 3000 | tail -4
  else
    echo "h1 never reached h2 within 60 s" >&2
  fi
  wait "$grid_pid" || true
elif [[ $ranks -gt 1 ]]; then
  command -v mpirun >/dev/null || { echo "run-grid.sh: --ranks needs mpirun (openmpi-bin)" >&2; exit 2; }
  chmod 777 "$dir"
  mpi=(mpirun -np "$ranks")
  # More processes than cores (e.g. 4 for the 16x16 grid on 2 cores): Open MPI refuses
  # them unless told.
  [[ $ranks -gt $(nproc) ]] && mpi+=(--oversubscribe)
  [[ ${#as_nobody[@]} == 0 ]] && mpi+=(--allow-run-as-root)
  "${as_nobody[@]}" "${mpi[@]}" "$grid" --FastPathEmulation=1 \
    --FastPathSocket="$dir/fastpathd.sock" --report="$dir/grid.json" "$@"
  # One report: the latest convergence of the processes, the flow's sent side from s's
  # process, its received side from d's, the CPU time of all.
  /usr/bin/python3 - "$dir/grid.json" "$ranks" <<'EOF'
import json, sys
rs = [json.load(open(f"{sys.argv[1]}.rank{i}")) for i in range(int(sys.argv[2]))]
out = dict(rs[0])
late = lambda k: -1 if any(r[k] < 0 for r in rs) else max(r[k] for r in rs)
out["converged_s"] = late("converged_s")
out["all_converged_s"] = late("all_converged_s")
s = next(r for r in rs if r["has_s"])
d = next(r for r in rs if r["has_d"])
for k in ("udp_sent", "pings", "ping_replies", "rtt_p50_ms", "rtt_min_ms"):
    out[k] = s[k]
for k in ("udp_received", "udp_received_mbps", "udp_received_pps"):
    out[k] = d[k]
out["cpu_total_s"] = sum(r["cpu_total_s"] for r in rs)
out["cpu_per_rank_s"] = [r["cpu_total_s"] for r in rs]
out["cpu_per_sim_s_per_rank"] = [r["cpu_per_sim_s"] for r in rs]
out["cpu_per_sim_s"] = sum(r["cpu_per_sim_s"] for r in rs)
out["inert_events"] = [r.get("inert_events", 0) for r in rs]
out["lag_max_s"] = [r.get("lag_max_s", 0) for r in rs]
out["lag_behind_from_s"] = [r.get("lag_behind_from_s", -1) for r in rs]
out["local_routers"] = [r["local_routers"] for r in rs]
json.dump(out, open(sys.argv[1], "w"))
EOF
else
  "${as_nobody[@]}" "$grid" --FastPathEmulation=1 --FastPathSocket="$dir/fastpathd.sock" \
    --report="$dir/grid.json" "$@"
fi
t1=$(date +%s.%N)
cpu1=$(fpd_cpu)
/usr/bin/python3 - "$dir/grid.json" "$cpu0" "$cpu1" "$t0" "$t1" "$dir/links.json" <<'EOF'
import json, os, sys
r = json.load(open(sys.argv[1]))
fpd = float(sys.argv[3]) - float(sys.argv[2])
wall = float(sys.argv[5]) - float(sys.argv[4])
print(f"grid: {r['routers']} routers, {r['links']} links of {r['rate']}, {r['delay']} (emulated"
      + (f", {r['ranks']} processes: {r['local_routers']} routers each)" if r.get('ranks', 1) > 1 else ")"))
print(f"  OLSR: s and d have routes to each other at {r['converged_s']:.2f} s, "
      f"every router to both at {r['all_converged_s']:.2f} s")
if "hosts" not in r:
    print(f"  UDP s -> d: {r['udp_received']}/{r['udp_sent']} datagrams, "
          f"{r['udp_received_mbps']:.2f} Mbit/s ({r['udp_received_pps']:.0f} pps) received of "
          f"{r['udp_offered_mbps']:g} offered")
    print(f"  ping s -> d: {r['ping_replies']}/{r['pings']} replies, RTT p50 {r['rtt_p50_ms']:.2f} ms, "
          f"min {r['rtt_min_ms']:.2f} ms")
print(f"  CPU over {wall:.1f} s: fastpathd {fpd:.2f} s ({100 * fpd / wall:.0f} %), "
      f"ns-3 {r['cpu_total_s']:.2f} s ({100 * r['cpu_total_s'] / wall:.0f} %"
      + (" for all processes: " + ", ".join(f"{c:.2f}" for c in r["cpu_per_rank_s"]) + " s)"
         if r.get('ranks', 1) > 1 else ")"))
# CPU time of the simulation run (without the set-up) per simulated second.
print(f"  CPU per simulated second: {r['cpu_per_sim_s']:.3f}"
      + (" (" + ", ".join(f"{c:.3f}" for c in r["cpu_per_sim_s_per_rank"]) + " per process)"
         if r.get('ranks', 1) > 1 else ""))
if r.get("ranks", 1) > 1:
    print(f"  events of other processes' nodes dropped: {r['inert_events']}")
# How far behind real time each simulator ran (it needs more CPU than it got when that
# grows past OLSR's hold times: 3 HELLO intervals).
lag = r.get("lag_max_s")
if lag is not None:
    lags = lag if isinstance(lag, list) else [lag]
    behind = r.get("lag_behind_from_s")
    behind = behind if isinstance(behind, list) else [behind]
    print("  simulator behind real time: max " + ", ".join(f"{x:.2f}" for x in lags) + " s"
          + (" per process" if len(lags) > 1 else "")
          + "; more than 0.5 s from " + ", ".join("never" if b < 0 else f"{b:.1f} s" for b in behind))
# Per link direction: frames enqueued and delivered, drops, the queue's sojourn (waiting
# behind other frames), and fastpathd's lateness (how long after its due time, the
# configured serialization and delay, each frame was handed on).
links = []
if os.path.exists(sys.argv[6]):
    d = json.load(open(sys.argv[6]))
    links = d.get("links", []) if isinstance(d, dict) else d
rows = []
for l in links:
    for k in ("a_to_b", "b_to_a"):
        c, m = l[k]["configured"], l[k]["measured"]
        if m["tx_packets"]:
            rows.append((l["name"], k, c, m))
if rows:
    q = lambda xs, p: sorted(xs)[min(len(xs) - 1, int(p * len(xs)))]
    soj = [m["sojourn_p99_ns"] for _, _, c, m in rows]
    l99 = [m.get("lateness_p99_ns") or 0 for _, _, c, m in rows]
    lmax = [m.get("lateness_max_ns") or 0 for _, _, c, m in rows]
    drops = sum(m["queue_drops"] + m["full_drops"] + m["loss_drops"] for _, _, c, m in rows)
    lost = sum(m["enqueued"] - m["delivered"] - m["in_flight"] for _, _, c, m in rows)
    conf = sorted({c["text"] for _, _, c, m in rows})
    print(f"  links ({', '.join(conf)}): {len(rows)} directions with frames of "
          f"{2 * len(links)}, {sum(m['tx_packets'] for _, _, c, m in rows)} frames, "
          f"{drops} dropped, {lost} not delivered; queue sojourn p99: max {max(soj) / 1e3:.1f} us; "
          f"lateness p99: median {q(l99, 0.5) / 1e3:.1f} us, max {max(l99) / 1e3:.1f} us; "
          f"lateness max: max {max(lmax) / 1e3:.1f} us")
EOF
