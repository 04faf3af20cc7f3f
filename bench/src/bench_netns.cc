// SPDX-License-Identifier: GPL-2.0-only
#include "bench_netns.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>

#include "bench_common.h"

namespace fastpath::bench {

namespace {

int shell(const std::string& cmd) {
  const int rc = std::system(cmd.c_str());
  if (rc == -1) return -1;
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

}  // namespace

bool haveNetnsPrivileges(std::string* why) {
  if (geteuid() != 0) {
    if (why) *why = "needs root (network namespaces, XDP attach)";
    return false;
  }
  if (shell("ip netns list >/dev/null 2>&1") != 0) {
    if (why) *why = "'ip netns' does not work here";
    return false;
  }
  return true;
}

NetnsTestbed::NetnsTestbed(const std::string& tag)
    : prefix_("fp-" + tag + "-" + std::to_string(getpid()) + "-") {}

NetnsTestbed::~NetnsTestbed() {
  for (auto it = namespaces_.rbegin(); it != namespaces_.rend(); ++it)
    shell("ip netns del " + *it + " 2>/dev/null");
}

std::string NetnsTestbed::addNamespace(const std::string& name) {
  const std::string full = prefix_ + name;
  shell("ip netns del " + full + " 2>/dev/null");  // a leftover of a killed run with our pid
  shell("ip netns add " + full);
  namespaces_.push_back(full);
  shell("ip -n " + full + " link set lo up");
  return full;
}

void NetnsTestbed::addVeth(const std::string& ns_a, const std::string& if_a,
                           const std::string& ns_b, const std::string& if_b) {
  // One queue each way, stated: the capture steers rx-0 (rps_cpus).
  const std::string q = " numtxqueues 1 numrxqueues 1";
  shell("ip -n " + ns_a + " link add " + if_a + q + " type veth peer name " + if_b + q + " netns " +
        ns_b);
  shell("ip -n " + ns_a + " link set " + if_a + " up");
  shell("ip -n " + ns_b + " link set " + if_b + " up");
}

int NetnsTestbed::exec(const std::string& ns, const std::string& cmd) const {
  return shell("ip netns exec " + ns + " " + cmd);
}

bool NetnsTestbed::mac(const std::string& ns, const std::string& ifname, uint8_t out[6]) const {
  EnterNetns in(ns);
  return in.ok() && interfaceMac(ifname, out);
}

EnterNetns::EnterNetns(const std::string& ns) {
  original_fd_ = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
  const int fd = open(("/var/run/netns/" + ns).c_str(), O_RDONLY | O_CLOEXEC);
  if (original_fd_ >= 0 && fd >= 0) ok_ = setns(fd, CLONE_NEWNET) == 0;
  if (fd >= 0) close(fd);
}

EnterNetns::~EnterNetns() {
  if (original_fd_ >= 0) {
    setns(original_fd_, CLONE_NEWNET);
    close(original_fd_);
  }
}

}  // namespace fastpath::bench
