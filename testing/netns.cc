// SPDX-License-Identifier: GPL-2.0-only
#include "netns.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <thread>

namespace fastpath::testing {

int sh(const std::string& cmd) {
  int rc = std::system(cmd.c_str());
  if (rc == -1) return -1;
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

std::string shOutput(const std::string& cmd) {
  std::string out;
  FILE* f = popen(cmd.c_str(), "r");
  if (!f) return out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), f)) > 0) out.append(buf, n);
  pclose(f);
  return out;
}

bool havePrivileges(std::string* why) {
  if (geteuid() != 0) {
    if (why) *why = "needs root (network namespaces, XDP attach)";
    return false;
  }
  if (sh("ip netns list >/dev/null 2>&1") != 0) {
    if (why) *why = "'ip netns' does not work here";
    return false;
  }
  return true;
}

Topology::Topology(const std::string& tag)
    : prefix_("fp-" + tag + "-" + std::to_string(getpid()) + "-") {}

Topology::~Topology() {
  for (auto it = children_.rbegin(); it != children_.rend(); ++it) stop(*it, 2000);
  for (auto it = namespaces_.rbegin(); it != namespaces_.rend(); ++it)
    sh("ip netns del " + *it + " 2>/dev/null");
}

std::string Topology::addNamespace(const std::string& name) {
  std::string full = prefix_ + name;
  sh("ip netns del " + full + " 2>/dev/null");
  sh("ip netns add " + full);
  namespaces_.push_back(full);
  sh("ip -n " + full + " link set lo up");
  return full;
}

std::string Topology::ns(const std::string& name) const { return prefix_ + name; }

void Topology::addVeth(const std::string& ns_a, const std::string& if_a, const std::string& ns_b,
                       const std::string& if_b, unsigned queues) {
  std::string q =
      " numtxqueues " + std::to_string(queues) + " numrxqueues " + std::to_string(queues);
  sh("ip -n " + ns_a + " link add " + if_a + q + " type veth peer name " + if_b + q + " netns " +
     ns_b);
  sh("ip -n " + ns_a + " link set " + if_a + " up");
  sh("ip -n " + ns_b + " link set " + if_b + " up");
}

int Topology::exec(const std::string& ns_name, const std::string& cmd) const {
  return sh("ip netns exec " + ns_name + " " + cmd);
}

std::string Topology::execOutput(const std::string& ns_name, const std::string& cmd) const {
  return shOutput("ip netns exec " + ns_name + " " + cmd);
}

pid_t Topology::spawn(const std::string& ns_name, const std::vector<std::string>& argv,
                      const std::string& log_path) {
  pid_t pid = fork();
  if (pid == 0) {
    if (!log_path.empty()) {
      int fd = open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (fd >= 0) {
        dup2(fd, 1);
        dup2(fd, 2);
        close(fd);
      }
    }
    std::vector<char*> args;
    std::vector<std::string> full = {"ip", "netns", "exec", ns_name};
    full.insert(full.end(), argv.begin(), argv.end());
    for (auto& a : full) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp("ip", args.data());
    _exit(127);
  }
  if (pid > 0) children_.push_back(pid);
  return pid;
}

int Topology::stop(pid_t pid, int timeout_ms) {
  int status = 0;
  if (waitpid(pid, &status, WNOHANG) == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  kill(pid, SIGTERM);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (std::chrono::steady_clock::now() < deadline) {
    pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (r < 0) return -1;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  kill(pid, SIGKILL);
  waitpid(pid, &status, 0);
  return -1;
}

std::string Topology::mac(const std::string& ns_name, const std::string& ifname) const {
  std::string out =
      shOutput("ip netns exec " + ns_name + " cat /sys/class/net/" + ifname + "/address");
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

NetnsGuard::NetnsGuard(const std::string& ns_name) {
  original_fd_ = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
  int fd = open(("/var/run/netns/" + ns_name).c_str(), O_RDONLY | O_CLOEXEC);
  if (original_fd_ >= 0 && fd >= 0) ok_ = setns(fd, CLONE_NEWNET) == 0;
  if (fd >= 0) close(fd);
}

NetnsGuard::~NetnsGuard() {
  if (original_fd_ >= 0) {
    setns(original_fd_, CLONE_NEWNET);
    close(original_fd_);
  }
}

}  // namespace fastpath::testing
