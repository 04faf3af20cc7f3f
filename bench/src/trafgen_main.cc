// SPDX-License-Identifier: GPL-2.0-only
// fp-trafgen: paced or flat-out UDP generator (IPv4, or IPv6 with --ipv6) for the
// benchmark harness.
// Prebuilt Ethernet frames are sent with sendmmsg() on an AF_PACKET socket with
// PACKET_QDISC_BYPASS (the fastest sender available here without pktgen), or with
// --through-qdisc through the interface's qdisc as a host's applications send. Every payload
// carries {magic, flow, per-flow sequence, CLOCK_MONOTONIC send time}, read by the XDP sink.
// IPv6 frames carry a valid UDP checksum (mandatory there): summed once over everything
// constant, then per frame only the words that change are added.
// Prints one JSON line with what was actually sent and the achieved rate.
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <netinet/ip6.h>
#include <netinet/udp.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench_common.h"
#include "fp_bench.h"
#include "generator_options.h"

namespace fb = fastpath::bench;

namespace {

volatile sig_atomic_t g_stop = 0;

void usage(FILE* out) {
  std::fprintf(
      out,
      "usage: fp-trafgen --ifname IF --src-ip A --dst-ip B --dst-mac MAC\n"
      "                  (--pps N | --mbps N | --flat-out) [options]\n"
      "  --ifname IF        interface to send on (AF_PACKET, qdisc bypass)\n"
      "  --through-qdisc    send through the interface's qdisc instead of bypassing it (a\n"
      "                     veth with a qdisc then holds a burst while its peer's ring is\n"
      "                     full instead of dropping it; the qdisc's own drops are errors)\n"
      "  --src-mac MAC      default: the interface's MAC\n"
      "  --dst-mac MAC      next hop (the router's ingress MAC)\n"
      "  --src-ip/--dst-ip  IPv4 addresses (IPv6 with --ipv6)\n"
      "  --ipv6             Ethernet + IPv6 + UDP (valid UDP checksum) instead of IPv4\n"
      "  --dst-port N       UDP destination port (default %d); source port = %d + flow\n"
      "  --ttl N            IPv4 TTL / IPv6 hop limit, 1..255 (default 64; a line of 64 or\n"
      "                     more routers needs more than 64)\n"
      "  --payload N        UDP payload bytes, >= %zu (default 160; thesis: 160, 1470);\n"
      "                     at most 1472 (IPv4) / 1452 (IPv6) in a 1500-byte MTU\n",
      FP_BENCH_UDP_PORT, fb::kSrcPortBase, sizeof(fp_bench_payload));
  fb::printRateUsage(out);
  std::fprintf(
      out,
      "  --cpu N            pin to this CPU\n"
      "  --batch N          frames per sendmmsg in flat-out / high-rate mode (default 64)\n"
      "  --max-lag-us N     paced: when the generator fell further behind its schedule than\n"
      "                     N us (it lost its CPU), the older frames are skipped (never\n"
      "                     offered, reported as skipped) instead of being sent as one\n"
      "                     full-speed burst; 0 = catch up on everything (default 1000)\n"
      "  --rt-priority N    paced: run SCHED_FIFO N so that other work on the CPU does not\n"
      "                     stall the schedule (it sleeps between chunks); ignored with\n"
      "                     --flat-out, which would starve the CPU (default 0: normal)\n"
      "Output: one JSON line {sent, errors, elapsed_s, pps, mbps, offered_pps, ...}.\n");
}

}  // namespace

int main(int argc, char** argv) {
  fb::GeneratorOptions o;
  bool through_qdisc = false;  // send through the interface's qdisc (no PACKET_QDISC_BYPASS)
  const fb::GeneratorTool tool{"fp-trafgen", /*ipv6=*/true, usage,
                               {{"through-qdisc", no_argument, nullptr, 'Q'}},
                               [&](int, const char*) { return through_qdisc = true; }};
  if (!fb::parseGeneratorOptions(argc, argv, tool, &o)) return 2;
  std::signal(SIGINT, [](int) { g_stop = 1; });
  std::signal(SIGTERM, [](int) { g_stop = 1; });
  bool rt_on = false;
  if (o.rt_priority > 0 && !o.flat_out) {
    sched_param sp{};
    sp.sched_priority = o.rt_priority;
    rt_on = sched_setscheduler(0, SCHED_FIFO, &sp) == 0;
    if (!rt_on)
      std::fprintf(stderr, "fp-trafgen: SCHED_FIFO %d: %s (continuing with normal scheduling)\n",
                   o.rt_priority, std::strerror(errno));
  }
  if (o.cpu >= 0 && !fb::pinToCpu(o.cpu)) {
    std::fprintf(stderr, "fp-trafgen: cannot pin to CPU %d: %s\n", o.cpu, std::strerror(errno));
    return 1;
  }
  unsigned ifindex = if_nametoindex(o.ifname.c_str());
  if (!ifindex) {
    std::fprintf(stderr, "fp-trafgen: no interface '%s' in this namespace\n", o.ifname.c_str());
    return 1;
  }
  if (!o.have_src_mac && !fb::interfaceMac(o.ifname, o.src_mac)) {
    std::fprintf(stderr, "fp-trafgen: cannot read the MAC of '%s'\n", o.ifname.c_str());
    return 1;
  }
  // Protocol 0: this socket never receives, it only transmits.
  int fd = socket(AF_PACKET, SOCK_RAW, 0);
  if (fd < 0) {
    std::fprintf(stderr, "fp-trafgen: socket(AF_PACKET): %s (run as root)\n", std::strerror(errno));
    return 1;
  }
  int one = 1;
  // A bypassing sender meets a full receiver ring of a veth as a drop even when the veth has
  // a qdisc (the driver stops the queue and the frame is freed); through the qdisc it waits.
  if (!through_qdisc && setsockopt(fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one)) != 0)
    std::fprintf(stderr, "fp-trafgen: PACKET_QDISC_BYPASS: %s (continuing through the qdisc)\n",
                 std::strerror(errno));
  int sndbuf = 4 << 20;
  setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &sndbuf, sizeof(sndbuf));
  sockaddr_ll sll{};
  sll.sll_family = AF_PACKET;
  sll.sll_protocol = htons(o.ipv6 ? ETH_P_IPV6 : ETH_P_IP);
  sll.sll_ifindex = (int)ifindex;
  if (bind(fd, reinterpret_cast<sockaddr*>(&sll), sizeof(sll)) != 0) {
    std::fprintf(stderr, "fp-trafgen: bind to %s: %s\n", o.ifname.c_str(), std::strerror(errno));
    return 1;
  }

  // One frame template; flows differ only in the UDP source port.
  const std::vector<uint8_t> tmpl = fb::generatorFrame(o);
  const size_t udp_off = fb::generatorUdpOffset(o);
  const size_t hdr_len = fb::generatorPayloadOffset(o);
  const size_t frame_len = tmpl.size();
  const auto* udp = reinterpret_cast<const udphdr*>(&tmpl[udp_off]);

  // IPv6's UDP checksum (mandatory there): everything that is the same in every frame is
  // summed once; per frame only the source port and {flow, seq, tx_ns} are added.
  const uint32_t udp6_base =
      o.ipv6 ? fb::benchUdp6BaseSum(o.src_ip6, o.dst_ip6, udp->dest, o.payload) : 0;

  const int batch = o.batch;
  std::vector<uint8_t> bufs((size_t)fb::kMaxBatch * frame_len, 0);
  mmsghdr msgs[fb::kMaxBatch];
  iovec iov[fb::kMaxBatch];
  for (int i = 0; i < fb::kMaxBatch; i++) {
    std::memcpy(&bufs[(size_t)i * frame_len], tmpl.data(), frame_len);
    iov[i] = {&bufs[(size_t)i * frame_len], frame_len};
    std::memset(&msgs[i], 0, sizeof(msgs[i]));
    msgs[i].msg_hdr.msg_iov = &iov[i];
    msgs[i].msg_hdr.msg_iovlen = 1;
  }
  std::vector<uint64_t> seq((size_t)o.flows, 0);
  uint32_t next_flow = 0;

  // Paced mode: packets per wake-up, ~kChunkNs worth of traffic, 1..batch.
  constexpr double kChunkNs = 200000.0;
  uint64_t chunk = o.flat_out ? 1 : (uint64_t)(o.pps * kChunkNs * 1e-9);
  if (chunk < 1) chunk = 1;
  if (chunk > (uint64_t)batch) chunk = (uint64_t)batch;
  prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);  // precise nanosleep wake-ups

  const uint64_t start = fb::monoNs();
  const uint64_t end = start + (uint64_t)(o.duration_s * 1e9);
  const uint64_t limit = o.count ? o.count : ~0ull;
  uint64_t sent = 0, errors = 0, calls = 0;
  // Paced mode: the most frames offered back to back without sleeping (a catch-up burst
  // after the generator lost its CPU), at the generator's full speed.
  uint64_t burst = 0, max_burst = 0;
  // Frames the schedule skipped (generator more than max_lag_us behind): never offered.
  uint64_t skipped = 0;
  uint64_t max_lag = o.max_lag_us > 0 ? (uint64_t)(o.pps * o.max_lag_us * 1e-6) : ~0ull;
  if (max_lag < chunk) max_lag = chunk;
  uint64_t now = start;
  uint64_t last_sleep_ns = start;
  while (!g_stop && sent < limit) {
    now = fb::monoNs();
    if (now >= end) break;
    if (rt_on && now - last_sleep_ns > 10000000ull) {
      // Not slept for 10 ms: the rate is above what this CPU can send. A real-time
      // thread that never sleeps would starve everything else here: back to normal.
      sched_param sp{};
      sched_setscheduler(0, SCHED_OTHER, &sp);
      rt_on = false;
    }
    uint64_t n;
    if (o.flat_out) {
      n = (uint64_t)batch;
    } else {
      // Wake up once per chunk (~kChunkNs of traffic) and send what is due: pacing stays
      // exact on average while the generator sleeps between chunks, leaving its CPU to
      // the sink that shares it. Spinning would starve the sink and distort the result.
      uint64_t done = sent + errors + skipped;
      uint64_t due = (uint64_t)((double)(now - start) * 1e-9 * o.pps) + 1;
      if (due > done + max_lag) {  // lost the CPU: do not turn the debt into a burst
        skipped += due - done - max_lag;
        done = due - max_lag;
      }
      if (due < done + chunk) {
        uint64_t next_ns = start + (uint64_t)((double)(done + chunk - 1) * 1e9 / o.pps);
        if (next_ns > end) next_ns = end;
        if (next_ns > now) {
          timespec ts{(time_t)((next_ns - now) / 1000000000ull),
                      (long)((next_ns - now) % 1000000000ull)};
          nanosleep(&ts, nullptr);
          burst = 0;
          last_sleep_ns = fb::monoNs();
        }
        now = fb::monoNs();
        if (now >= end) break;
        due = (uint64_t)((double)(now - start) * 1e-9 * o.pps) + 1;
        if (due <= done) continue;
      }
      n = due - done;
      if (n > (uint64_t)batch) n = (uint64_t)batch;
    }
    if (n > limit - sent) n = limit - sent;
    burst += n;
    if (burst > max_burst) max_burst = burst;
    for (uint64_t i = 0; i < n; i++) {
      auto* p = reinterpret_cast<fp_bench_payload*>(&bufs[i * frame_len + hdr_len]);
      auto* u = reinterpret_cast<udphdr*>(&bufs[i * frame_len + udp_off]);
      u->source = htons((uint16_t)(fb::kSrcPortBase + next_flow));
      p->magic = FP_BENCH_MAGIC;
      p->flow = next_flow;
      p->seq = seq[next_flow]++;
      p->tx_ns = now;
      if (o.ipv6) u->check = fb::benchUdp6Checksum(udp6_base, u->source, p);
      if (++next_flow == (uint32_t)o.flows) next_flow = 0;
    }
    // sendmmsg() stops at the first frame the device refuses (ENOBUFS: veth dropped it
    // because the receiver's ring was full) and reports only the frames before it. That
    // frame is lost, as on a wire; the frames after it were never offered, so they are
    // sent now (each is dropped or accepted on its own) instead of being counted as lost
    // with it — otherwise one ring-full drop would show up as up to a batch of loss.
    uint64_t off = 0;
    while (off < n) {
      int r = sendmmsg(fd, msgs + off, (unsigned)(n - off), 0);
      calls++;
      if (r > 0) {
        sent += (uint64_t)r;
        off += (uint64_t)r;
        if (off < n) {  // a short count: frame `off` was refused (its error is not returned)
          ++errors;
          ++off;
        }
        continue;
      }
      const int e = r < 0 ? errno : EIO;
      if (e == EINTR && !g_stop) continue;
      if (e == ENOBUFS || e == EAGAIN) {
        ++errors;  // this frame was refused (dropped by the device); offer the next ones
        ++off;
        continue;
      }
      // Anything else (device down, ...): the rest of the batch is lost with it. The
      // frames consumed sequence numbers, so the sink counts them as loss too.
      errors += n - off;
      break;
    }
  }
  const uint64_t stop = fb::monoNs();
  const double elapsed = (double)(stop - start) * 1e-9;
  const double pps = (double)sent / elapsed;
  const double offered = o.flat_out ? 0.0 : o.pps;
  const bool reached = o.flat_out || pps >= 0.98 * o.pps;
  std::printf(
      "{\"sent\": %llu, \"errors\": %llu, \"elapsed_s\": %.6f, \"pps\": %.1f, \"mbps\": %.3f, "
      "\"offered_pps\": %.1f, \"flat_out\": %s, \"target_reached\": %s, \"payload\": %d, "
      "\"flows\": %d, \"frame_bytes\": %zu, \"calls\": %llu, \"cpu\": %d, \"max_burst\": %llu, "
      "\"skipped\": %llu}\n",
      (unsigned long long)sent, (unsigned long long)errors, elapsed, pps,
      pps * 8.0 * o.payload / 1e6, offered, o.flat_out ? "true" : "false",
      reached ? "true" : "false", o.payload, o.flows, frame_len, (unsigned long long)calls, o.cpu,
      (unsigned long long)(o.flat_out ? 0 : max_burst), (unsigned long long)skipped);
  close(fd);
  return 0;
}
