// SPDX-License-Identifier: GPL-2.0-only
// fastpathd's configuration: one struct with defaults, filled from a file and/or flags,
// validated completely before any interface is touched (l3fwd style: contradictory
// options are rejected explicitly). Options and file syntax: docs/reference/fastpathd-options.md.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "daemon/host_plan.h"
#include "daemon/route_config.h"
#include "daemon/topology.h"
#include "fastpath/log.h"
#include "fastpath/net_types.h"
#include "fastpath/result.h"
#include "xsk/xsk_port.h"

namespace fastpath {

struct Config {
  std::vector<std::string> ports;  ///< interface names, PortId = position; node "default"
  /// --topology FILE: more nodes, their interfaces, the links between them, their static
  /// routes and neighbours. Read and validated by parseCommandLine (errors name the line).
  std::string topology_file;
  Topology topology;
  uint32_t queues = 1;     ///< queues per port; one worker per queue
  std::vector<int> cores;  ///< CPU of each worker; empty: not pinned
  std::string control_socket = "/run/fastpathd/fastpathd.sock";
  uid_t control_uid = 0;  ///< peer uid allowed on the control socket (and root)
  gid_t control_gid = 0;  ///< group owning the socket (0660)
  bool control_gid_set = false;
  /// Connections an operator's process may hold (--operator-connections); 0 = the control
  /// server's default (ServerOptions::max_clients_per_operator_pid).
  uint32_t operator_connections = 0;
  uint32_t batch_size = 64;
  uint32_t ring_size = 4096;  ///< RX/TX/fill/completion ring entries (power of two)
  uint32_t umem_frames = 0;   ///< 0: ports * (fill + tx) + slack, computed
  uint32_t frame_size = 4096;
  XskMode xsk_mode = XskMode::kAuto;
  std::string xdp_mode = "auto";  ///< "auto" (native, else generic) or "native"
  bool no_xsk_drop = false;       ///< frames on queues without XSK: drop (else to kernel)
  bool punt_to_control = true;    ///< exceptions to the control channel (else counted drop)
  /// Per port: punts and forwarding exceptions handed to the control channel, frames/s
  /// (0 = unlimited) and burst; CONTROL frames (routing protocol, ARP, ND) are never limited.
  uint64_t punt_rate = 10000;
  uint32_t punt_burst = 256;
  bool busy_poll = false;
  /// Longest sleep in poll() when idle; 0 = spin always. Frames, client frames (the relay
  /// wakes the worker), emulated arrivals and stop end the sleep earlier, so this only
  /// bounds how often an idle worker wakes up for nothing.
  uint32_t idle_poll_us = kDefaultIdlePollUs;
  static constexpr uint32_t kDefaultIdlePollUs = 100000;
  /// Polling this long after the last frame before sleeping (0: after two empty passes).
  uint32_t idle_spin_us = 0;
  /// Under overload, frames lent for RX per port: what the worker forwards in this long
  /// at its measured rate (at least two batches), so a frame waits at most about this
  /// long in fastpathd's rings; the excess is dropped at RX, counted. Below saturation,
  /// and with 0, every fill ring is kept full.
  uint32_t rx_budget_us = 500;
  /// SCHED_FIFO priority of the workers: N fixed, 0 off, kRtAuto = one above a real-time
  /// NAPI thread of a served port that shares a worker's CPU (re-checked every second).
  int rt_priority = -1;
  static constexpr int kRtAuto = -1;
  /// With kRtAuto: workers run one below the NAPI thread (it then empties the driver's
  /// small RX ring into the large AF_XDP ring at once) and go one above it only while an
  /// RX ring is more than 3/4 full (no receive livelock). false: always one above.
  bool rt_adaptive = true;
  /// Real-time workers step down to the normal policy before the real-time work on their
  /// CPU spends the kernel's budget (sched_rt_runtime_us), instead of being throttled.
  bool rt_guard = true;
  /// SCHED_FIFO priority of the interface ports' NAPI threads (port tuning): N fixed,
  /// kNapiKeep = left as the kernel made them (the default), kNapiAuto = napiRtPriority().
  /// Not auto by default: a worker under its NAPI threads runs only when they leave the
  /// CPU, so a flood on the worker's CPU (NAPI busy all the time) starves it to the RT
  /// throttling's slack before it can notice the overload and go above them (a million
  /// frames flat out: 61,551 received, 938,452 dropped for an empty fill ring).
  int napi_priority = 0;
  static constexpr int kNapiAuto = -1;
  static constexpr int kNapiKeep = 0;
  /// What --napi-priority auto gives with --rt-priority auto: the workers (adaptive) run
  /// one below it, one above it only while an RX ring is over 3/4 full.
  static constexpr int kNapiAutoRtPriority = 2;
  /// --cpu-wake-latency-us: the PM QoS wake-up latency (us) held for every CPU while the
  /// daemon runs (CpuWakeLatency); kNoWakeLatencyRequest: none, the idle governor decides.
  int32_t cpu_wake_latency_us = kNoWakeLatencyRequest;
  static constexpr int32_t kNoWakeLatencyRequest = -1;
  uint32_t stats_interval_s = 0;  ///< 0: no periodic stats line
  bool mount_bpffs = true;        ///< mount bpffs at /sys/fs/bpf if missing
  /// Threaded NAPI on the interface ports, their NAPI threads on the workers' CPUs, all
  /// restored at exit (state file in /run/fastpathd); false: --no-tune, nothing changed.
  bool tune_ports = true;
  LogLevel log_level = LogLevel::kInfo;
  /// --attachable: interface name patterns (shell wildcards) an operator may attach at run
  /// time besides those of the start and the hosts; an exact name also lets root attach
  /// the interface of the default route (attach_policy.h).
  std::vector<std::string> attachable;
  std::vector<RouteConfig> routes;
  std::vector<NeighbourConfig> neighbours;
  /// --host-name: which of the topology's `hosts:` this daemon is ("local": the only one).
  std::string host_name = kLocalHost;
  /// --run-tag: carried by every object the daemon makes on its host (VLAN devices, their
  /// alias, its lock file); a crashed run's objects of the same tag are removed at start.
  std::string run_tag = kDefaultRunTag;
  /// --wire-wait: how long the start waits for each peer host's fastpathd on the wire.
  uint32_t wire_wait_ms = 10000;
  /// The links between this host and others (applyHostPlan), made at start.
  std::vector<CrossHostLink> cross_links;

  /// Frames per worker UMEM after defaults are applied.
  uint32_t effectiveUmemFrames() const;
  /// SCHED_FIFO priority port tuning gives the ports' NAPI threads, 0: none. auto: with
  /// real-time workers (--rt-priority auto: kNapiAutoRtPriority; N: N, level with them)
  /// threaded NAPI keeps the precedence a softirq has over normal threads, so a worker
  /// sharing its CPU does not hold back the thread that empties the driver's RX ring;
  /// with normal workers (--rt-priority 0, spinning) nothing changes.
  int napiRtPriority() const;
};

/// Parses command-line flags (argv[0] skipped). `--config FILE` is read first, wherever
/// it appears; flags then override or extend it. Sets *help when --help was given.
Result<Config> parseCommandLine(int argc, char** argv, bool* help = nullptr);
/// Parses the configuration file syntax into `config` (adds to what it holds).
Status parseConfigText(const std::string& text, const std::string& origin, Config* config);
/// Keeps the part of config->topology that config->host_name runs (planForHost): other
/// hosts' nodes go, links to them become cross_links. parseCommandLine calls it last.
Status applyHostPlan(Config* config);
/// Checks the whole configuration; touches nothing. Returns every problem found.
Status validateConfig(const Config& config);
/// Usage text for --help.
std::string usageText();

}  // namespace fastpath
