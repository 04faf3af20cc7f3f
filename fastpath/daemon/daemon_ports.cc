// SPDX-License-Identifier: GPL-2.0-only
// Prerequisites and interface facts (MAC, MTU, queues, real-time NAPI threads), read with
// ioctls and netlink so they reflect the calling thread's network namespace (sysfs may
// belong to another one).
#include <linux/ethtool.h>
#include <linux/magic.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <mutex>

#include "daemon/daemon.h"
#include "daemon/daemon_internal.h"
#include "daemon/napi_threads.h"
#include "fastpath/log.h"

namespace fastpath {
namespace {

constexpr const char* kBpffs = "/sys/fs/bpf";

struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) close(fd);
  }
};

}  // namespace

Status checkBpffs(bool mount_if_missing) {
  struct statfs st {};
  if (statfs(kBpffs, &st) == 0 && st.f_type == BPF_FS_MAGIC) return {};
  if (!mount_if_missing)
    return makeError(-ENOENT, std::string("bpffs is not mounted at ") + kBpffs +
                                  " (libxdp needs it): run 'mount -t bpf bpf /sys/fs/bpf' or "
                                  "drop --no-mount-bpffs");
  mkdir(kBpffs, 0700);
  if (mount("bpf", kBpffs, "bpf", 0, nullptr) != 0)
    return makeError(-errno, std::string("bpffs is not mounted at ") + kBpffs +
                                 " and mounting it failed: " + std::strerror(errno) +
                                 " (mount it by hand: mount -t bpf bpf /sys/fs/bpf)");
  pr_info("mounted bpffs at %s", kBpffs);
  return {};
}

Result<PortInfo> readPortInfo(const std::string& ifname, PortId id) {
  PortInfo p;
  p.id = id;
  p.ifname = ifname;
  p.ifindex = int(if_nametoindex(ifname.c_str()));
  if (p.ifindex == 0)
    return makeError(-ENODEV, "port " + ifname +
                                  " does not exist in this network namespace "
                                  "(check the name with 'ip link')");
  Fd s{socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)};
  if (s.fd < 0) return makeError(-errno, std::string("socket: ") + std::strerror(errno));
  ifreq ifr{};
  std::strncpy(ifr.ifr_name, ifname.c_str(), IFNAMSIZ - 1);
  if (ioctl(s.fd, SIOCGIFHWADDR, &ifr) != 0)
    return makeError(-errno,
                     "port " + ifname + ": reading its MAC failed: " + std::strerror(errno));
  std::memcpy(p.mac.bytes.data(), ifr.ifr_hwaddr.sa_data, 6);
  if (ioctl(s.fd, SIOCGIFMTU, &ifr) != 0)
    return makeError(-errno,
                     "port " + ifname + ": reading its MTU failed: " + std::strerror(errno));
  p.mtu = uint32_t(ifr.ifr_mtu);
  if (ioctl(s.fd, SIOCGIFFLAGS, &ifr) == 0) p.up = (ifr.ifr_flags & IFF_UP) != 0;
  ethtool_channels ch{};
  ch.cmd = ETHTOOL_GCHANNELS;
  ifr.ifr_data = reinterpret_cast<char*>(&ch);
  if (ioctl(s.fd, SIOCETHTOOL, &ifr) == 0)
    p.queues =
        std::max(ch.combined_count, ch.rx_count) ? std::max(ch.combined_count, ch.rx_count) : 1;
  else
    p.queues = 1;
  return p;
}

Status checkPrerequisites(const Config& config) {
  if (geteuid() != 0)
    return makeError(-EPERM,
                     "fastpathd must run as root (it attaches XDP programs and "
                     "creates AF_XDP sockets): run it with sudo");
  if (auto st = checkBpffs(config.mount_bpffs); !st) return st;
  for (size_t i = 0; i < config.ports.size(); ++i) {
    auto p = readPortInfo(config.ports[i], PortId(i));
    if (!p) return p.error();
    if (p->queues < config.queues)
      return makeError(-EINVAL, "port " + p->ifname + " has " + std::to_string(p->queues) +
                                    " queue(s) but --queues is " + std::to_string(config.queues) +
                                    ": lower --queues or add channels (ethtool -L)");
    if (!p->up) pr_warn("port %s is down; frames will flow once it is up", p->ifname.c_str());
  }
  return checkTopologyInterfaces(config.topology,
                                 config.topology_file.empty() ? "topology" : config.topology_file);
}

std::vector<PortNapiThread> findPortNapiThreads(const std::vector<std::string>& ifnames) {
  std::vector<PortNapiThread> out;
  auto found = findNapiThreads(ifnames);
  {
    // Called every second: say how the threads were found (or why not) only on change.
    static std::mutex mu;
    static std::string last;
    std::string now = found ? napiLookupMethodName(found->method) : found.error().message;
    std::lock_guard<std::mutex> lock(mu);
    if (now != last) {
      last = now;
      if (!found)
        pr_warn(
            "%s; NAPI threads are not considered (--rt-priority N sets a fixed priority "
            "instead)",
            now.c_str());
      else if (found->method == NapiLookupMethod::kNetlink)
        pr_info("NAPI threads of the ports: found over netdev netlink (this namespace only)");
      else
        pr_warn(
            "NAPI threads of the ports: found by thread name, the kernel lacks netdev "
            "netlink NAPI_GET (Linux < 6.8); a same-named interface in another network "
            "namespace matches too (give ports unique names or use --rt-priority N|0)");
    }
  }
  if (!found) return out;
  for (pid_t pid : found->pids) {
    const int policy = sched_getscheduler(pid);
    if (policy < 0) continue;  // gone meanwhile
    PortNapiThread t;
    t.realtime = policy == SCHED_FIFO || policy == SCHED_RR;
    t.pid = pid;
    std::ifstream f("/proc/" + std::to_string(pid) + "/comm");
    if (!std::getline(f, t.comm)) continue;  // gone meanwhile
    sched_param sp{};
    if (sched_getparam(pid, &sp) != 0) continue;
    t.priority = t.realtime ? sp.sched_priority : 0;
    CPU_ZERO(&t.cpus);
    if (sched_getaffinity(pid, sizeof(t.cpus), &t.cpus) != 0) continue;
    out.push_back(t);
  }
  return out;
}

std::vector<PortNapiThread> findRtNapiThreads(const std::vector<std::string>& ifnames) {
  std::vector<PortNapiThread> out = findPortNapiThreads(ifnames);
  std::erase_if(out, [](const PortNapiThread& t) { return !t.realtime; });
  return out;
}

}  // namespace fastpath
