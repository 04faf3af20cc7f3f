// SPDX-License-Identifier: GPL-2.0-only
// Network namespaces for a benchmark tool that builds its own testbed (fp-link-fidelity):
// namespaces named fp-<tag>-<pid>-<name> joined by veth pairs, removed when the owner goes
// (on every way out of the tool), and a thread's visit into one of them. The harness's
// other tools get their namespaces from fastpath_bench/topology.py instead.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fastpath::bench {

/// True when the process may create namespaces and attach XDP (root, `ip netns` works);
/// otherwise false with the reason in *why.
bool haveNetnsPrivileges(std::string* why);

/// Namespaces and veth pairs of one run. Never touches the root namespace except to create
/// and delete namespaces.
class NetnsTestbed {
 public:
  /// tag: short name of the tool, e.g. "fid".
  explicit NetnsTestbed(const std::string& tag);
  ~NetnsTestbed();
  NetnsTestbed(const NetnsTestbed&) = delete;
  NetnsTestbed& operator=(const NetnsTestbed&) = delete;

  /// Creates namespace fp-<tag>-<pid>-<name> with lo up; returns its full name.
  std::string addNamespace(const std::string& name);
  /// veth pair if_a (in ns_a) <-> if_b (in ns_b), created inside the namespaces, both up.
  void addVeth(const std::string& ns_a, const std::string& if_a, const std::string& ns_b,
               const std::string& if_b);
  /// `ip netns exec <ns> <cmd>` through the shell; its exit status (-1: did not run).
  int exec(const std::string& ns, const std::string& cmd) const;
  /// MAC address of an interface in a namespace; false when it does not exist.
  bool mac(const std::string& ns, const std::string& ifname, uint8_t out[6]) const;

 private:
  std::string prefix_;
  std::vector<std::string> namespaces_;
};

/// The calling thread in network namespace `ns` for the lifetime of the object (setns),
/// back in its own afterwards. The mount namespace stays, so /sys/fs/bpf stays visible.
class EnterNetns {
 public:
  explicit EnterNetns(const std::string& ns);
  ~EnterNetns();
  EnterNetns(const EnterNetns&) = delete;
  EnterNetns& operator=(const EnterNetns&) = delete;
  bool ok() const { return ok_; }

 private:
  int original_fd_ = -1;
  bool ok_ = false;
};

}  // namespace fastpath::bench
