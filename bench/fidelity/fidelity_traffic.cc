// SPDX-License-Identifier: GPL-2.0-only
#include "fidelity_traffic.h"

#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>

#include "bench_common.h"
#include "bench_netns.h"

namespace fastpath::fidelity {

namespace {

constexpr uint32_t kMagic = 0x4650464c;  // "FPFL"
constexpr size_t kPayloadOff = 14 + 20 + 8;

std::atomic<bool> g_stop{false};

int packetSocket(const std::string& ifname, bool rx) {
  const uint16_t proto = rx ? htons(ETH_P_IP) : 0;
  int fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, proto);
  if (fd < 0) return -errno;
  sockaddr_ll sll{};
  sll.sll_family = AF_PACKET;
  sll.sll_protocol = proto;
  sll.sll_ifindex = int(if_nametoindex(ifname.c_str()));
  if (bind(fd, reinterpret_cast<sockaddr*>(&sll), sizeof(sll)) != 0) {
    const int err = errno;
    close(fd);
    return -err;
  }
  int buf = 64 << 20;
  setsockopt(fd, SOL_SOCKET, rx ? SO_RCVBUFFORCE : SO_SNDBUFFORCE, &buf, sizeof(buf));
  int one = 1;
  if (rx)
    setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one));
  else
    setsockopt(fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one));
  return fd;
}

}  // namespace

void requestStop() { g_stop.store(true); }
bool stopRequested() { return g_stop.load(std::memory_order_relaxed); }

void sleepMs(int ms) {
  for (int i = 0; i < ms && !g_stop.load(); i += 10)
    std::this_thread::sleep_for(std::chrono::milliseconds(std::min(10, ms - i)));
}

std::vector<uint8_t> frameTemplate(const MacAddress& dst, const MacAddress& src, uint32_t len,
                                   uint16_t flow) {
  std::vector<uint8_t> f(len, 0);
  std::memcpy(&f[0], dst.bytes.data(), 6);
  std::memcpy(&f[6], src.bytes.data(), 6);
  f[12] = 0x08;
  f[13] = 0x00;
  uint8_t* ip = &f[14];
  ip[0] = 0x45;
  const uint16_t tot = htons(uint16_t(len - 14));
  std::memcpy(ip + 2, &tot, 2);
  ip[8] = 64;
  ip[9] = IPPROTO_UDP;
  inet_pton(AF_INET, "198.18.0.2", ip + 12);
  inet_pton(AF_INET, "198.18.1.2", ip + 16);
  const uint16_t c = bench::checksumFinish(bench::checksumAdd(ip, 20, 0), /*udp=*/false);
  std::memcpy(ip + 10, &c, 2);
  uint8_t* udp = ip + 20;
  const uint16_t sport = htons(uint16_t(10000 + flow)), dport = htons(9),
                 ulen = htons(uint16_t(len - 34));
  std::memcpy(udp, &sport, 2);
  std::memcpy(udp + 2, &dport, 2);
  std::memcpy(udp + 4, &ulen, 2);
  const uint32_t m = kMagic, fl = flow;
  std::memcpy(&f[kPayloadOff], &m, 4);
  std::memcpy(&f[kPayloadOff + 4], &fl, 4);
  return f;
}

SendStats sendSchedule(const std::string& ns, const std::string& ifname, int cpu,
                       const std::vector<std::vector<uint8_t>>& templates, const Schedule& sch,
                       uint32_t max_batch, uint64_t seq0, double max_seconds) {
  SendStats r;
  std::thread t([&] {
    bench::pinToCpu(cpu);
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
    bench::EnterNetns g(ns);
    const int fd = g.ok() ? packetSocket(ifname, false) : -ENOENT;
    if (fd < 0) {
      r.error = fd;
      return;
    }
    constexpr uint32_t kMax = 64;
    max_batch = std::clamp(max_batch, 1u, kMax);
    std::vector<std::vector<uint8_t>> bufs(kMax);
    mmsghdr msgs[kMax];
    iovec iov[kMax];
    const size_t n = sch.due_ns.size();
    const uint64_t start = bench::monoNs();
    const uint64_t end = start + uint64_t(max_seconds * 1e9);
    size_t i = 0;
    while (i < n && !stopRequested()) {
      uint64_t now = bench::monoNs();
      if (now > end) break;
      const uint64_t due = start + sch.due_ns[i];
      if (due > now) {
        // One frame at a time (max_batch 1): wake up a little early and spin the rest, a
        // sleeping thread wakes late. Batches: sleep at least 100 us and send what is due
        // then, so that the sender leaves the CPU to the capture between batches.
        uint64_t wake = 0;
        if (max_batch == 1 && due - now > 20000)
          wake = due - 15000;
        else if (max_batch > 1)
          wake = std::max(due, now + 100000);
        if (wake) {
          timespec ts{time_t(wake / 1000000000ull), long(wake % 1000000000ull)};
          clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr);
        }
        continue;
      }
      r.max_lag_ns = std::max(r.max_lag_ns, now - due);
      uint32_t b = 0;
      while (b < max_batch && i + b < n && start + sch.due_ns[i + b] <= now) ++b;
      const uint64_t stamp = bench::realtimeNs();
      for (uint32_t k = 0; k < b; ++k) {
        const uint64_t seq = seq0 + i + k;
        bufs[k] = templates[sch.flow[i + k]];
        std::memcpy(&bufs[k][kPayloadOff + 8], &seq, 8);
        std::memcpy(&bufs[k][kPayloadOff + 16], &stamp, 8);
        std::memset(&msgs[k], 0, sizeof(msgs[k]));
        iov[k] = {bufs[k].data(), bufs[k].size()};
        msgs[k].msg_hdr.msg_iov = &iov[k];
        msgs[k].msg_hdr.msg_iovlen = 1;
      }
      // Every frame is offered once: one the device refuses (ENOBUFS) is counted and the
      // rest of the batch still goes.
      uint32_t done = 0;
      while (done < b) {
        const int s = sendmmsg(fd, msgs + done, b - done, 0);
        ++r.syscalls;
        if (s > 0) {
          done += uint32_t(s);
          r.sent += uint64_t(s);
        } else {
          ++done;
          ++r.refused;
        }
      }
      i += b;
    }
    r.seconds = double(bench::monoNs() - start) * 1e-9;
    close(fd);
  });
  t.join();
  return r;
}

Capture::Capture(const std::string& ns, const std::string& ifname, int cpu, size_t max_records)
    : max_(max_records) {
  records_.reserve(max_records);
  std::atomic<bool> ready{false};
  thread_ = std::thread([this, ns, ifname, cpu, &ready] {
    bench::pinToCpu(cpu);
    bench::EnterNetns g(ns);
    fd_ = g.ok() ? packetSocket(ifname, true) : -ENOENT;
    ready = true;
    if (fd_ >= 0) loop();
  });
  while (!ready) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

void Capture::stop() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
  if (fd_ >= 0) close(fd_);
  fd_ = -EBADF;
}

void Capture::loop() {
  constexpr unsigned kBatch = 64;
  constexpr size_t kSnap = 96;  // headers and our payload; MSG_TRUNC gives the length
  uint8_t bufs[kBatch][kSnap];
  alignas(cmsghdr) uint8_t ctl[kBatch][CMSG_SPACE(sizeof(timespec)) + 64];
  sockaddr_ll from[kBatch];
  iovec iov[kBatch];
  mmsghdr msgs[kBatch];
  for (;;) {
    pollfd p{fd_, POLLIN, 0};
    const int pr = ::poll(&p, 1, 10);
    if (pr <= 0) {
      if (stop_) return;
      continue;
    }
    for (unsigned k = 0; k < kBatch; ++k) {
      iov[k] = {bufs[k], kSnap};
      std::memset(&msgs[k], 0, sizeof(msgs[k]));
      msgs[k].msg_hdr.msg_iov = &iov[k];
      msgs[k].msg_hdr.msg_iovlen = 1;
      msgs[k].msg_hdr.msg_name = &from[k];
      msgs[k].msg_hdr.msg_namelen = sizeof(from[k]);
      msgs[k].msg_hdr.msg_control = ctl[k];
      msgs[k].msg_hdr.msg_controllen = sizeof(ctl[k]);
    }
    const int n = recvmmsg(fd_, msgs, kBatch, MSG_DONTWAIT | MSG_TRUNC, nullptr);
    if (n <= 0) continue;
    for (int k = 0; k < n; ++k) {
      const uint8_t* b = bufs[k];
      const uint32_t len = msgs[k].msg_len;
      if (from[k].sll_pkttype == PACKET_OUTGOING || len < kPayloadOff + 24) continue;
      uint32_t m;
      std::memcpy(&m, b + kPayloadOff, 4);
      if (m != kMagic || b[12] != 0x08 || b[13] != 0x00 || (b[14] & 0xf) != 5) continue;
      Record r{};
      uint32_t flow;
      std::memcpy(&flow, b + kPayloadOff + 4, 4);
      std::memcpy(&r.seq, b + kPayloadOff + 8, 8);
      std::memcpy(&r.send_ns, b + kPayloadOff + 16, 8);
      r.flow = uint16_t(flow);
      r.len = len;
      r.recv_ns = 0;
      for (cmsghdr* c = CMSG_FIRSTHDR(&msgs[k].msg_hdr); c; c = CMSG_NXTHDR(&msgs[k].msg_hdr, c))
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
          timespec ts;
          std::memcpy(&ts, CMSG_DATA(c), sizeof(ts));
          r.recv_ns = uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
        }
      if (!r.recv_ns) {
        r.recv_ns = bench::realtimeNs();
        ++no_ts_;
      }
      if (r.flow == kWarmupFlow) {
        ++warmup_;
        continue;
      }
      if (records_.size() < max_)
        records_.push_back(r);
      else
        ++overflow_;
      count_.fetch_add(1, std::memory_order_relaxed);
    }
  }
}

}  // namespace fastpath::fidelity
