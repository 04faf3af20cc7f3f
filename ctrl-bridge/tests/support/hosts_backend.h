// SPDX-License-Identifier: GPL-2.0-only
// A MultiNodeBackend with what only fastpathd has otherwise: hosts, interfaces attached at
// run time, segments and the attach policy, all in memory, no root. Interfaces are
// imagined by name, as the policy's facts would read them: "lo" is loopback, "bond-m*" bond
// members, "xdp*" served by another XDP program, "eth0" carries the default route,
// anything else a plain interface. For the operator-input tests and the topology fuzzer.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "multi_node_backend.h"

namespace fastpath::ctrl::testing {

class HostsBackend : public MultiNodeBackend {
 public:
  using MultiNodeBackend::MultiNodeBackend;

  /// fastpathd --attachable.
  void setAttachable(std::vector<std::string> patterns) { attachable_ = std::move(patterns); }
  /// Back to no hosts, attachments or segments (the fuzzer, between inputs).
  void resetExtras();

  Status mayAttachInterface(const std::string& ifname, bool root) const override;
  Result<PortInfo> attachInterface(const std::string& node, const std::string& ifname) override;
  Status detachInterface(const std::string& node, const std::string& ifname) override;
  Result<HostInfo> createHost(const HostSpec& spec) override;
  Status deleteHost(const std::string& name) override;
  std::vector<HostInfo> hosts() const override;
  Status createSegment(const SegmentSpec& spec) override;
  Status deleteSegment(const std::string& name) override;
  Status setSegmentState(const std::string& name, bool up, const std::string& node) override;
  std::vector<SegmentInfo> segments() const override;
  /// What segments() reports as the medium's measured counters (fastpathd's workers count
  /// them; here a test says what they are). False when there is no such segment.
  bool setSegmentStats(const std::string& name, const LinkDirectionStats& stats);
  /// A medium as media() reports it, counters included (fastpathd's workers count them;
  /// here a test says what they are): for fpctl's output.
  void addMedium(MediumInfo info) { media_[info.name] = std::move(info); }
  std::vector<MediumInfo> media(const std::string& name = "") const override;

 private:
  std::vector<std::string> attachable_;
  std::map<std::string, HostInfo> hosts_;
  std::map<std::string, std::string> attached_;  ///< ifname -> node
  std::map<std::string, SegmentInfo> segments_;
  std::map<std::string, MediumInfo> media_;
  PortId next_port_ = 1000;
};

}  // namespace fastpath::ctrl::testing
