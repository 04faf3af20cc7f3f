// SPDX-License-Identifier: GPL-2.0-only
// The loader of the XDP classifier (bpf/fp_classify.bpf.c): opens the embedded skeleton,
// fills the rule and config maps, attaches through libxdp (so other XDP programs coexist
// via the dispatcher), reads the per-CPU counters, and detaches on destruction.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fastpath/control_backend.h"
#include "fastpath/result.h"
#include "fp_abi.h"

struct fp_classify;
struct xdp_program;

namespace fastpath {

/// Everything attach() needs. Validated before any interface is touched.
struct ClassifierOptions {
  std::string ifname;
  /// Try native (driver) XDP first; if the driver refuses, use generic (skb) mode with one
  /// log line. false: fail instead.
  bool allow_generic = true;
  uint32_t no_xsk_policy = FP_NO_XSK_PASS;        ///< enum fp_no_xsk_policy
  uint32_t broadcast_action = FP_ACTION_CONTROL;  ///< enum fp_rule_action, 0 = no rule
  uint32_t multicast_action = FP_ACTION_CONTROL;  ///< enum fp_rule_action, 0 = no rule
  /// The port's own MAC: unicast frames to another MAC, and frames from this one, are
  /// dropped and counted. attach() reads the interface's MAC when this is empty;
  /// openForTest() checks nothing without it.
  std::optional<MacAddress> port_mac;
  /// enum fp_wire_role: FP_WIRE_PORT, a wire between hosts (setWireTags() says which links
  /// it carries); FP_WIRE_LINK_END, a link's wire-side veth end (tags with wire_vlan, sends
  /// to wire_ifindex). Neither hands frames to an AF_XDP socket.
  uint32_t wire = FP_WIRE_NONE;
  uint16_t wire_vlan = 0;
  uint32_t wire_ifindex = 0;
  /// enum fp_wire_encap. FP_ENCAP_VXLAN: the wire takes VXLAN to underlay_addr:vxlan_port
  /// (setWireVnis() says which links it carries) and passes the rest to the kernel; a link
  /// end puts vxlan_hdr (vxlanOuterHeader()) in front of every frame instead of a tag.
  uint32_t encap = FP_ENCAP_VLAN;
  uint32_t underlay_addr = 0;  ///< IPv4, network order
  uint16_t vxlan_port = FP_VXLAN_PORT;
  std::array<uint8_t, FP_VXLAN_OVERHEAD> vxlan_hdr{};
  /// Where the owner file of each attachment lives (<run_dir>/xdp-<netns>-<ifname>.pid):
  /// a later start uses it to tell a crashed run's leftover from a live owner.
  std::string run_dir = "/run/fastpathd";
};

/// Counters summed over all CPUs, indexed by enum fp_verdict / enum fp_reason.
struct ClassifierStats {
  fp_counter verdict[FP_VERDICT_MAX];
  fp_counter reason[FP_REASON_MAX];
};

/// "data", "control", "punt", "pass", "drop"; "unknown" outside the enum.
const char* verdictName(unsigned verdict);
/// "data_ipv4", ..., "punt_ttl_expired", ...; "unknown" outside the enum.
const char* reasonName(unsigned reason);

/// The outer headers a VXLAN link end puts in front of each frame (RFC 7348): Ethernet from
/// the wire's MAC to the next hop's, IPv4 from this host's underlay address to the peer's
/// (DF, TTL 64, its checksum over a total length of 0), UDP to `port` (source port, lengths
/// and checksum left 0: the program fills them), VXLAN with the I flag and `vni`.
std::array<uint8_t, FP_VXLAN_OVERHEAD> vxlanOuterHeader(const MacAddress& wire_mac,
                                                        const MacAddress& next_hop,
                                                        uint32_t src_addr, uint32_t dst_addr,
                                                        uint16_t port, uint32_t vni);

/// One loaded classifier, attached to one interface (or not, in test mode).
/// Not thread-safe: use it from one control thread.
class Classifier {
 public:
  /// Loads the program, writes the config, cleans a stale attachment left by a crashed
  /// run (owner file names a dead process), and attaches through libxdp: native mode
  /// first, generic mode if allowed. Refuses if a live owner or a foreign non-dispatcher
  /// XDP program holds the interface.
  static Result<std::unique_ptr<Classifier>> attach(const ClassifierOptions& options);
  /// Loads the program and writes the config without touching any interface (katran's
  /// "testing" mode): for bpf_prog_test_run_opts on progFd().
  static Result<std::unique_ptr<Classifier>> openForTest(const ClassifierOptions& options);

  ~Classifier();  ///< Detaches (if attached), removes the owner file, frees everything.
  Classifier(const Classifier&) = delete;
  Classifier& operator=(const Classifier&) = delete;

  int progFd() const;
  int xsksMapFd() const;
  const std::string& ifname() const { return ifname_; }
  int ifindex() const { return ifindex_; }
  bool attached() const { return attached_; }
  /// "native", "generic" or "none".
  std::string mode() const;
  /// True when attached as one program of libxdp's dispatcher (other XDP programs can
  /// share the interface). libxdp falls back to attaching us alone when the kernel refuses
  /// its freplace-based dispatcher (seen on the project's 6.18 test kernel: EPERM).
  bool viaDispatcher() const;

  /// Replaces all control rules: validates every rule first, then adds/updates the new
  /// ones, then deletes the stale ones, so a rule present before and after never blinks.
  Status setRules(const std::vector<ControlRule>& rules);
  /// The rules as the maps hold them (read back from the kernel).
  std::vector<ControlRule> rules() const;
  Status setConfig(const fp_config& config);
  /// A wire's links: VLAN id -> the link's peer end MAC and wire-side end (fp_wire_tags),
  /// replacing all.
  struct WireTag {
    MacAddress peer_mac;
    uint32_t ifindex = 0;  ///< 0: to the kernel
  };
  Status setWireTags(const std::map<uint16_t, WireTag>& tags);
  /// A VXLAN wire's links: VNI -> the peer's underlay address (IPv4, network order) and
  /// the link's wire-side end (fp_wire_vnis), replacing all.
  struct WireVni {
    uint32_t peer_addr = 0;
    uint32_t ifindex = 0;
  };
  Status setWireVnis(const std::map<uint32_t, WireVni>& vnis);
  /// A VXLAN link end's next hop on the underlay (fp_vxlan_hop), replaced in one step: its
  /// MAC goes into each frame's outer Ethernet header; none: the underlay has no next hop to
  /// the peer now, and each frame is dropped and counted (drop_wire_no_next_hop).
  Status setVxlanNextHop(const std::optional<MacAddress>& mac);
  Result<ClassifierStats> readStats() const;

 private:
  Classifier() = default;
  static Result<std::unique_ptr<Classifier>> open(const ClassifierOptions& options);
  Status attachMode(int xdp_mode);
  void detach();

  fp_classify* skel_ = nullptr;
  xdp_program* prog_ = nullptr;
  std::string ifname_;
  int ifindex_ = 0;
  bool attached_ = false;
  int xdp_mode_ = 0;        // enum xdp_attach_mode once attached
  std::string owner_file_;  // removed on detach
};

}  // namespace fastpath
