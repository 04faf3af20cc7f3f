// SPDX-License-Identifier: GPL-2.0-only
// fp-stack-sink: the receiving host as a kernel-stack host is: no XDP on its interface, a
// UDP socket read by a process (recvmmsg). The veth's receive work then runs where the
// sender transmitted, i.e. on the router's CPU, as for hosts attached by veth. Serves the
// harness like fp-sink (same commands, same JSON line), one command per line on stdin:
//   reset | read [FLOWS] | quit
// Latency is from the payload's send time (CLOCK_MONOTONIC) to the reader's recvmmsg
// return: it includes the socket queue, which a host's application sees too. The kernel's
// receive stamp of each datagram (SO_TIMESTAMPNS: taken when the skb enters D's stack,
// before any socket queue) splits it in two, reported beside it: the send time to that
// arrival (the path and the forwarder) and that arrival to the reader (D's own queueing).
#include <time.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <getopt.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "bench_common.h"
#include "fp_bench.h"
#include "sink_report.h"

namespace {

volatile sig_atomic_t g_stop = 0;

struct State {
  std::mutex mu;  // the reader takes it once per recvmmsg batch
  std::vector<fp_bench_flow> flows = std::vector<fp_bench_flow>(FP_BENCH_MAX_FLOWS);
  std::vector<uint64_t> hist = std::vector<uint64_t>(FP_BENCH_LAT_BUCKETS);
  fastpath::bench::SinkArrivalSplit split{std::vector<uint64_t>(FP_BENCH_LAT_BUCKETS),
                                          std::vector<uint64_t>(FP_BENCH_LAT_BUCKETS)};
  uint64_t other = 0, bad_flow = 0;
  void reset() {
    std::lock_guard<std::mutex> g(mu);
    std::fill(flows.begin(), flows.end(), fp_bench_flow{});
    std::fill(hist.begin(), hist.end(), 0);
    std::fill(split.to_arrival.begin(), split.to_arrival.end(), 0);
    std::fill(split.queued.begin(), split.queued.end(), 0);
    other = bad_flow = split.unstamped = 0;
  }
};

// CLOCK_REALTIME minus CLOCK_MONOTONIC now, in ns: the kernel stamps in CLOCK_REALTIME, the
// payload and the reader in CLOCK_MONOTONIC. Read between two monotonic reads, so the
// error is at most their distance (tens of ns); taken per batch, it follows clock steps.
int64_t realtimeOffsetNs() {
  const uint64_t m0 = fastpath::bench::monoNs();
  timespec r;
  clock_gettime(CLOCK_REALTIME, &r);
  const uint64_t m1 = fastpath::bench::monoNs();
  return int64_t(uint64_t(r.tv_sec) * 1000000000ull + uint64_t(r.tv_nsec)) -
         int64_t(m0 + (m1 - m0) / 2);
}

// The kernel's receive stamp of a datagram (SCM_TIMESTAMPNS, CLOCK_REALTIME), 0 if none.
uint64_t kernelStampNs(const msghdr& h) {
  for (cmsghdr* c = CMSG_FIRSTHDR(&h); c; c = CMSG_NXTHDR(const_cast<msghdr*>(&h), c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_TIMESTAMPNS) continue;
    timespec ts;
    std::memcpy(&ts, CMSG_DATA(c), sizeof(ts));
    return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
  }
  return 0;
}

void reader(int fd, State* st) {
  constexpr unsigned kBatch = 64, kSize = 2048;
  constexpr unsigned kCtl = CMSG_SPACE(sizeof(timespec)) + 64;
  std::vector<char> buf(kBatch * kSize);
  std::vector<char> ctl(kBatch * kCtl);
  mmsghdr msgs[kBatch];
  iovec iov[kBatch];
  for (unsigned i = 0; i < kBatch; ++i) {
    iov[i] = {buf.data() + i * kSize, kSize};
    msgs[i] = {};
    msgs[i].msg_hdr.msg_iov = &iov[i];
    msgs[i].msg_hdr.msg_iovlen = 1;
  }
  while (!g_stop) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 200) <= 0) continue;
    for (unsigned i = 0; i < kBatch; ++i) {  // recvmmsg shrinks msg_controllen to what it wrote
      msgs[i].msg_hdr.msg_control = ctl.data() + i * kCtl;
      msgs[i].msg_hdr.msg_controllen = kCtl;
    }
    const int n = recvmmsg(fd, msgs, kBatch, MSG_DONTWAIT, nullptr);
    if (n <= 0) continue;
    const uint64_t now = fastpath::bench::monoNs();
    const int64_t real_off = realtimeOffsetNs();
    std::lock_guard<std::mutex> g(st->mu);
    for (int i = 0; i < n; ++i) {
      const unsigned len = msgs[i].msg_len;
      fp_bench_payload pl;
      if (len < sizeof(pl)) {
        ++st->other;
        continue;
      }
      std::memcpy(&pl, iov[i].iov_base, sizeof(pl));
      if (pl.magic != FP_BENCH_MAGIC) {
        ++st->other;
        continue;
      }
      if (pl.flow >= FP_BENCH_MAX_FLOWS) {
        ++st->bad_flow;
        continue;
      }
      fp_bench_flow& f = st->flows[pl.flow];
      if (!f.packets) f.first_ns = now;
      ++f.packets;
      f.bytes += len;
      f.last_ns = now;
      if (pl.seq < f.next_seq)
        ++f.reordered;
      else
        f.next_seq = pl.seq + 1;
      if (now > pl.tx_ns) ++st->hist[fastpath::bench::latencyBucket(now - pl.tx_ns)];
      const uint64_t stamp_real = kernelStampNs(msgs[i].msg_hdr);
      if (!stamp_real) {
        ++st->split.unstamped;
        continue;
      }
      const uint64_t arrived = uint64_t(int64_t(stamp_real) - real_off);
      if (arrived > pl.tx_ns)
        ++st->split.to_arrival[fastpath::bench::latencyBucket(arrived - pl.tx_ns)];
      if (now > arrived) ++st->split.queued[fastpath::bench::latencyBucket(now - arrived)];
    }
  }
}

void printRead(State* st, int expect_flows) {
  std::lock_guard<std::mutex> g(st->mu);
  fastpath::bench::printSinkRead(st->flows, st->hist, st->other, st->bad_flow, expect_flows,
                                 &st->split);
}

}  // namespace

int main(int argc, char** argv) {
  int port = FP_BENCH_UDP_PORT;
  int rcvbuf = 8 << 20;
  static const option longopts[] = {{"port", required_argument, nullptr, 'P'},
                                    {"rcvbuf", required_argument, nullptr, 'b'},
                                    {"help", no_argument, nullptr, 'h'},
                                    {nullptr, 0, nullptr, 0}};
  int c;
  while ((c = getopt_long(argc, argv, "h", longopts, nullptr)) != -1) {
    if (c == 'P') {
      port = std::atoi(optarg);
    } else if (c == 'b') {
      rcvbuf = std::atoi(optarg);
    } else {
      std::fprintf(c == 'h' ? stdout : stderr,
                   "usage: fp-stack-sink [--port N] [--rcvbuf BYTES]\n"
                   "  Counts the generator's UDP frames through the kernel stack (a UDP\n"
                   "  socket on port N, default %d; no XDP), as fp-sink does at XDP.\n"
                   "  Then reads commands on stdin: reset | read [FLOWS] | quit.\n",
                   FP_BENCH_UDP_PORT);
      return c == 'h' ? 0 : 2;
    }
  }
  std::signal(SIGINT, [](int) { g_stop = 1; });
  std::signal(SIGTERM, [](int) { g_stop = 1; });
  std::signal(SIGPIPE, SIG_IGN);
  const int fd = socket(AF_INET, SOCK_DGRAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(uint16_t(port));
  // SO_RCVBUFFORCE (root) past rmem_max: the socket, not its buffer, is what is measured.
  if (fd < 0 || (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)) < 0 &&
                 setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf)) < 0) ||
      bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) < 0) {
    std::fprintf(stderr, "fp-stack-sink: UDP socket on port %d: %s\n", port, std::strerror(errno));
    return 1;
  }
  // The kernel's receive stamp on every datagram (software, at the skb's arrival).
  const int on = 1;
  if (setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof(on)) < 0) {
    std::fprintf(stderr, "fp-stack-sink: SO_TIMESTAMPNS on the UDP socket: %s\n",
                 std::strerror(errno));
    return 1;
  }
  State st;
  std::thread t(reader, fd, &st);
  std::printf("{\"ready\": true, \"port\": %d}\n", port);
  std::fflush(stdout);
  std::string line;
  while (!g_stop) {
    pollfd pfd{0, POLLIN, 0};
    const int r = poll(&pfd, 1, 200);
    if (r < 0 && errno != EINTR) break;
    if (r <= 0) continue;
    if (!std::getline(std::cin, line)) break;
    if (line == "reset") {
      st.reset();
      std::printf("{\"reset\": true}\n");
      std::fflush(stdout);
    } else if (line.rfind("read", 0) == 0) {
      printRead(&st, line.size() > 5 ? std::atoi(line.c_str() + 5) : 0);
    } else if (line == "quit") {
      break;
    } else if (!line.empty()) {
      std::printf("{\"error\": \"unknown command '%s'\"}\n", line.c_str());
      std::fflush(stdout);
    }
  }
  g_stop = 1;
  t.join();
  close(fd);
  return 0;
}
