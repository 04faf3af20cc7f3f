// SPDX-License-Identifier: GPL-2.0-only
#include "daemon/hosts.h"

#include <fcntl.h>
#include <net/if.h>
#include <linux/ethtool.h>
#include <linux/if_link.h>
#include <linux/sockios.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/veth.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <thread>

#include "fastpath/log.h"
#include "fastpath/names.h"
#include "daemon/rtnetlink.h"

namespace fastpath {
namespace {

using nlohmann::json;

constexpr const char* kNetnsDir = "/run/netns";

int addAddress(int nl, int ifindex, const IpPrefix& p) {
  NlRequest r(RTM_NEWADDR, NLM_F_CREATE | NLM_F_EXCL);
  ifaddrmsg ifa{};
  const bool v6 = p.address.family == Family::kIpv6;
  ifa.ifa_family = v6 ? AF_INET6 : AF_INET;
  ifa.ifa_prefixlen = p.length;
  ifa.ifa_index = uint32_t(ifindex);
  r.put(ifa);
  const size_t len = v6 ? 16 : 4;
  r.attr(IFA_LOCAL, p.address.bytes.data(), len);
  r.attr(IFA_ADDRESS, p.address.bytes.data(), len);
  if (v6) {
    // No duplicate address detection: the address is usable at once.
    uint32_t flags = IFA_F_NODAD;
    r.attrU32(IFA_FLAGS, flags);
  }
  return rtnlTalk(nl, r);
}

int addDefaultRoute(int nl, int ifindex, const IpAddress& gw) {
  NlRequest r(RTM_NEWROUTE, NLM_F_CREATE | NLM_F_EXCL);
  rtmsg rt{};
  const bool v6 = gw.family == Family::kIpv6;
  rt.rtm_family = v6 ? AF_INET6 : AF_INET;
  rt.rtm_table = RT_TABLE_MAIN;
  rt.rtm_protocol = RTPROT_STATIC;
  rt.rtm_scope = RT_SCOPE_UNIVERSE;
  rt.rtm_type = RTN_UNICAST;
  r.put(rt);
  r.attr(RTA_GATEWAY, gw.bytes.data(), v6 ? 16 : 4);
  r.attrU32(RTA_OIF, uint32_t(ifindex));
  // On-link: the gateway need not be inside one of eth0's prefixes.
  return rtnlTalk(nl, r);
}

// Runs `fn` on a short-lived thread in the network namespace `netns_fd` (setns changes
// only the calling thread's namespace: the daemon's threads stay where they are).
int inNetns(int netns_fd, const std::function<int()>& fn) {
  int result = 0;
  std::thread t([&] {
    if (setns(netns_fd, CLONE_NEWNET) != 0) {
      result = -errno;
      return;
    }
    result = fn();
  });
  t.join();
  return result;
}

// /run/netns as iproute2 makes it: a shared mount, so namespace mounts under it propagate.
void prepareNetnsDir() {
  mkdir(kNetnsDir, 0755);
  if (mount("", kNetnsDir, "none", MS_SHARED | MS_REC, nullptr) == 0) return;
  if (errno != EINVAL) return;
  if (mount(kNetnsDir, kNetnsDir, "none", MS_BIND | MS_REC, nullptr) == 0)
    mount("", kNetnsDir, "none", MS_SHARED | MS_REC, nullptr);
}

// A child process creates the network namespace with unshare and bind-mounts it at `path`
// (as `ip netns add`: in fastpathd's mount namespace); before it exits the parent opens the
// new namespace through /proc/<child>/ns/net. Returns that fd. The daemon's own threads
// never change namespace.
Result<int> createNetns(const std::string& path) {
  int to_parent[2], to_child[2];
  if (pipe2(to_parent, O_CLOEXEC) != 0) return makeError(-errno, "pipe: " + errnoText(errno));
  if (pipe2(to_child, O_CLOEXEC) != 0) {
    close(to_parent[0]);
    close(to_parent[1]);
    return makeError(-errno, "pipe: " + errnoText(errno));
  }
  const char* p = path.c_str();
  const pid_t pid = fork();
  if (pid < 0) return makeError(-errno, "fork: " + errnoText(errno));
  if (pid == 0) {
    // Child: async-signal-safe calls only.
    int step = 0;
    char c = 0;
    {
      prepareNetnsDir();
      const int f = open(p, O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0);
      if (f < 0)
        step = 2;
      else {
        close(f);
        if (unshare(CLONE_NEWNET) != 0)
          step = 3;
        else if (mount("/proc/self/ns/net", p, "none", MS_BIND, nullptr) != 0)
          step = 4;
        if (step) unlink(p);
      }
    }
    const int err = step ? errno : 0;
    char msg[2] = {char(step), char(err)};
    if (write(to_parent[1], msg, 2) != 2) _exit(1);
    if (read(to_child[0], &c, 1) < 0) _exit(1);  // the parent has opened the namespace
    _exit(0);
  }
  close(to_parent[1]);
  close(to_child[0]);
  char msg[2] = {1, EIO};
  const bool got = read(to_parent[0], msg, 2) == 2;
  int fd = -1;
  if (got && msg[0] == 0)
    fd = open(("/proc/" + std::to_string(pid) + "/ns/net").c_str(), O_RDONLY | O_CLOEXEC);
  const int open_err = errno;
  const char c = 1;
  if (write(to_child[1], &c, 1) < 0) {
    // The child is gone already: waitpid below reaps it.
  }
  close(to_child[1]);
  close(to_parent[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!got || msg[0] != 0) {
    static const char* steps[] = {"", "", "creating",
                                  "unshare(CLONE_NEWNET) for", "bind-mounting"};
    const int step = got ? msg[0] : 0;
    const int err = got ? msg[1] : EIO;
    return makeError(-err, std::string(step > 0 && step < 5 ? steps[step] : "creating") + " " +
                               path + " failed: " + std::strerror(err) +
                               (err == EEXIST ? " (a namespace of that name exists: delete it "
                                                "with 'ip netns del' or choose another name)"
                                              : ""));
  }
  if (fd < 0) return makeError(-open_err, "opening the new namespace: " + errnoText(open_err));
  return fd;
}

// Removes the name of a namespace (its mount and file), as `ip netns del`.
void removeNetns(const std::string& path) {
  umount2(path.c_str(), MNT_DETACH);
  if (unlink(path.c_str()) != 0 && errno != ENOENT)
    pr_warn("host: removing namespace %s failed (%s); remove it with 'ip netns del %s'",
            path.c_str(), errnoText(errno).c_str(), path.substr(path.rfind('/') + 1).c_str());
}

std::string key(const std::string& control_socket) {
  std::string k = control_socket;
  std::replace(k.begin(), k.end(), '/', '_');
  return k;
}

unsigned long long netnsInode() {
  struct stat st {};
  if (stat("/proc/thread-self/ns/net", &st) != 0) return 0;
  return (unsigned long long)st.st_ino;
}

std::string comm(pid_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/comm");
  std::string c;
  std::getline(f, c);
  return c;
}

}  // namespace

Status validateHostName(const std::string& name) {
  if (!validName(name))
    return makeError(-EINVAL, nameRule("host", name) + " (the namespace is fp-NAME)");
  return {};
}

std::string hostVethName(const std::string& name) {
  if (name.size() <= kMaxHostNameInVeth) return "fh-" + name;
  // An interface name has at most 15 characters: a hash of longer names (FNV-1a).
  uint64_t h = 1469598103934665603ull;
  for (char c : name) h = (h ^ uint8_t(c)) * 1099511628211ull;
  char buf[16];
  std::snprintf(buf, sizeof(buf), "fh%012llx", (unsigned long long)(h & 0xffffffffffffull));
  return buf;
}

Result<MacAddress> makeHost(const HostSpec& spec, const std::string& veth) {
  const std::string netns = "fp-" + spec.name;
  const std::string path = std::string(kNetnsDir) + "/" + netns;
  auto ns = createNetns(path);
  if (!ns) return ns.error();
  Fd nsfd{*ns};
  Fd nl{rtnlOpen()};
  auto fail = [&](const std::string& what, int err) -> Error {
    const int idx = int(if_nametoindex(veth.c_str()));
    if (idx && nl.fd >= 0) deleteLink(nl.fd, idx);
    removeNetns(path);
    return makeError(err, "host " + spec.name + ": " + what + ": " + std::strerror(-err));
  };
  if (nl.fd < 0) return fail("rtnetlink socket", nl.fd);
  if (int err = createVeth(nl.fd, veth, "eth0", nsfd.fd, spec.mtu); err)
    return fail("creating veth " + veth + " <-> " + netns + "/eth0" +
                    (err == -EEXIST ? " (an interface " + veth + " exists already)" : ""),
                err);
  const int idx = int(if_nametoindex(veth.c_str()));
  if (!idx) return fail("veth " + veth + " vanished", -ENODEV);
  if (int err = linkUp(nl.fd, idx, 0); err) return fail("setting " + veth + " up", err);
  MacAddress mac;
  std::string step;
  const int err = inNetns(nsfd.fd, [&]() -> int {
    Fd in{rtnlOpen()};
    if (in.fd < 0) return in.fd;
    step = "lo up";
    if (int e = linkUp(in.fd, int(if_nametoindex("lo")), 0); e) return e;
    const int eth0 = int(if_nametoindex("eth0"));
    step = "eth0";
    if (!eth0) return -ENODEV;
    for (const auto& a : spec.addresses) {
      step = "address " + a.address.toString() + "/" + std::to_string(a.length);
      if (int e = addAddress(in.fd, eth0, a); e) return e;
    }
    step = "eth0 up";
    if (int e = linkUp(in.fd, eth0, 0); e) return e;
    for (const auto& g : spec.gateways) {
      step = "default route via " + g.toString();
      if (int e = addDefaultRoute(in.fd, eth0, g); e) return e;
    }
    step = "eth0 MAC";
    Fd s{socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)};
    ifreq ifr{};
    std::strncpy(ifr.ifr_name, "eth0", IFNAMSIZ - 1);
    if (s.fd < 0 || ioctl(s.fd, SIOCGIFHWADDR, &ifr) != 0) return -errno;
    std::memcpy(mac.bytes.data(), ifr.ifr_hwaddr.sa_data, 6);
    // TX checksum offload off, as on a wire: with it a veth hands the peer frames whose
    // TCP/UDP checksum is still to be filled in (CHECKSUM_PARTIAL), and the copy into
    // AF_XDP carries them on unfinished - the far end drops every TCP segment.
    step = "eth0 TX checksum offload off";
    ethtool_value off{ETHTOOL_STXCSUM, 0};
    ifr.ifr_data = reinterpret_cast<char*>(&off);
    if (ioctl(s.fd, SIOCETHTOOL, &ifr) != 0) return -errno;
    return 0;
  });
  if (err) return fail("in " + netns + ": " + step, err);
  return mac;
}

void unmakeHost(const HostRecord& r) {
  Fd nl{rtnlOpen()};
  const int idx = int(if_nametoindex(r.veth.c_str()));
  if (idx && nl.fd >= 0) {
    if (int err = deleteLink(nl.fd, idx); err && err != -ENODEV)
      pr_warn("host %s: deleting veth %s: %s", r.name.c_str(), r.veth.c_str(),
              std::strerror(-err));
  }
  removeNetns(std::string(kNetnsDir) + "/" + r.netns);
}

HostState::HostState(const std::string& control_socket, const std::string& dir)
    : path_(dir + "/hosts-" + std::to_string(netnsInode()) + "-" + key(control_socket) +
            ".json") {}

size_t HostState::removeStale(bool* live) {
  if (live) *live = false;
  std::ifstream f(path_);
  if (!f) return 0;
  json j = json::parse(f, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    pr_warn("hosts: %s is not a state file fastpathd can read; removing it", path_.c_str());
    std::remove(path_.c_str());
    return 0;
  }
  const pid_t pid = j.value("pid", 0);
  if (pid > 0 && pid != getpid() && kill(pid, 0) == 0 && comm(pid) == "fastpathd") {
    pr_warn("hosts: %s belongs to fastpathd pid %d, still running; leaving its hosts",
            path_.c_str(), int(pid));
    if (live) *live = true;
    return 0;
  }
  size_t n = 0;
  if (j.contains("hosts") && j["hosts"].is_array())
    for (const auto& h : j["hosts"]) {
      HostRecord r{h.value("name", ""), h.value("netns", ""), h.value("veth", "")};
      if (r.netns.rfind("fp-", 0) != 0) continue;  // never anything but ours
      unmakeHost(r);
      // The classifier's owner file of the veth (the interface is gone with it).
      std::remove((std::filesystem::path(path_).parent_path() /
                   ("xdp-" + std::to_string(netnsInode()) + "-" + r.veth + ".pid"))
                      .c_str());
      pr_info("hosts: removed host %s (namespace %s, veth %s) left by fastpathd pid %d",
              r.name.c_str(), r.netns.c_str(), r.veth.c_str(), int(pid));
      ++n;
    }
  std::remove(path_.c_str());
  return n;
}

Status HostState::write(const std::vector<HostRecord>& hosts) const {
  if (hosts.empty()) {
    std::remove(path_.c_str());
    return {};
  }
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path_).parent_path(), ec);
  json j;
  j["pid"] = int(getpid());
  j["hosts"] = json::array();
  for (const auto& h : hosts)
    j["hosts"].push_back({{"name", h.name}, {"netns", h.netns}, {"veth", h.veth}});
  const std::string tmp = path_ + ".tmp";
  {
    std::ofstream o(tmp);
    o << j.dump(2) << "\n";
    if (!o) return makeError(-EIO, "hosts: writing " + tmp + " failed");
  }
  if (std::rename(tmp.c_str(), path_.c_str()) != 0)
    return makeError(-errno, "hosts: renaming " + tmp + ": " + errnoText(errno));
  return {};
}

}  // namespace fastpath
