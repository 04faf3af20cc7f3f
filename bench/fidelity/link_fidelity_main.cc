// SPDX-License-Identifier: GPL-2.0-only
// fp-link-fidelity: what fastpathd's link emulation does to real frames, against what it was
// configured to do. S -- R -- D in network namespaces (veth); in R one fastpathd (linked
// in-process, as the tests do) with nodes n1 (fp0, facing S) and n2 (fp1, facing D) joined
// by link l1, emulated in the direction n1 -> n2. S sends UDP frames carrying a flow, a
// sequence number and a CLOCK_REALTIME send stamp; D captures them on a packet socket with
// the kernel's receive stamp (SO_TIMESTAMPNS, taken when R's transmission enters D). Each
// scenario runs on a freshly started daemon (the worker's lateness histogram counts only its
// frames) and writes every received frame plus the daemon's counters; a last probe without
// traffic measures how late a thread like the worker wakes from ppoll(). The analysis
// (errors, throughput, loss intervals, plots) is bench/fidelity/link_fidelity.py's.
//
// Every traffic loop is bounded in frames and in time; SIGINT/SIGTERM stop the run between
// frames, and the namespaces and the daemon are removed on every way out.
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/net_tstamp.h>
#include <net/if.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "daemon/daemon.h"
#include "daemon/napi_threads.h"
#include "fastpath/link_params.h"
#include "netns.h"

namespace fastpath::fidelity {
namespace {

std::atomic<bool> g_stop{false};
void onSignal(int) { g_stop.store(true); }

constexpr uint32_t kMagic = 0x4650464c;  // "FPFL"
constexpr size_t kPayloadOff = 14 + 20 + 8;
constexpr uint16_t kWarmupFlow = 0xffff;
const char* kLinkName = "l1";

uint64_t nowNs(clockid_t c) {
  timespec ts;
  clock_gettime(c, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

void pinThread(int cpu) {
  if (cpu < 0) return;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

void sleepMs(int ms) {
  for (int i = 0; i < ms && !g_stop.load(); i += 10)
    std::this_thread::sleep_for(std::chrono::milliseconds(std::min(10, ms - i)));
}

// ---------------------------------------------------------------------------------------
// Scenarios

struct Scenario {
  std::string name;
  std::string kind;                // baseline, delay, rate, loss, gemodel, flows
  std::vector<std::string> words;  // link parameters of n1 -> n2; empty: no emulation
  uint32_t frame_len = 160;        // Ethernet frame without FCS, as the link model counts it
  double pps = 1000;               // offered, all flows together
  uint64_t frames = 0;
  uint32_t flows = 1;
  enum class Pattern { kPoisson, kPeriodic, kRandomPhase } pattern = Pattern::kPeriodic;
  uint32_t max_batch = 1;  // frames per sendmmsg() when several are due at once
};

std::vector<Scenario> allScenarios(double scale) {
  auto n = [scale](double frames) { return uint64_t(std::max(50.0, std::round(frames * scale))); };
  std::vector<Scenario> v;
  // Light load: Poisson arrivals at 1,000 frames/s (no phase lock between sending and the
  // delay), 160-byte frames; the same for the 1,470-byte baseline of the flows scenario.
  for (uint32_t len : {160u, 1470u}) {
    Scenario s;
    s.name = "baseline-" + std::to_string(len);
    s.kind = "baseline";
    s.frame_len = len;
    s.pps = 1000;
    s.frames = n(10000);
    s.pattern = Scenario::Pattern::kPoisson;
    v.push_back(s);
  }
  for (const char* d : {"100us", "1ms", "10ms", "100ms"}) {
    Scenario s;
    s.name = std::string("delay-") + d;
    s.kind = "delay";
    s.words = {"delay", d};
    s.frame_len = 160;
    s.pps = 1000;
    s.frames = n(10000);
    s.pattern = Scenario::Pattern::kPoisson;
    v.push_back(s);
  }
  // Rate: 1,470-byte frames offered at 1.2x the rate (frame + 24 bytes of Ethernet
  // overhead, as configured), delay 1 ms. The drop-tail queue holds 50 ms of the link (at
  // least ns-3's 100 frames), so that a sender descheduled for a few milliseconds on the
  // shared CPU does not leave the link idle: what D receives is then the link's rate.
  for (auto [r, bps] :
       {std::pair{"1mbit", 1e6}, {"10mbit", 1e7}, {"100mbit", 1e8}, {"1gbit", 1e9}}) {
    Scenario s;
    s.name = std::string("rate-") + r;
    s.kind = "rate";
    const uint64_t limit = std::max<uint64_t>(100, uint64_t(0.05 * bps / ((1470 + 24) * 8.0)));
    s.words = {"rate", r, "overhead", "24", "delay", "1ms", "limit", std::to_string(limit)};
    s.frame_len = 1470;
    s.pps = 1.2 * bps / ((1470 + 24) * 8.0);
    s.frames = n(std::ceil(s.pps * 4.0));  // 4 s
    s.max_batch = 32;
    v.push_back(s);
  }
  for (const char* l : {"0.1%", "1%", "10%"}) {
    Scenario s;
    s.name = std::string("loss-") + l;
    s.kind = "loss";
    s.words = {"loss", l, "seed", "1"};
    s.frame_len = 160;
    s.pps = 50000;
    s.frames = n(100000);
    s.max_batch = 32;
    v.push_back(s);
  }
  {
    Scenario s;
    s.name = "gemodel-1%-25%";
    s.kind = "gemodel";
    s.words = {"gemodel", "1%", "25%", "seed", "1"};
    s.frame_len = 160;
    s.pps = 50000;
    s.frames = n(200000);
    s.max_batch = 32;
    v.push_back(s);
  }
  {
    // 16 flows, each periodic at 1/16 of 90 % of the rate, phases drawn at random.
    Scenario s;
    s.name = "flows16-100mbit";
    s.kind = "flows";
    s.words = {"rate", "100mbit", "overhead", "24", "delay", "10ms"};
    s.frame_len = 1470;
    s.flows = 16;
    s.pps = 0.9 * 1e8 / ((1470 + 24) * 8.0);
    s.frames = n(std::ceil(s.pps * 5.0));  // 5 s
    s.pattern = Scenario::Pattern::kRandomPhase;
    v.push_back(s);
  }
  {
    // No traffic: how late a thread like the worker (its CPU, its priority, timer slack 1 ns)
    // wakes from ppoll() with a timeout, which is how the worker waits for an emulated
    // arrival more than emulation_spin_ns (50 us) away: it sleeps until 25 us before it.
    Scenario s;
    s.name = "timer-wakeup";
    s.kind = "timer";
    s.frames = n(3000);
    s.pps = 0;
    v.push_back(s);
  }
  return v;
}

struct Schedule {
  std::vector<uint64_t> due_ns;  // from the start of sending
  std::vector<uint16_t> flow;
};

Schedule makeSchedule(const Scenario& s) {
  Schedule out;
  out.due_ns.reserve(s.frames);
  out.flow.reserve(s.frames);
  std::mt19937_64 rng(0x66696465 + s.frames);
  const double gap = 1e9 / s.pps;
  switch (s.pattern) {
    case Scenario::Pattern::kPeriodic:
      for (uint64_t i = 0; i < s.frames; ++i) {
        out.due_ns.push_back(uint64_t(double(i) * gap));
        out.flow.push_back(uint16_t(i % s.flows));
      }
      break;
    case Scenario::Pattern::kPoisson: {
      std::exponential_distribution<double> e(1.0 / gap);
      double t = 0;
      for (uint64_t i = 0; i < s.frames; ++i) {
        out.due_ns.push_back(uint64_t(t));
        out.flow.push_back(uint16_t(i % s.flows));
        t += e(rng);
      }
      break;
    }
    case Scenario::Pattern::kRandomPhase: {
      const double period = gap * s.flows;
      std::uniform_real_distribution<double> u(0, period);
      std::vector<std::pair<uint64_t, uint16_t>> all;
      const uint64_t per_flow = s.frames / s.flows;
      for (uint32_t f = 0; f < s.flows; ++f) {
        const double phase = u(rng);
        for (uint64_t k = 0; k < per_flow; ++k)
          all.emplace_back(uint64_t(phase + double(k) * period), uint16_t(f));
      }
      std::sort(all.begin(), all.end());
      for (const auto& [t, f] : all) {
        out.due_ns.push_back(t);
        out.flow.push_back(f);
      }
      break;
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// Frames

uint16_t ipChecksum(const uint8_t* p, size_t n) {
  uint32_t sum = 0;
  for (size_t i = 0; i + 1 < n; i += 2) sum += uint32_t(p[i]) << 8 | p[i + 1];
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return uint16_t(~sum);
}

// IPv4/UDP 198.18.0.2:10000+flow -> 198.18.1.2:9; payload {magic, flow, seq, send_ns}.
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
  const uint16_t c = htons(ipChecksum(ip, 20));
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

// ---------------------------------------------------------------------------------------
// Sender (S) and capture (D), each a thread in its namespace

struct SendStats {
  uint64_t sent = 0, refused = 0, syscalls = 0;
  uint64_t max_lag_ns = 0;  // how late the sender was against its schedule, at most
  double seconds = 0;
  int error = 0;
};

SendStats sendSchedule(const std::string& ns, const std::string& ifname, int cpu,
                       const std::vector<std::vector<uint8_t>>& templates, const Schedule& sch,
                       uint32_t max_batch, uint64_t seq0, double max_seconds) {
  SendStats r;
  std::thread t([&] {
    pinThread(cpu);
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
    testing::NetnsGuard g(ns);
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
    const uint64_t start = nowNs(CLOCK_MONOTONIC);
    const uint64_t end = start + uint64_t(max_seconds * 1e9);
    size_t i = 0;
    while (i < n && !g_stop.load(std::memory_order_relaxed)) {
      uint64_t now = nowNs(CLOCK_MONOTONIC);
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
      const uint64_t stamp = nowNs(CLOCK_REALTIME);
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
    r.seconds = double(nowNs(CLOCK_MONOTONIC) - start) * 1e-9;
    close(fd);
  });
  t.join();
  return r;
}

struct Record {
  uint64_t seq, send_ns, recv_ns;
  uint32_t len;
  uint16_t flow;
};

class Capture {
 public:
  Capture(const std::string& ns, const std::string& ifname, int cpu, size_t max_records)
      : max_(max_records) {
    records_.reserve(max_records);
    std::atomic<bool> ready{false};
    thread_ = std::thread([this, ns, ifname, cpu, &ready] {
      pinThread(cpu);
      testing::NetnsGuard g(ns);
      fd_ = g.ok() ? packetSocket(ifname, true) : -ENOENT;
      ready = true;
      if (fd_ >= 0) loop();
    });
    while (!ready) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~Capture() { stop(); }
  int error() const { return fd_ < 0 ? fd_ : 0; }
  uint64_t count() const { return count_.load(); }
  void stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    if (fd_ >= 0) close(fd_);
    fd_ = -EBADF;
  }
  const std::vector<Record>& records() const { return records_; }
  uint64_t noTimestamp() const { return no_ts_; }
  uint64_t overflow() const { return overflow_; }
  uint64_t warmup() const { return warmup_; }

 private:
  void loop() {
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
          r.recv_ns = nowNs(CLOCK_REALTIME);
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

  size_t max_;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> count_{0};
  int fd_ = -EBADF;
  std::vector<Record> records_;
  uint64_t no_ts_ = 0, overflow_ = 0, warmup_ = 0;
};

// ---------------------------------------------------------------------------------------
// The daemon in R

struct Testbed {
  std::unique_ptr<testing::Topology> topo;
  std::string s, r, d;
  MacAddress s_mac, r0_mac, d_mac;
};

Config daemonConfig(const Testbed& tb, int worker_cpu, int rt_priority, int idle_poll_us) {
  Config c;
  c.topology.nodes.resize(2);
  auto& n1 = c.topology.nodes[0];
  auto& n2 = c.topology.nodes[1];
  n1.spec.name = "n1";
  n1.interfaces = {"fp0"};
  n2.spec.name = "n2";
  n2.interfaces = {"fp1"};
  auto route = [](const std::string& prefix, const std::string& via, const std::string& dev) {
    RouteConfig rc;
    rc.prefix = IpPrefix::parse(prefix).value();
    if (!via.empty()) rc.via = IpAddress::parse(via).value();
    rc.dev = dev;
    return rc;
  };
  const MacAddress l1a = MacAddress::parse("02:66:69:00:00:01").value();
  const MacAddress l1b = MacAddress::parse("02:66:69:00:00:02").value();
  n1.routes = {route("198.18.1.0/24", "198.19.0.2", kLinkName)};
  n1.neighbours = {NeighbourConfig{IpAddress::parse("198.19.0.2").value(), l1b, kLinkName}};
  n2.routes = {route("198.18.1.0/24", "", "fp1")};
  n2.neighbours = {NeighbourConfig{IpAddress::parse("198.18.1.2").value(), tb.d_mac, "fp1"}};
  c.topology.links.resize(1);
  LinkSpec& l = c.topology.links[0].spec;
  l.name = kLinkName;
  l.a = LinkEndSpec{"n1", kLinkName, l1a, 1500};
  l.b = LinkEndSpec{"n2", kLinkName, l1b, 1500};
  c.control_socket = "/tmp/fp-fid-" + std::to_string(getpid()) + ".sock";
  c.cores = {worker_cpu};
  c.rt_priority = rt_priority;
  if (idle_poll_us >= 0) c.idle_poll_us = uint32_t(idle_poll_us);
  c.log_level = LogLevel::kError;  // libbpf's notes on every start would drown the output
  return c;
}

LinkInfo linkInfo(Daemon& d) {
  for (const auto& l : d.links())
    if (l.name == kLinkName) return l;
  return {};
}

// ---------------------------------------------------------------------------------------
// Output

std::string jsonEscape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    if (uint8_t(c) < 0x20) continue;
    o += c;
  }
  return o;
}

class JsonObject {
 public:
  JsonObject& num(const std::string& k, double v) {
    char b[64];
    if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 9e15)
      std::snprintf(b, sizeof(b), "%.0f", v);
    else
      std::snprintf(b, sizeof(b), "%.9g", std::isfinite(v) ? v : 0.0);
    return raw(k, b);
  }
  JsonObject& str(const std::string& k, const std::string& v) {
    return raw(k, "\"" + jsonEscape(v) + "\"");
  }
  JsonObject& raw(const std::string& k, const std::string& v) {
    s_ += (s_.empty() ? "{" : ", ") + ("\"" + jsonEscape(k) + "\": ") + v;
    return *this;
  }
  std::string done() const { return s_.empty() ? "{}" : s_ + "}"; }

 private:
  std::string s_;
};

JsonObject directionJson(const LinkDirectionStats& a, const LinkDirectionStats& b) {
  // Counters as deltas over the scenario (b - a); depth and sojourn as read at the end.
  JsonObject o;
  o.num("tx_packets", double(b.tx_packets - a.tx_packets))
      .num("tx_bytes", double(b.tx_bytes - a.tx_bytes))
      .num("enqueued", double(b.enqueued - a.enqueued))
      .num("delivered", double(b.delivered - a.delivered))
      .num("queue_drops", double(b.queue_drops - a.queue_drops))
      .num("loss_drops", double(b.loss_drops - a.loss_drops))
      .num("full_drops", double(b.full_drops - a.full_drops))
      .num("link_down_drops", double(b.link_down_drops - a.link_down_drops))
      .num("in_flight_end", double(b.in_flight))
      .num("depth_packets_end", double(b.depth_packets))
      .num("sojourn_p50_ns", double(b.sojourn_p50_ns))
      .num("sojourn_p99_ns", double(b.sojourn_p99_ns))
      .num("sojourn_max_ns", double(b.sojourn_max_ns));
  return o;
}

std::string countersJson(const std::vector<CounterSet>& sets, bool nonzero_only) {
  JsonObject o;
  for (const auto& cs : sets) {
    JsonObject c;
    for (const auto& [k, v] : cs.counters)
      if (!nonzero_only || v) c.num(k, double(v));
    o.raw(cs.scope, c.done());
  }
  return o.done();
}

// ---------------------------------------------------------------------------------------
// One scenario

struct Options {
  std::string out;
  int worker_cpu = 1;
  int traffic_cpu = 0;
  int rt_priority = Config::kRtAuto;
  int idle_poll_us = -1;  // -1: fastpathd's default
  int napi_rt = 50;       // R's veth NAPI threaded at SCHED_FIFO N on the worker's CPU; 0: softirq
  std::vector<std::string> only;  // kinds or names; empty: all
  double scale = 1.0;
};

bool writeFrames(const std::string& path, const std::vector<Record>& recs, uint64_t t0) {
  FILE* f = std::fopen(path.c_str(), "w");
  if (!f) return false;
  std::fprintf(f, "seq,flow,len,send_ns,recv_ns\n");
  for (const Record& r : recs)
    std::fprintf(f, "%llu,%u,%u,%lld,%lld\n", (unsigned long long)r.seq, unsigned(r.flow), r.len,
                 (long long)(r.send_ns - t0), (long long)(r.recv_ns - t0));
  return std::fclose(f) == 0;
}

// The timer wake-up probe: `sc.frames` sleeps of 100 us .. 2 ms (uniform) in ppoll() on the
// worker's CPU with the worker's scheduling; lateness = woken - asked.
Status runTimerProbe(const Options& opt, const Scenario& sc, std::ofstream& jsonl) {
  std::printf("== %s: %llu ppoll() sleeps of 100 us .. 2 ms on CPU %d, %s\n", sc.name.c_str(),
              (unsigned long long)sc.frames, opt.worker_cpu,
              opt.rt_priority > 0 ? ("SCHED_FIFO " + std::to_string(opt.rt_priority)).c_str()
                                  : "normal scheduling (as the worker at --rt-priority auto here)");
  std::vector<uint64_t> late;
  late.reserve(sc.frames);
  int sched_err = 0;
  std::thread t([&] {
    pinThread(opt.worker_cpu);
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
    if (opt.rt_priority > 0) {
      sched_param sp{};
      sp.sched_priority = opt.rt_priority;
      sched_err = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
    }
    std::mt19937_64 rng(7);
    std::uniform_int_distribution<uint64_t> u(100000, 2000000);
    const uint64_t end = nowNs(CLOCK_MONOTONIC) + uint64_t(sc.frames) * 2100000ull + 1000000000ull;
    for (uint64_t i = 0; i < sc.frames && !g_stop.load(std::memory_order_relaxed); ++i) {
      const uint64_t d = u(rng), start = nowNs(CLOCK_MONOTONIC);
      if (start > end) break;
      const timespec ts{time_t(d / 1000000000ull), long(d % 1000000000ull)};
      ppoll(nullptr, 0, &ts, nullptr);
      late.push_back(nowNs(CLOCK_MONOTONIC) - (start + d));
    }
  });
  t.join();
  if (sched_err)
    return makeError(-sched_err,
                     "timer probe: SCHED_FIFO refused: " + std::string(std::strerror(sched_err)));
  const std::string file = "timer-" + sc.name + ".csv";
  FILE* f = std::fopen((opt.out + "/" + file).c_str(), "w");
  if (!f) return makeError(-errno, "cannot write " + opt.out + "/" + file);
  std::fprintf(f, "late_ns\n");
  for (uint64_t x : late) std::fprintf(f, "%llu\n", (unsigned long long)x);
  std::fclose(f);
  JsonObject j;
  j.str("name", sc.name)
      .str("kind", sc.kind)
      .num("samples", double(late.size()))
      .num("cpu", opt.worker_cpu)
      .num("rt_priority", opt.rt_priority > 0 ? opt.rt_priority : 0)
      .num("interrupted", g_stop.load() ? 1 : 0)
      .str("timer_file", file);
  jsonl << j.done() << "\n";
  jsonl.flush();
  std::vector<uint64_t> sorted = late;
  std::sort(sorted.begin(), sorted.end());
  if (!sorted.empty())
    std::printf("   wake-up lateness p50 %.1f us, p99 %.1f us, max %.1f us\n",
                double(sorted[sorted.size() / 2]) / 1e3,
                double(sorted[std::min(sorted.size() - 1, sorted.size() * 99 / 100)]) / 1e3,
                double(sorted.back()) / 1e3);
  std::fflush(stdout);
  return {};
}

Status runScenario(const Options& opt, Testbed& tb, const Scenario& sc, std::ofstream& jsonl) {
  if (sc.kind == "timer") return runTimerProbe(opt, sc, jsonl);
  std::string words;
  for (const auto& x : sc.words) words += (words.empty() ? "" : " ") + x;
  std::printf("== %s: %s, %u-byte frames, %.0f frames/s, %llu frames, %u flow(s)\n",
              sc.name.c_str(), words.empty() ? "no emulation" : words.c_str(), sc.frame_len, sc.pps,
              (unsigned long long)sc.frames, sc.flows);
  std::fflush(stdout);
  LinkParams params;
  if (auto st = applyLinkParamWords(sc.words, &params); !st)
    return makeError(st.error().code, sc.name + ": " + st.error().message);

  // A fresh daemon: the worker's lateness histogram then holds this scenario's frames only.
  const uint64_t t_start = nowNs(CLOCK_MONOTONIC);
  testing::NetnsGuard guard(tb.r);
  if (!guard.ok()) return makeError(-ENOENT, "cannot enter namespace " + tb.r);
  auto daemon =
      std::make_unique<Daemon>(daemonConfig(tb, opt.worker_cpu, opt.rt_priority, opt.idle_poll_us));
  if (auto st = daemon->start(); !st)
    return makeError(st.error().code, "fastpathd did not start: " + st.error().message);
  // R's receive work as the bench harness places it: threaded NAPI (a veth has one while
  // XDP is attached) on the worker's CPU at SCHED_FIFO, the precedence softirq has without
  // threading; in softirq it would wait behind whatever runs on the sender's CPU.
  std::vector<pid_t> napi;
  if (opt.napi_rt > 0) {
    for (const char* ifn : {"fp0", "fp1"})
      tb.topo->exec(tb.r, std::string("sh -c 'echo 1 > /sys/class/net/") + ifn + "/threaded'");
    if (auto t = findNapiThreads({"fp0", "fp1"}); t) napi = t->pids;
    for (pid_t pid : napi) {
      cpu_set_t set;
      CPU_ZERO(&set);
      CPU_SET(opt.worker_cpu, &set);
      sched_setaffinity(pid, sizeof(set), &set);
      sched_param sp{};
      sp.sched_priority = opt.napi_rt;
      sched_setscheduler(pid, SCHED_FIFO, &sp);
    }
  }
  if (opt.rt_priority == Config::kRtAuto) daemon->adjustRtPriority();  // as run() does each second
  const double start_s = double(nowNs(CLOCK_MONOTONIC) - t_start) * 1e-9;

  std::vector<std::vector<uint8_t>> templates;
  for (uint32_t f = 0; f < sc.flows; ++f)
    templates.push_back(frameTemplate(tb.r0_mac, tb.s_mac, sc.frame_len, uint16_t(f)));
  // Warm-up through the unshaped link (first-touch costs, the worker awake once).
  {
    Schedule w;
    for (int i = 0; i < 50; ++i) {
      w.due_ns.push_back(uint64_t(i) * 200000);
      w.flow.push_back(0);
    }
    std::vector<std::vector<uint8_t>> wt = {
        frameTemplate(tb.r0_mac, tb.s_mac, sc.frame_len, kWarmupFlow)};
    sendSchedule(tb.s, "s0", opt.traffic_cpu, wt, w, 1, 0, 2.0);
    sleepMs(50);
  }
  if (sc.words.size())
    if (auto st = daemon->setLinkParams(kLinkName, LinkDirection::kAToB, params); !st)
      return makeError(st.error().code, sc.name + ": setLinkParams: " + st.error().message);
  sleepMs(20);
  const LinkInfo before = linkInfo(*daemon);

  Capture cap(tb.d, "d0", opt.traffic_cpu, size_t(sc.frames) + 4096);
  if (cap.error())
    return makeError(cap.error(), "capture on d0: " + std::string(std::strerror(-cap.error())));
  const Schedule sch = makeSchedule(sc);
  const double planned_s = sch.due_ns.empty() ? 0 : double(sch.due_ns.back()) * 1e-9;
  const uint64_t t0_real = nowNs(CLOCK_REALTIME);
  const SendStats ss = sendSchedule(tb.s, "s0", opt.traffic_cpu, templates, sch, sc.max_batch, 1,
                                    planned_s * 1.5 + 5.0);
  if (ss.error)
    return makeError(ss.error, "sender on s0: " + std::string(std::strerror(-ss.error)));

  // Drain: the link delivers what it holds (delay, queue), then D goes quiet. Bounded.
  const double drain_limit_s = double(params.delay_ns) * 1e-9 + 10.0;
  const uint64_t drain_start = nowNs(CLOCK_MONOTONIC);
  while (!g_stop.load() && double(nowNs(CLOCK_MONOTONIC) - drain_start) * 1e-9 < drain_limit_s) {
    const auto st = linkInfo(*daemon).a_to_b_stats;
    if (st.in_flight == 0 && st.depth_packets == 0) break;
    sleepMs(10);
  }
  uint64_t last = ~0ull;
  for (int k = 0; k < 300 && !g_stop.load(); ++k) {  // quiet for 100 ms, at most 3 s
    const uint64_t c = cap.count();
    if (c == last && k >= 10) break;
    if (c != last) k = std::min(k, 9);
    last = c;
    sleepMs(10);
  }
  cap.stop();
  const LinkInfo after = linkInfo(*daemon);
  const std::vector<CounterSet> dstats = daemon->defaultNode().stats();
  std::vector<CounterSet> worker;
  for (const auto& cs : dstats)
    if (cs.scope.rfind("worker", 0) == 0) worker.push_back(cs);
  std::vector<CounterSet> nodes;
  for (const char* n : {"n1", "n2"})
    if (auto b = daemon->node(n); b)
      for (auto cs : (*b)->stats()) {
        cs.scope = std::string(n) + " " + cs.scope;
        nodes.push_back(std::move(cs));
      }
  daemon.reset();

  const std::string frames_file = "frames-" + sc.name + ".csv";
  if (!writeFrames(opt.out + "/" + frames_file, cap.records(), t0_real))
    return makeError(-EIO, "cannot write " + opt.out + "/" + frames_file);
  JsonObject j;
  j.str("name", sc.name)
      .str("kind", sc.kind)
      .str("words", words)
      .str("configured", sc.words.empty() ? "none" : formatLinkParams(after.a_to_b))
      .num("rate_bps", double(after.a_to_b.rate_bps))
      .num("overhead_bytes", after.a_to_b.overhead_bytes)
      .num("delay_ns", double(after.a_to_b.delay_ns))
      .num("limit_packets", after.a_to_b.limit_packets)
      .num("loss", after.a_to_b.loss)
      .num("gilbert_elliott", after.a_to_b.gilbert_elliott ? 1 : 0)
      .num("ge_p", after.a_to_b.ge_p)
      .num("ge_r", after.a_to_b.ge_r)
      .num("ge_loss_bad", after.a_to_b.ge_loss_bad)
      .num("ge_loss_good", after.a_to_b.ge_loss_good)
      .num("seed", double(after.a_to_b.seed))
      .num("frame_len", sc.frame_len)
      .num("offered_pps", sc.pps)
      .num("flows", sc.flows)
      .str("pattern", sc.pattern == Scenario::Pattern::kPoisson    ? "poisson"
                      : sc.pattern == Scenario::Pattern::kPeriodic ? "periodic"
                                                                   : "random-phase")
      .num("frames_planned", double(sch.due_ns.size()))
      .num("sent", double(ss.sent))
      .num("send_refused", double(ss.refused))
      .num("send_syscalls", double(ss.syscalls))
      .num("send_seconds", ss.seconds)
      .num("send_planned_seconds", planned_s)
      .num("send_max_lag_ns", double(ss.max_lag_ns))
      .num("received", double(cap.count()))
      .num("recv_no_timestamp", double(cap.noTimestamp()))
      .num("recv_overflow", double(cap.overflow()))
      .num("daemon_start_seconds", start_s)
      .num("napi_threads", double(napi.size()))
      .num("napi_rt", opt.napi_rt)
      .num("interrupted", g_stop.load() ? 1 : 0)
      .str("frames_file", frames_file)
      .raw("link", directionJson(before.a_to_b_stats, after.a_to_b_stats).done())
      .raw("worker", countersJson(worker, false))
      .raw("node_counters", countersJson(nodes, true));
  jsonl << j.done() << "\n";
  jsonl.flush();
  const auto ls = after.a_to_b_stats;
  std::printf(
      "   sent %llu (refused %llu, %.2f s), link tx %llu delivered %llu loss %llu queue %llu "
      "full %llu, received at D %llu\n",
      (unsigned long long)ss.sent, (unsigned long long)ss.refused, ss.seconds,
      (unsigned long long)(ls.tx_packets - before.a_to_b_stats.tx_packets),
      (unsigned long long)(ls.delivered - before.a_to_b_stats.delivered),
      (unsigned long long)(ls.loss_drops - before.a_to_b_stats.loss_drops),
      (unsigned long long)(ls.queue_drops - before.a_to_b_stats.queue_drops),
      (unsigned long long)(ls.full_drops - before.a_to_b_stats.full_drops),
      (unsigned long long)cap.count());
  for (const auto& cs : worker)
    for (const auto& [k, v] : cs.counters)
      if (k.rfind("emu_late", 0) == 0 || k == "rt_priority" || k == "rt_below")
        std::printf("   %s %s %llu\n", cs.scope.c_str(), k.c_str(), (unsigned long long)v);
  std::fflush(stdout);
  return {};
}

// ---------------------------------------------------------------------------------------

void usage() {
  std::printf(
      "usage: fp-link-fidelity --out DIR [options]   (root; normally run by link_fidelity.py)\n"
      "  --out DIR          where frames-<scenario>.csv and scenarios.jsonl are written\n"
      "  --only LIST        scenarios by kind or name, comma-separated (baseline, delay, rate,\n"
      "                     loss, gemodel, flows, timer, or e.g. rate-1gbit); default: all\n"
      "  --scale X          frames per scenario times X (0.05 for a smoke run); default 1\n"
      "  --worker-cpu N     CPU of fastpathd's worker (1)\n"
      "  --traffic-cpu N    CPU of the sender, the capture and D's receive work (0)\n"
      "  --rt-priority N|auto  the worker's SCHED_FIFO priority (auto, as fastpathd)\n"
      "  --napi-rt N        R's veth NAPI threaded, on the worker's CPU, SCHED_FIFO N (50);\n"
      "                     0: NAPI in softirq on the sender's CPU\n"
      "  --idle-poll-us N   the worker's sleep in poll() when idle (fastpathd's default 1000;\n"
      "                     0: never sleeps, spins)\n"
      "  --list             print the scenarios and exit\n");
}

int run(int argc, char** argv) {
  Options opt;
  bool list = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "fp-link-fidelity: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--out") {
      opt.out = next();
    } else if (a == "--only") {
      std::stringstream ss(next());
      std::string x;
      while (std::getline(ss, x, ','))
        if (!x.empty()) opt.only.push_back(x);
    } else if (a == "--scale") {
      opt.scale = std::atof(next().c_str());
    } else if (a == "--worker-cpu") {
      opt.worker_cpu = std::atoi(next().c_str());
    } else if (a == "--traffic-cpu") {
      opt.traffic_cpu = std::atoi(next().c_str());
    } else if (a == "--rt-priority") {
      const std::string v = next();
      opt.rt_priority = v == "auto" ? Config::kRtAuto : std::atoi(v.c_str());
    } else if (a == "--napi-rt") {
      opt.napi_rt = std::atoi(next().c_str());
    } else if (a == "--idle-poll-us") {
      opt.idle_poll_us = std::atoi(next().c_str());
    } else if (a == "--list") {
      list = true;
    } else if (a == "--help" || a == "-h") {
      usage();
      return 0;
    } else {
      std::fprintf(stderr, "fp-link-fidelity: unknown option %s (see --help)\n", a.c_str());
      return 2;
    }
  }
  std::vector<Scenario> scenarios;
  for (const auto& s : allScenarios(opt.scale > 0 ? opt.scale : 1.0))
    if (opt.only.empty() || std::find(opt.only.begin(), opt.only.end(), s.kind) != opt.only.end() ||
        std::find(opt.only.begin(), opt.only.end(), s.name) != opt.only.end())
      scenarios.push_back(s);
  if (list) {
    for (const auto& s : scenarios)
      std::printf("%-18s %-8s %6u B %10.0f frames/s %8llu frames\n", s.name.c_str(), s.kind.c_str(),
                  s.frame_len, s.pps, (unsigned long long)s.frames);
    return 0;
  }
  if (opt.out.empty()) {
    usage();
    return 2;
  }
  if (scenarios.empty()) {
    std::fprintf(stderr, "fp-link-fidelity: --only matched no scenario (see --list)\n");
    return 2;
  }
  std::string why;
  if (!testing::havePrivileges(&why)) {
    std::fprintf(stderr, "fp-link-fidelity: %s\n", why.c_str());
    return 77;
  }
  mkdir(opt.out.c_str(), 0755);
  struct sigaction sa {};
  sa.sa_handler = onSignal;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGHUP, &sa, nullptr);
  setLogLevel(LogLevel::kError);

  Testbed tb;
  tb.topo = std::make_unique<testing::Topology>("fid");
  tb.s = tb.topo->addNamespace("s");
  tb.r = tb.topo->addNamespace("r");
  tb.d = tb.topo->addNamespace("d");
  tb.topo->addVeth(tb.s, "s0", tb.r, "fp0");
  tb.topo->addVeth(tb.r, "fp1", tb.d, "d0");
  auto mac = [&](const std::string& ns, const std::string& ifn) {
    return MacAddress::parse(tb.topo->mac(ns, ifn));
  };
  auto sm = mac(tb.s, "s0"), rm = mac(tb.r, "fp0"), dm = mac(tb.d, "d0");
  if (!sm || !rm || !dm) {
    std::fprintf(stderr,
                 "fp-link-fidelity: the veth pairs were not created (ip link add failed?)\n");
    return 1;
  }
  tb.s_mac = *sm, tb.r0_mac = *rm, tb.d_mac = *dm;
  // D's receive work on the traffic CPU (RPS; the stamp is taken before, when R's frame
  // enters D), so that the worker's CPU does R's work only.
  char mask[16];
  std::snprintf(mask, sizeof(mask), "%x", 1u << std::max(0, opt.traffic_cpu));
  tb.topo->exec(tb.d,
                std::string("sh -c 'echo ") + mask + " > /sys/class/net/d0/queues/rx-0/rps_cpus'");

  std::ofstream jsonl(opt.out + "/scenarios.jsonl", std::ios::trunc);
  int failures = 0;
  for (const auto& sc : scenarios) {
    if (g_stop.load()) break;
    if (auto st = runScenario(opt, tb, sc, jsonl); !st) {
      std::fprintf(stderr, "fp-link-fidelity: %s\n", st.error().message.c_str());
      ++failures;
    }
  }
  if (g_stop.load()) {
    std::fprintf(stderr, "fp-link-fidelity: interrupted; namespaces removed\n");
    return 130;
  }
  return failures ? 1 : 0;
}

}  // namespace
}  // namespace fastpath::fidelity

int main(int argc, char** argv) { return fastpath::fidelity::run(argc, argv); }
