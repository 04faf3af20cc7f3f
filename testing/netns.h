// SPDX-License-Identifier: GPL-2.0-only
// Test topologies in network namespaces: created by the test, named fp-<tag>-<pid>-<name>,
// removed in the destructor even when the test fails. Never touches the root namespace
// except to create and delete namespaces.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace fastpath::testing {

/// Runs a shell command; returns its exit status (-1 if it could not run).
int sh(const std::string& cmd);
/// Runs a shell command and returns its stdout.
std::string shOutput(const std::string& cmd);

/// True when the process may create namespaces and attach XDP (root with CAP_NET_ADMIN,
/// CAP_SYS_ADMIN). Tests GTEST_SKIP() with a reason otherwise.
bool havePrivileges(std::string* why);

class Topology {
 public:
  /// tag: short name of the test suite, e.g. "cls", "fwd".
  explicit Topology(const std::string& tag);
  ~Topology();
  Topology(const Topology&) = delete;
  Topology& operator=(const Topology&) = delete;

  /// Creates namespace fp-<tag>-<pid>-<name>, brings lo up, returns its full name.
  std::string addNamespace(const std::string& name);
  /// Full name of a namespace created by addNamespace.
  std::string ns(const std::string& name) const;
  /// veth pair if_a (in ns a) <-> if_b (in ns b), created directly inside the namespaces
  /// (never in the root namespace), both up, with `queues` rx/tx queues.
  void addVeth(const std::string& ns_a, const std::string& if_a, const std::string& ns_b,
               const std::string& if_b, unsigned queues = 1);
  /// `ip netns exec <ns> <cmd>`; returns exit status.
  int exec(const std::string& ns_name, const std::string& cmd) const;
  std::string execOutput(const std::string& ns_name, const std::string& cmd) const;
  /// Starts a command in the namespace in the background; it is killed (by PID) and reaped
  /// in the destructor if still running. stdout/stderr go to log_path if given.
  pid_t spawn(const std::string& ns_name, const std::vector<std::string>& argv,
              const std::string& log_path = "");
  /// Sends SIGTERM to a spawned process and waits up to timeout_ms; SIGKILL after.
  /// Returns its exit status (or -1).
  int stop(pid_t pid, int timeout_ms = 5000);
  /// MAC address of an interface in a namespace, "aa:bb:..".
  std::string mac(const std::string& ns_name, const std::string& ifname) const;

 private:
  std::string prefix_;
  std::vector<std::string> namespaces_;
  std::vector<pid_t> children_;
};

/// Enters a network namespace for the lifetime of the object on the calling thread
/// (setns), restoring the original one afterwards. The mount namespace is unchanged, so
/// /sys/fs/bpf stays visible.
class NetnsGuard {
 public:
  explicit NetnsGuard(const std::string& ns_name);
  ~NetnsGuard();
  bool ok() const { return ok_; }

 private:
  int original_fd_ = -1;
  bool ok_ = false;
};

}  // namespace fastpath::testing
