// SPDX-License-Identifier: GPL-2.0-only
// The wires of one host of a scenario spread over several hosts: what start-up makes
// before the ports (host_plan.h says what): the run's tag taken (a crashed run's objects
// removed); per cross-host link a veth pair carrying the run's tag, one end the node's port
// (the link's MAC and MTU), the other facing the wire with the classifier as a link end
// (tags with the link's VLAN, redirects to the wire); the classifier as the wire on every
// wire (only the plan's VLANs from their peer ends get in, untagged, to their link's end);
// the probes that measure each wire; and the checks that refuse a link the wire cannot
// carry: an MTU above the wire's, a delay below its measured one-way latency. A VXLAN wire
// (routed, no shared segment) carries each link as a VNI in UDP between the hosts'
// underlay addresses instead of a VLAN: the same veth pairs, the link end encapsulating
// (outer headers to the next hop the kernel resolved, underlay.h), the wire taking the
// plan's VNIs from the peer's address and passing the rest to the kernel. The link's
// emulation then runs at the sender, on the port's egress, with the wire's latency taken
// off its delay. (The kernel's 802.1Q devices would do the tagging, but kernels without
// CONFIG_VLAN_8021Q exist; XDP needs nothing but veth.) Not a public header.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "daemon/clock_offset.h"
#include "daemon/config.h"
#include "daemon/run_tag.h"
#include "daemon/underlay_watch.h"
#include "daemon/wire_probe.h"
#include "fastpath/classifier.h"
#include "fastpath/control_backend.h"

namespace fastpath {

/// The MTU and delay checks of cross-host links against their wires (pure, for tests):
/// every problem, one per line, each saying what to do.
Status checkCrossLinks(const std::vector<CrossHostLink>& links,
                       const std::map<std::string, uint32_t>& wire_mtu,
                       const std::map<std::string, WireLatency>& wire_latency);
/// A cross-host link's egress emulation: its parameters with the wire's latency taken off
/// the delay (checkCrossLinks refused a delay below it).
LinkParams senderParams(const CrossHostLink& link, const WireLatency& wire);

/// How one host takes part in a run over several hosts: the topology file's `--host-name`,
/// `--run-tag` and wires, or the same declared over the control socket.
struct WiresOptions {
  std::string host;
  std::string run_tag = kDefaultRunTag;
  std::string xdp_mode = "native";
  uint32_t wait_ms = 10000;  ///< for the peers' daemons to answer the probes
  std::vector<std::pair<std::string, std::string>> wires;  ///< {peer host, interface}
  std::map<std::string, WireEncap> encap;  ///< by interface: the VXLAN wires (else 802.1Q)
};

/// The one owner of a host's wires and cross-host links, whoever asks for them: the
/// topology file at start (open) or the control socket (declare, then addLink/removeLink).
class Wires {
 public:
  /// Everything above, for config.cross_links; on error nothing is left.
  static Result<std::unique_ptr<Wires>> open(const Config& config);
  /// The run's tag taken (a crashed run's interfaces removed), each wire checked (it
  /// exists), its classifier attached and measured. On error nothing is left.
  static Result<std::unique_ptr<Wires>> declare(const WiresOptions& options);
  /// Stops the probes, detaches the wires' classifiers, deletes the veth pairs.
  ~Wires();
  Wires(const Wires&) = delete;
  Wires& operator=(const Wires&) = delete;

  /// Completes `x` where the caller left it open (wire from peer_host, the port's name,
  /// MACs from the link's name and x.end), checks it against its wire (a declared peer, a
  /// free VLAN and name, the MTU, the delay against the measured latency) and makes its veth
  /// pair and link end. Returns the completed link. On error nothing is left.
  Result<CrossHostLink> addLink(CrossHostLink x);
  /// Deletes a link's veth pair and link end (its port must be detached first).
  Status removeLink(const std::string& name);
  /// The link `name`, or nullptr.
  const CrossHostLink* findLink(const std::string& name) const;
  /// Gives link `name` a new egress emulation (what this host sends), checked against its
  /// wire as at addLink (a delay below the wire's latency is refused: the link keeps its
  /// parameters). Returns the link as changed.
  Result<CrossHostLink> setEgress(const std::string& name, const LinkParams& egress);
  /// Sets link `name`'s port (the node's end of its veth pair) up or down: down, the node
  /// sends nothing on it and the frames from the wire for it are dropped at the pair.
  Status setUp(const std::string& name, bool up);
  const std::vector<CrossHostLink>& links() const { return links_; }
  const std::string& host() const { return options_.host; }
  const std::string& runTag() const { return options_.run_tag; }
  /// The egress emulation of a link's port: its delay less the wire's latency.
  LinkParams egressOf(const CrossHostLink& x) const;
  /// The wires as measured.
  std::vector<MultiHostWireInfo> wireInfo() const;

  /// The egress emulation of each cross-host link's port.
  std::vector<std::pair<std::string, LinkParams>> egress() const;
  /// The links' ports (left untuned: the daemon made them).
  std::vector<std::string> devices() const;
  /// "wire IF (host P)" sets: latency, jitter, probes, the wire classifier's reasons; and
  /// "clock" (this host's offset as chrony or PTP says, beside the workers' lateness).
  std::vector<CounterSet> counters() const;
  const ClockOffset& clock() const { return clock_; }

  /// Follows the underlay of the VXLAN wires, never blocking (the daemon's control loop
  /// calls it): after a change of the kernel's routes or neighbours, each wire's next hop is
  /// read again and a new one goes to its links' ends at once (one map update each); a wire
  /// without a next hop (no route, no MAC) has its links' frames dropped and counted
  /// (drop_wire_no_next_hop) until it returns, and its next hop is asked to resolve again
  /// every second meanwhile.
  void followUnderlay();

 private:
  /// What the wire's classifier needs of one link: its peer end's MAC (802.1Q) or the
  /// peer's underlay address (VXLAN), and the link's wire-side end.
  struct WireEntry {
    MacAddress peer_mac;
    uint32_t peer_addr = 0;  ///< IPv4, network order
    uint32_t ifindex = 0;
  };
  struct Wire {
    std::string ifname, peer;
    uint32_t mtu = 0;
    std::unique_ptr<Classifier> classifier;
    std::unique_ptr<WireProbe> probe;
    WireLatency latency;
    std::map<uint16_t, Classifier::WireTag> tags;  ///< the links' VLANs on it
    WireEncap encap;                                ///< 802.1Q or VXLAN
    MacAddress mac, next_hop;                       ///< VXLAN: outer Ethernet of the links
    std::map<uint32_t, Classifier::WireVni> vnis;  ///< VXLAN: the links' VNIs on it
    bool hop_up = true;              ///< VXLAN: next_hop is the kernel's next hop now
    uint64_t hop_changes = 0;        ///< VXLAN: a new next hop taken (after the first)
    uint64_t hop_losses = 0;         ///< VXLAN: the next hop went away
    std::chrono::steady_clock::time_point retry_at{};  ///< VXLAN, without a next hop

    /// A link's entry in the map of the wire's encapsulation (VLAN tags or VNIs), set or,
    /// without `e`, removed; the map is kept as the classifier took it.
    Status setLinkEntry(uint32_t id, const std::optional<WireEntry>& e);
  };
  Wires() = default;
  Wire* wireTo(const std::string& peer);
  /// Gives every link end on `wire` its next hop (none: drop), and says so.
  void setNextHop(Wire& wire, const std::optional<MacAddress>& mac);

  WiresOptions options_;
  std::vector<CrossHostLink> links_;
  std::unique_ptr<RunTag> tag_;
  std::map<std::string, std::unique_ptr<Classifier>> link_ends_;  ///< by link name
  std::map<std::string, Wire> wires_;  ///< by interface
  ClockOffset clock_;
  std::unique_ptr<UnderlayWatch> watch_;  ///< with a VXLAN wire: the kernel's changes
};

}  // namespace fastpath
