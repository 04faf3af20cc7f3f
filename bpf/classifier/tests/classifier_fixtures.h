// SPDX-License-Identifier: GPL-2.0-only
// The classifier's fixture table (katran style): {description, frame, expected verdict,
// reason and metadata}, the rule set it assumes, and a test environment: the real program
// opened in test mode, optionally with an AF_XDP socket bound into its xsks_map (on a veth
// in a private namespace) so test_run takes the redirect path exactly as on a NIC.
#pragma once

#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "classifier_frames.h"
#include "fastpath/classifier.h"
#include "netns.h"

namespace fastpath::testing {

struct Fixture {
  std::string description;
  Bytes frame;
  uint8_t verdict;
  uint8_t reason;
  uint8_t l3 = FP_L3_OTHER;
  uint8_t l4_proto = 0;
  uint16_t l3_off = 0;
  uint16_t l4_off = 0;
};

/// Every class and header variant of the classifier, valid under fixtureRules() and
/// broadcast/multicast actions CONTROL.
std::vector<Fixture> fixtures();
std::vector<ControlRule> fixtureRules();
/// A wire between hosts (fp_config.wire): its table, valid under wireTags() (VLAN 100
/// from kSrcMac, 101 from kOtherHostMac). Every frame of fixtures() has a wire verdict too.
std::vector<Fixture> wireFixtures();
std::map<uint16_t, MacAddress> wireTags();
/// A VXLAN wire (fp_config.encap FP_ENCAP_VXLAN, underlay address kUnderlayAddr, port
/// 4789): its table, valid under wireVnis() (VNI 100 from kPeerUnderlay, 101 from
/// 198.18.0.9). Every frame of fixtures() and wireFixtures() has a verdict there too.
std::vector<Fixture> vxlanFixtures();
std::map<uint32_t, uint32_t> wireVnis();
/// A VXLAN frame: outer Ethernet (kDstMac from kSrcMac), IPv4 `outer` (UDP), UDP from port
/// 50000 to `port`, the VXLAN header (`flags`, `vni`) and `inner`.
Bytes vxlanFrame(const Bytes& inner, uint32_t vni, V4 outer = {}, uint16_t port = 4789,
                 uint8_t flags = FP_VXLAN_FLAG_I);
/// kUnderlayAddr (198.18.1.1, V4's default destination) and kPeerUnderlay (198.18.0.1, its
/// default source), network order.
uint32_t underlayAddr(const std::array<uint8_t, 4>& a);

/// One fuzzed frame into *frame: 3 times in 4 a fixture with 1-4 bytes changed (mostly in
/// the headers) and maybe cut, else random bytes behind a plausible (or random)
/// EtherType. Deterministic for a given rng state.
void mutatedFrame(std::mt19937_64& rng, const std::vector<Fixture>& fx, Bytes* frame);

struct ClassifierEnv {
  std::unique_ptr<Topology> topo;
  std::unique_ptr<Classifier> cls;
  std::unique_ptr<TestXsk> xsk;

  /// Loads the program with fixtureRules(); with bind_xsk, binds a socket for queue 0.
  /// Returns "" on success, else what failed.
  /// With a wire role, the program is a wire's (FP_WIRE_PORT with wireTags(), whose
  /// ifindex is 0) or a link end's (FP_WIRE_LINK_END: VLAN 100 to ifindex 1).
  /// With encap FP_ENCAP_VXLAN, a VXLAN wire (wireVnis(), ifindex 0) or link end (the outer
  /// headers of vxlanOuterHeader() for VNI 100 from 198.18.1.1 to 198.18.0.1).
  std::string open(bool bind_xsk, uint32_t no_xsk_policy = FP_NO_XSK_PASS,
                   uint32_t wire = FP_WIRE_NONE, uint32_t encap = FP_ENCAP_VLAN);
  ~ClassifierEnv();
};

}  // namespace fastpath::testing
