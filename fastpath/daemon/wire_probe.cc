// SPDX-License-Identifier: GPL-2.0-only
#include "daemon/wire_probe.h"

#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstring>
#include <sys/ioctl.h>

#include "fastpath/log.h"
#include "fastpath/monotonic_clock.h"
#include "fp_abi.h"

namespace fastpath {
namespace {

constexpr char kMagic[4] = {'F', 'P', 'W', 'P'};
constexpr uint8_t kRequest = 1, kReply = 2;

/// The probe after the Ethernet header. Names are NUL-padded; times are each sender's
/// CLOCK_MONOTONIC (only differences of one clock are ever taken).
struct ProbeMsg {
  char magic[4];
  uint8_t version, type;
  uint16_t pad;
  char tag[8];
  char from[32];
  char to[32];
  uint64_t seq;
  uint64_t t1;  ///< requester: sent
  uint64_t t2;  ///< responder: received
  uint64_t t3;  ///< responder: sent
};

/// The frame: Ethernet header, 2 bytes of padding (so that msg is aligned), the probe.
struct ProbeFrame {
  uint8_t dst[6], src[6];
  uint16_t ethertype;
  uint16_t pad;
  ProbeMsg msg;
};
static_assert(offsetof(ProbeFrame, msg) == 16, "the probe follows the header and padding");

template <size_t N>
void putName(char (&out)[N], const std::string& s) {
  std::memset(out, 0, N);
  std::memcpy(out, s.data(), std::min(s.size(), N - 1));
}

template <size_t N>
bool isName(const char (&in)[N], const std::string& s) {
  return s.size() < N && std::strncmp(in, s.c_str(), N) == 0;
}

}  // namespace

WireLatency summariseRoundTrips(std::vector<uint64_t> rtt) {
  WireLatency w;
  w.samples = rtt.size();
  if (rtt.empty()) return w;
  std::sort(rtt.begin(), rtt.end());
  auto at = [&](double q) { return rtt[size_t(q * double(rtt.size() - 1))]; };
  w.one_way_ns = at(0.5) / 2;
  w.min_ns = rtt.front() / 2;
  w.jitter_ns = (at(0.9) - at(0.1)) / 2;
  return w;
}

Result<std::unique_ptr<WireProbe>> WireProbe::open(const std::string& ifname,
                                                   const std::string& tag,
                                                   const std::string& host,
                                                   const std::string& peer,
                                                   const UdpProbe* udp) {
  std::unique_ptr<WireProbe> p(new WireProbe());
  p->ifname_ = ifname;
  p->tag_ = tag;
  p->host_ = host;
  p->peer_ = peer;
  p->ifindex_ = int(if_nametoindex(ifname.c_str()));
  if (!p->ifindex_)
    return makeError(-ENODEV, "wire " + ifname + " to host " + peer +
                                  ": no such interface in this network namespace");
  if (udp) return openUdp(std::move(p), *udp);
  p->fd_ = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(FP_ETH_P_WIRE_PROBE));
  if (p->fd_ < 0)
    return makeError(-errno, "wire " + ifname + ": cannot open the probe socket (" +
                                 strerror(errno) + ")");
  ifreq ifr{};
  std::strncpy(ifr.ifr_name, ifname.c_str(), IFNAMSIZ - 1);
  if (ioctl(p->fd_, SIOCGIFHWADDR, &ifr) != 0) {
    const int err = errno;
    return makeError(-err, "wire " + ifname + ": cannot read its MAC address");
  }
  std::memcpy(p->mac_, ifr.ifr_hwaddr.sa_data, 6);
  sockaddr_ll sll{};
  sll.sll_family = AF_PACKET;
  sll.sll_protocol = htons(FP_ETH_P_WIRE_PROBE);
  sll.sll_ifindex = p->ifindex_;
  if (bind(p->fd_, reinterpret_cast<sockaddr*>(&sll), sizeof(sll)) != 0) {
    int err = errno;
    return makeError(-err, "wire " + ifname + ": cannot bind the probe socket (" +
                               strerror(err) + ")");
  }
  p->thread_ = std::thread([q = p.get()] { q->loop(); });
  return p;
}

Result<std::unique_ptr<WireProbe>> WireProbe::openUdp(std::unique_ptr<WireProbe> p,
                                                      const UdpProbe& udp) {
  const std::string what = "wire " + p->ifname_ + " to host " + p->peer_;
  p->udp_ = true;
  p->udp_to_ = udp;
  p->fd_ = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (p->fd_ < 0)
    return makeError(-errno, what + ": cannot open the probe socket (" + strerror(errno) + ")");
  const int one = 1;
  setsockopt(p->fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(udp.port);
  sa.sin_addr.s_addr = udp.local;
  if (bind(p->fd_, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) != 0) {
    const int err = errno;
    char a[INET_ADDRSTRLEN] = "?";
    inet_ntop(AF_INET, &udp.local, a, sizeof(a));
    return makeError(-err, what + ": cannot bind the probe socket to " + a + " port " +
                               std::to_string(udp.port) + " (" + strerror(err) + ")" +
                               (err == EADDRNOTAVAIL ? ": the underlay address is not this "
                                                       "host's: add it to " + p->ifname_
                                                     : std::string()));
  }
  p->thread_ = std::thread([q = p.get()] { q->loop(); });
  return p;
}

WireProbe::~WireProbe() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
  if (fd_ >= 0) close(fd_);
}

void WireProbe::send(uint8_t type, uint64_t seq, uint64_t t1, uint64_t t2,
                     const uint8_t* to_mac) {
  ProbeFrame f{};
  std::memcpy(f.dst, to_mac, 6);
  std::memcpy(f.src, mac_, 6);
  f.ethertype = htons(FP_ETH_P_WIRE_PROBE);
  std::memcpy(f.msg.magic, kMagic, 4);
  f.msg.version = 1;
  f.msg.type = type;
  putName(f.msg.tag, tag_);
  putName(f.msg.from, host_);
  putName(f.msg.to, peer_);
  f.msg.seq = seq;
  f.msg.t1 = t1;
  f.msg.t2 = t2;
  f.msg.t3 = monotonicNs();
  sockaddr_ll to{};
  to.sll_family = AF_PACKET;
  to.sll_ifindex = ifindex_;
  to.sll_halen = 6;
  std::memcpy(to.sll_addr, to_mac, 6);
  if (udp_) {
    sockaddr_in in{};
    in.sin_family = AF_INET;
    in.sin_port = htons(udp_to_.port);
    in.sin_addr.s_addr = udp_to_.remote;
    (void)sendto(fd_, &f, sizeof(f), 0, reinterpret_cast<sockaddr*>(&in), sizeof(in));
    return;
  }
  (void)sendto(fd_, &f, sizeof(f), 0, reinterpret_cast<sockaddr*>(&to), sizeof(to));
}

void WireProbe::loop() {
  ProbeFrame f{};
  while (!stop_) {
    pollfd pfd{fd_, POLLIN, 0};
    if (poll(&pfd, 1, 100) <= 0) continue;
    sockaddr_storage from{};
    socklen_t len = sizeof(from);
    const ssize_t n = recvfrom(fd_, &f, sizeof(f), 0, reinterpret_cast<sockaddr*>(&from), &len);
    const uint64_t now = monotonicNs();
    if (n < 0) continue;
    if (!udp_ && reinterpret_cast<sockaddr_ll&>(from).sll_pkttype == PACKET_OUTGOING) continue;
    const bool stranger =
        udp_ && reinterpret_cast<sockaddr_in&>(from).sin_addr.s_addr != udp_to_.remote;
    const ProbeMsg& m = f.msg;
    if (stranger || size_t(n) < sizeof(f) || std::memcmp(m.magic, kMagic, 4) || m.version != 1 ||
        !isName(m.tag, tag_) || !isName(m.from, peer_) || !isName(m.to, host_)) {
      foreign_++;
      continue;
    }
    if (m.type == kRequest) {
      answered_++;
      send(kReply, m.seq, m.t1, now, f.src);
    } else if (m.type == kReply && now >= m.t1 && m.t3 >= m.t2) {
      // The round trip less the time the peer held the probe.
      const uint64_t rtt = now - m.t1, held = m.t3 - m.t2;
      std::lock_guard<std::mutex> g(mu_);
      rtt_.push_back(held < rtt ? rtt - held : 0);
      cv_.notify_all();
    }
  }
}

Result<WireLatency> WireProbe::measure(uint32_t wait_ms, int count) {
  static const uint8_t kBroadcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
  using std::chrono::milliseconds;
  const auto deadline = std::chrono::steady_clock::now() + milliseconds(wait_ms);
  uint64_t seq = 0;
  {
    std::unique_lock<std::mutex> g(mu_);
    rtt_.clear();
    while (rtt_.empty() && std::chrono::steady_clock::now() < deadline) {
      g.unlock();
      send(kRequest, seq++, monotonicNs(), 0, kBroadcast);
      g.lock();
      cv_.wait_for(g, milliseconds(50), [&] { return !rtt_.empty(); });
    }
    if (rtt_.empty())
      return makeError(-ETIMEDOUT,
                       "wire " + ifname_ + " to host " + peer_ + ": no answer from " + peer_ +
                           "'s fastpathd in " + std::to_string(wait_ms) +
                           " ms: start it with the same topology, --host-name " + peer_ +
                           " and --run-tag " + tag_ + " (or check the wire; --wire-wait)");
    rtt_.clear();
  }
  for (int i = 0; i < count; ++i) {
    send(kRequest, seq++, monotonicNs(), 0, kBroadcast);
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  std::unique_lock<std::mutex> g(mu_);
  cv_.wait_for(g, milliseconds(200), [&] { return rtt_.size() >= size_t(count); });
  return summariseRoundTrips(rtt_);
}

}  // namespace fastpath
