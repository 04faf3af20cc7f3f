// SPDX-License-Identifier: GPL-2.0-only
// The classifier's userspace twin: xdp_fp_classify's decisions for frames that never pass
// through a NIC (frames arriving over an internal link between two nodes of one
// fastpathd). Same verdicts, reasons, rules and metadata as the XDP program
// (classifier/bpf/fp_classify.bpf.c), in the same decision order; the fixture table and
// a differential test (classifier/tests/userspace_classifier_test.cc) hold the two
// together. Not mirrored: the AF_XDP socket fallback (no_xsk_policy) — an internal link
// has no socket — and per-CPU counters (the caller counts).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "fastpath/classifier.h"
#include "fastpath/control_backend.h"
#include "fastpath/result.h"

namespace fastpath {

class UserspaceClassifier {
 public:
  struct Config {
    uint32_t broadcast_action = FP_ACTION_CONTROL;  ///< enum fp_rule_action, 0 = no rule
    uint32_t multicast_action = FP_ACTION_CONTROL;  ///< enum fp_rule_action, 0 = no rule
    std::optional<MacAddress> port_mac;             ///< as fp_config.port_mac
    uint32_t wire = FP_WIRE_NONE;                   ///< as fp_config.wire
    uint32_t encap = FP_ENCAP_VLAN;                 ///< as fp_config.encap
    uint32_t underlay_addr = 0;                     ///< as fp_config (network order)
    uint16_t vxlan_port = FP_VXLAN_PORT;            ///< host order
  };

  UserspaceClassifier() = default;
  explicit UserspaceClassifier(Config config) : cfg_(config) {}
  /// The same rule set as Classifier::setRules() writes into the maps.
  Status setRules(const std::vector<ControlRule>& rules);
  /// The same wire links as Classifier::setWireTags() writes (VLAN -> peer end MAC).
  void setWireTags(const std::map<uint16_t, MacAddress>& tags) { wire_tags_ = tags; }
  /// The same VXLAN links as Classifier::setWireVnis() (VNI -> peer's underlay address,
  /// network order).
  void setWireVnis(const std::map<uint32_t, uint32_t>& vnis) { wire_vnis_ = vnis; }
  // Not mirrored: a wire's redirect of a link's frame to the link's end (a delivery, not
  // a decision: the twin says PASS pass_wire_link) and FP_WIRE_LINK_END's tagging or
  // VXLAN encapsulation (a
  // transmit step; no internal link ever has that role).

  /// The decision for one frame, as the XDP program writes it in front of the frame
  /// (magic set). No allocation, no syscall.
  fp_xdp_meta classify(const uint8_t* frame, uint32_t len) const;

 private:
  struct Frame;
  struct Cls;
  bool l4(const Frame& f, Cls& c, uint8_t proto, uint32_t l4_off, uint32_t ip_end) const;
  bool classifyIpv4(const Frame& f, Cls& c, uint32_t off) const;
  bool classifyIpv6(const Frame& f, Cls& c, uint32_t off) const;
  bool castRules(Cls& c, bool bcast, bool mcast) const;
  bool classifyWire(const Frame& f, Cls& c) const;
  bool classifyVxlanWire(const Frame& f, Cls& c) const;
  bool localAddress(Cls& c, uint32_t family, const uint8_t* addr, uint32_t len) const;

  Config cfg_;
  // The rule maps, keyed as the program's: action by EtherType (host order), by IP
  // protocol, by (transport protocol << 16 | destination port), by (family, address).
  std::map<uint16_t, uint32_t> ethertypes_;
  std::array<uint32_t, 256> ip_protos_{};
  std::map<uint32_t, uint32_t> l4_ports_;
  std::map<std::array<uint8_t, 17>, uint32_t> local_;
  std::map<uint16_t, MacAddress> wire_tags_;
  std::map<uint32_t, uint32_t> wire_vnis_;
};

}  // namespace fastpath
