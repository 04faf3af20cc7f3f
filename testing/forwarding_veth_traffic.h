// SPDX-License-Identifier: GPL-2.0-only
// Test traffic on veth for fastpathd's tests: 160-byte IPv4/IPv6 UDP frames marked with a
// magic, a bounded AF_PACKET sender and a capture, each in its own thread and namespace.
#pragma once

#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "fastpath/net_types.h"
#include "netns.h"

namespace fastpath::vethtest {

using testing::NetnsGuard;
using testing::Topology;
using Clock = std::chrono::steady_clock;

inline constexpr uint16_t kUdpPort = 9;     // discard
inline constexpr uint32_t kFrameLen = 160;  // 160-byte UDP frames, the thesis's VoIP-sized packets
inline constexpr uint32_t kMagic = 0x46505457;       // "FPTW" in the payload: our frames only
inline const char* kOtherMac = "02:00:00:00:00:99";  // second next hop for the route change

inline MacAddress mac(const std::string& s) { return MacAddress::parse(s).value(); }

inline uint16_t csum16(const uint8_t* p, size_t n, uint32_t sum = 0) {
  for (size_t i = 0; i + 1 < n; i += 2) sum += uint32_t(p[i]) << 8 | p[i + 1];
  if (n & 1) sum += uint32_t(p[n - 1]) << 8;
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return uint16_t(~sum);
}

/// A 160-byte Ethernet/IP/UDP frame with `seq` in the payload.
inline std::vector<uint8_t> buildFrame(const MacAddress& dst, const MacAddress& src, bool v6,
                                       const std::string& sip, const std::string& dip, uint8_t ttl,
                                       uint32_t seq) {
  std::vector<uint8_t> f(kFrameLen, 0);
  std::memcpy(&f[0], dst.bytes.data(), 6);
  std::memcpy(&f[6], src.bytes.data(), 6);
  uint8_t* l3 = &f[14];
  uint8_t* udp;
  if (!v6) {
    f[12] = 0x08, f[13] = 0x00;
    l3[0] = 0x45;
    uint16_t tot = htons(kFrameLen - 14);
    std::memcpy(l3 + 2, &tot, 2);
    l3[8] = ttl;
    l3[9] = IPPROTO_UDP;
    inet_pton(AF_INET, sip.c_str(), l3 + 12);
    inet_pton(AF_INET, dip.c_str(), l3 + 16);
    uint16_t c = htons(csum16(l3, 20));
    std::memcpy(l3 + 10, &c, 2);
    udp = l3 + 20;
  } else {
    f[12] = 0x86, f[13] = 0xdd;
    l3[0] = 0x60;
    uint16_t plen = htons(kFrameLen - 14 - 40);
    std::memcpy(l3 + 4, &plen, 2);
    l3[6] = IPPROTO_UDP;
    l3[7] = ttl;
    inet_pton(AF_INET6, sip.c_str(), l3 + 8);
    inet_pton(AF_INET6, dip.c_str(), l3 + 24);
    udp = l3 + 40;
  }
  uint16_t port = htons(kUdpPort);
  std::memcpy(udp, &port, 2);
  std::memcpy(udp + 2, &port, 2);
  uint16_t ulen = htons(uint16_t(&f[kFrameLen] - udp));
  std::memcpy(udp + 4, &ulen, 2);
  uint32_t m = htonl(kMagic), s = htonl(seq);
  std::memcpy(udp + 8, &m, 4);
  std::memcpy(udp + 12, &s, 4);
  return f;  // UDP checksum 0 (IPv4: none; IPv6 receivers would drop, the capture does not)
}

inline int openPacketSocket(const std::string& ifname, bool rx) {
  int fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, rx ? htons(ETH_P_ALL) : 0);
  if (fd < 0) return -1;
  sockaddr_ll sll{};
  sll.sll_family = AF_PACKET;
  sll.sll_protocol = rx ? htons(ETH_P_ALL) : 0;
  sll.sll_ifindex = int(if_nametoindex(ifname.c_str()));
  if (bind(fd, reinterpret_cast<sockaddr*>(&sll), sizeof(sll)) != 0) {
    close(fd);
    return -1;
  }
  int buf = 16 << 20;
  setsockopt(fd, SOL_SOCKET, rx ? SO_RCVBUFFORCE : SO_SNDBUFFORCE, &buf, sizeof(buf));
  if (!rx) {
    int one = 1;
    setsockopt(fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one));
  }
  return fd;
}

/// Captures our frames arriving at an interface (in its own thread and namespace).
class Capture {
 public:
  Capture(const std::string& ns, const std::string& ifname) {
    std::atomic<bool> ready{false};
    thread_ = std::thread([this, ns, ifname, &ready] {
      NetnsGuard g(ns);
      fd_ = g.ok() ? openPacketSocket(ifname, true) : -1;
      ready = true;
      if (fd_ < 0) return;
      uint8_t buf[2048];
      while (!stop_) {
        pollfd p{fd_, POLLIN, 0};
        if (::poll(&p, 1, 20) <= 0) continue;
        sockaddr_ll from{};
        socklen_t fl = sizeof(from);
        ssize_t n =
            recvfrom(fd_, buf, sizeof(buf), MSG_DONTWAIT, reinterpret_cast<sockaddr*>(&from), &fl);
        if (n < 42 || from.sll_pkttype == PACKET_OUTGOING) continue;
        if (!isOurs(buf, size_t(n))) continue;
        std::lock_guard<std::mutex> l(mu_);
        ++count_;
        // Order of arrival by the sender's sequence number (a repeat counts as out of order).
        const uint32_t seq = sequenceOf(buf, size_t(n));
        if (count_ > 1 && seq <= last_seq_) ++out_of_order_;
        last_seq_ = seq;
        if (frames_.size() < kKeep) frames_.emplace_back(buf, buf + n);
        last_dst_.assign(buf, buf + 6);
        if (std::memcmp(buf, kOther_, 6) == 0) ++other_mac_;
      }
      close(fd_);
    });
    while (!ready) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    MacAddress o = mac(kOtherMac);
    std::memcpy(kOther_, o.bytes.data(), 6);
  }
  ~Capture() { stopNow(); }
  bool ok() const { return fd_ >= 0; }
  void stopNow() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  uint64_t count() {
    std::lock_guard<std::mutex> l(mu_);
    return count_;
  }
  /// Frames whose sequence number was not above the one before (reordered or repeated).
  uint64_t outOfOrder() {
    std::lock_guard<std::mutex> l(mu_);
    return out_of_order_;
  }
  uint64_t otherMacCount() {
    std::lock_guard<std::mutex> l(mu_);
    return other_mac_;
  }
  std::vector<std::vector<uint8_t>> frames() {
    std::lock_guard<std::mutex> l(mu_);
    return frames_;
  }
  /// Waits until `n` frames arrived or `ms` passed.
  bool waitFor(uint64_t n, int ms) {
    auto end = Clock::now() + std::chrono::milliseconds(ms);
    while (Clock::now() < end) {
      if (count() >= n) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return count() >= n;
  }

  /// The sequence number buildFrame() wrote (0 for a frame too short to hold one).
  static uint32_t sequenceOf(const uint8_t* b, size_t n) {
    size_t udp = (b[12] == 0x08 && b[13] == 0x00) ? 14 + size_t(b[14] & 0xf) * 4 : 14 + 40;
    if (n < udp + 16) return 0;
    uint32_t s;
    std::memcpy(&s, b + udp + 12, 4);
    return ntohl(s);
  }

  static bool isOurs(const uint8_t* b, size_t n) {
    size_t udp;
    if (b[12] == 0x08 && b[13] == 0x00)
      udp = 14 + size_t(b[14] & 0xf) * 4;
    else if (b[12] == 0x86 && b[13] == 0xdd)
      udp = 14 + 40;
    else
      return false;
    if (n < udp + 16) return false;
    uint32_t m;
    std::memcpy(&m, b + udp + 8, 4);
    return ntohl(m) == kMagic;
  }

 private:
  static constexpr size_t kKeep = 4096;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  int fd_ = -1;
  std::mutex mu_;
  uint64_t count_ = 0, other_mac_ = 0, out_of_order_ = 0;
  uint32_t last_seq_ = 0;
  uint8_t kOther_[6] = {};
  std::vector<uint8_t> last_dst_;
  std::vector<std::vector<uint8_t>> frames_;
};

struct SendResult {
  uint64_t sent = 0;
  double seconds = 0;
};

/// Sends `count` copies of the frames (round robin, sequence numbers patched) from
/// ns/ifname, at most `pps` per second (0: as fast as possible), for at most `max_ms`.
/// cpu >= 0 pins the sending thread: a packet socket with PACKET_QDISC_BYPASS transmits on
/// queue (cpu % queues) of a device without XPS, which steers frames to a veth RX queue.
inline SendResult sendFrames(const std::string& ns, const std::string& ifname,
                             std::vector<std::vector<uint8_t>> frames, uint64_t count, uint64_t pps,
                             int max_ms, int cpu = -1) {
  SendResult r;
  std::thread t([&] {
    if (cpu >= 0) {
      cpu_set_t set;
      CPU_ZERO(&set);
      CPU_SET(cpu, &set);
      pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
    }
    NetnsGuard g(ns);
    int fd = g.ok() ? openPacketSocket(ifname, false) : -1;
    if (fd < 0) return;
    constexpr unsigned kBatch = 64;
    std::vector<std::vector<uint8_t>> bufs(kBatch);
    mmsghdr msgs[kBatch];
    iovec iov[kBatch];
    auto start = Clock::now();
    auto end = start + std::chrono::milliseconds(max_ms);
    while (r.sent < count && Clock::now() < end) {
      if (pps) {
        double due = std::chrono::duration<double>(Clock::now() - start).count() * double(pps);
        if (double(r.sent) >= due) {
          std::this_thread::sleep_for(std::chrono::microseconds(200));
          continue;
        }
      }
      unsigned n = unsigned(std::min<uint64_t>(kBatch, count - r.sent));
      if (pps) n = std::min(n, 8u);
      for (unsigned i = 0; i < n; ++i) {
        uint64_t seq = r.sent + i;
        bufs[i] = frames[seq % frames.size()];
        std::memset(&msgs[i], 0, sizeof(msgs[i]));
        iov[i] = {bufs[i].data(), bufs[i].size()};
        msgs[i].msg_hdr.msg_iov = &iov[i];
        msgs[i].msg_hdr.msg_iovlen = 1;
      }
      int s = sendmmsg(fd, msgs, n, 0);
      if (s > 0)
        r.sent += uint64_t(s);
      else
        std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
    r.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    close(fd);
  });
  t.join();
  return r;
}

}  // namespace fastpath::vethtest
