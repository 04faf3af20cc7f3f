// SPDX-License-Identifier: GPL-2.0-only
// fp-xdpgen: fp-trafgen's IPv4 UDP frames, generated in the kernel. BPF_PROG_TEST_RUN in
// live-frames mode (BPF_F_TEST_XDP_LIVE_FRAMES, kernel >= 5.18) runs fp_bench_gen.bpf.c
// once per frame on a copy of the template; the program writes the frame's flow, per-flow
// sequence number and bpf_ktime_get_ns() send time and redirects it out of --ifname
// (ndo_xdp_xmit). No skb is built and no qdisc is passed: on a veth the frame goes
// straight into the peer's XDP ring, which therefore needs an XDP program or GRO on (its
// NAPI instance). Same frame format, sizes and options as fp-trafgen (IPv4 only), same
// JSON line; "sent" is what the device accepted (veth's tx_queue_*_xdp_xmit counters),
// "errors" what it refused (the peer's ring full) or the redirect dropped.
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <pthread.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <atomic>
#include <memory>
#include <thread>
#include <string>
#include <vector>

#include "bench_common.h"
#include "fp_bench.h"
#include "fp_bench_gen.skel.h"
#include "generator_options.h"

namespace fb = fastpath::bench;

namespace {

// Frames (program runs, sent or not) per test run: far more than any run sends; the
// watcher's signal ends it.
constexpr uint64_t kRunFrames = 1u << 30;
volatile sig_atomic_t g_stop = 0;

void usage(FILE* out) {
  std::fprintf(
      out,
      "usage: fp-xdpgen --ifname IF --src-ip A --dst-ip B --dst-mac MAC\n"
      "                 (--pps N | --mbps N | --flat-out) [options]\n"
      "  --ifname IF        interface to send out of (XDP redirect; a veth's peer needs an\n"
      "                     XDP program or GRO on to take the frames)\n"
      "  --src-mac MAC      default: the interface's MAC\n"
      "  --dst-mac MAC      next hop (the router's ingress MAC)\n"
      "  --src-ip/--dst-ip  IPv4 addresses\n"
      "  --dst-port N       UDP destination port (default %d); source port = %d + flow\n"
      "  --ttl N            IPv4 TTL, 1..255 (default 64)\n"
      "  --payload N        UDP payload bytes, %zu..1472 (default 160)\n",
      FP_BENCH_UDP_PORT, fb::kSrcPortBase, sizeof(fp_bench_payload));
  fb::printRateUsage(out);
  std::fprintf(
      out,
      "  --cpu N            pin to this CPU (the frames are generated and sent on it; paced,\n"
      "                     it is busy all the time: the program spins until a frame is due)\n"
      "  --batch N          frames the kernel runs before flushing them to the device,\n"
      "                     1..256 (default 64)\n"
      "  --max-lag-us N     paced: when further behind the schedule than N us (it lost its\n"
      "                     CPU), skip the older frames instead of sending them as one burst;\n"
      "                     0 = catch up on everything (default 1000)\n"
      "  --rt-priority N    accepted and ignored: paced, fp-xdpgen spins in the kernel until\n"
      "                     each frame is due, which at SCHED_FIFO would starve its CPU\n"
      "Output: one JSON line {sent, errors, elapsed_s, pps, mbps, offered_pps, ...}, the\n"
      "same fields as fp-trafgen's.\n");
}

int libbpfPrint(enum libbpf_print_level level, const char* fmt, va_list ap) {
  if (level == LIBBPF_DEBUG) return 0;
  return std::vfprintf(stderr, fmt, ap);
}

// Frames the interface's driver accepted through ndo_xdp_xmit: the sum of veth's
// tx_queue_<n>_xdp_xmit counters (ethtool -S). -1 when the driver has none.
class XmitCounter {
 public:
  explicit XmitCounter(const std::string& ifname) : ifname_(ifname) {
    fd_ = socket(AF_INET, SOCK_DGRAM, 0);
    if (fd_ < 0) return;
    // ethtool_sset_info followed by one length per set asked for (here one).
    alignas(ethtool_sset_info) uint8_t sset_buf[sizeof(ethtool_sset_info) + sizeof(uint32_t)] = {};
    auto* sset = reinterpret_cast<ethtool_sset_info*>(sset_buf);
    sset->cmd = ETHTOOL_GSSET_INFO;
    sset->sset_mask = 1ull << ETH_SS_STATS;
    if (!ioctlOn(sset) || !sset->sset_mask) return;
    n_ = sset->data[0];
    std::vector<uint8_t> buf(sizeof(ethtool_gstrings) + (size_t)n_ * ETH_GSTRING_LEN);
    auto* gs = reinterpret_cast<ethtool_gstrings*>(buf.data());
    gs->cmd = ETHTOOL_GSTRINGS;
    gs->string_set = ETH_SS_STATS;
    gs->len = n_;
    if (!ioctlOn(gs)) return;
    for (uint32_t i = 0; i < n_; i++) {
      std::string name(reinterpret_cast<char*>(gs->data) + (size_t)i * ETH_GSTRING_LEN,
                       strnlen(reinterpret_cast<char*>(gs->data) + (size_t)i * ETH_GSTRING_LEN,
                               ETH_GSTRING_LEN));
      const std::string suffix = "_xdp_xmit";
      if (name.rfind("tx_queue_", 0) == 0 && name.size() > suffix.size() &&
          name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
        index_.push_back(i);
    }
  }
  ~XmitCounter() {
    if (fd_ >= 0) close(fd_);
  }
  XmitCounter(const XmitCounter&) = delete;
  XmitCounter& operator=(const XmitCounter&) = delete;

  int64_t read() {
    if (index_.empty()) return -1;
    std::vector<uint8_t> buf(sizeof(ethtool_stats) + (size_t)n_ * sizeof(uint64_t));
    auto* st = reinterpret_cast<ethtool_stats*>(buf.data());
    st->cmd = ETHTOOL_GSTATS;
    st->n_stats = n_;
    if (!ioctlOn(st)) return -1;
    int64_t sum = 0;
    for (uint32_t i : index_) sum += (int64_t)st->data[i];
    return sum;
  }

 private:
  bool ioctlOn(void* data) {
    ifreq ifr{};
    std::snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname_.c_str());
    ifr.ifr_data = static_cast<char*>(data);
    return ioctl(fd_, SIOCETHTOOL, &ifr) == 0;
  }
  std::string ifname_;
  int fd_ = -1;
  uint32_t n_ = 0;
  std::vector<uint32_t> index_;
};

struct SkelDeleter {
  void operator()(fp_bench_gen* s) const { fp_bench_gen__destroy(s); }
};

}  // namespace

int main(int argc, char** argv) {
  // --batch: the frames the kernel runs before it flushes them to the device. --rt-priority
  // is accepted for fp-trafgen's command line and ignored (see --help).
  fb::GeneratorOptions o;
  const fb::GeneratorTool tool{"fp-xdpgen", /*ipv6=*/false, usage, {}, nullptr};
  if (!fb::parseGeneratorOptions(argc, argv, tool, &o)) return 2;
  std::signal(SIGINT, [](int) { g_stop = 1; });
  std::signal(SIGTERM, [](int) { g_stop = 1; });
  libbpf_set_print(libbpfPrint);
  if (o.cpu >= 0 && !fb::pinToCpu(o.cpu)) {
    std::fprintf(stderr, "fp-xdpgen: cannot pin to CPU %d: %s\n", o.cpu, std::strerror(errno));
    return 1;
  }
  const unsigned ifindex = if_nametoindex(o.ifname.c_str());
  if (!ifindex) {
    std::fprintf(stderr, "fp-xdpgen: no interface '%s' in this namespace\n", o.ifname.c_str());
    return 1;
  }
  if (!o.have_src_mac && !fb::interfaceMac(o.ifname, o.src_mac)) {
    std::fprintf(stderr, "fp-xdpgen: cannot read the MAC of '%s'\n", o.ifname.c_str());
    return 1;
  }
  std::unique_ptr<fp_bench_gen, SkelDeleter> skel(fp_bench_gen__open());
  if (!skel) {
    std::fprintf(stderr, "fp-xdpgen: cannot open the BPF object: %s\n", std::strerror(errno));
    return 1;
  }
  skel->rodata->gen_flows = (uint32_t)o.flows;
  skel->rodata->gen_ifindex_out = ifindex;
  skel->rodata->gen_src_port_base = fb::kSrcPortBase;
  if (int err = fp_bench_gen__load(skel.get()); err) {
    std::fprintf(stderr, "fp-xdpgen: loading the generator program: %s (run as root)\n",
                 std::strerror(-err));
    return 1;
  }
  const int prog_fd = bpf_program__fd(skel->progs.xdp_fp_bench_gen);
  std::vector<uint8_t> frame = fb::generatorFrame(o);
  XmitCounter xmit(o.ifname);

  // One test run: `n` frames from the template through the program and out of the device.
  auto run = [&](uint64_t n) -> int {
    // libbpf returns -errno.
    LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = frame.data(),
                .data_size_in = (uint32_t)frame.size(), .repeat = (int)n,
                .flags = BPF_F_TEST_XDP_LIVE_FRAMES, .batch_size = (uint32_t)o.batch);
    return bpf_prog_test_run_opts(prog_fd, &opts);
  };

  // One long test run paced by the program itself (see fp_bench_gen.bpf.c); a watcher
  // thread ends it at --duration or --count with a signal (the kernel stops a test run
  // with EINTR between batches when a signal is pending).
  auto& bss = *skel->bss;
  if (!o.flat_out) {
    bss.gen_ns_per_frame_q10 = (uint64_t)(1e9 * 1024.0 / o.pps);
    if (bss.gen_ns_per_frame_q10 == 0) bss.gen_ns_per_frame_q10 = 1;
    bss.gen_max_lag_ns = (uint64_t)(o.max_lag_us * 1e3);
  }
  bss.gen_limit = o.count;
  struct sigaction sa {};
  sa.sa_handler = [](int) {};  // only to interrupt the test run: no SA_RESTART
  sigaction(SIGUSR1, &sa, nullptr);
  const int64_t xmit_before = xmit.read();
  const uint64_t start = fb::monoNs();
  const uint64_t end = start + (uint64_t)(o.duration_s * 1e9);
  std::atomic<bool> finished{false}, runner_done{false};
  std::atomic<uint64_t> stop_ns{0};  // when the watcher ended the run
  const pthread_t runner = pthread_self();
  std::thread watcher([&] {
    while (!runner_done.load()) {
      const bool over = g_stop || fb::monoNs() >= end ||
                        (o.count && (uint64_t)bss.gen_frames >= o.count);
      if (over) {
        if (!finished.exchange(true)) stop_ns.store(fb::monoNs());
        pthread_kill(runner, SIGUSR1);  // again every ms until the runner has seen it
      }
      timespec ts{0, 1000000};
      nanosleep(&ts, nullptr);
    }
  });
  uint64_t calls = 0;
  int fail = 0;
  while (!finished.load()) {
    int err = run(kRunFrames);
    calls++;
    if (err && err != -EINTR) {
      fail = err;
      break;
    }
  }
  runner_done.store(true);
  watcher.join();
  if (fail == -EINVAL || fail == -EOPNOTSUPP)
    std::fprintf(stderr, "fp-xdpgen: BPF_PROG_TEST_RUN with live frames is refused (Linux "
                 ">= 5.18 needed)\n");
  const uint64_t skipped = bss.gen_skipped;
  const uint64_t max_burst = 0;  // paced per frame: no catch-up bursts to report
  // From the first frame (the program's stamp, after the run's setup) to the end the
  // watcher set; without a frame, from the start.
  const uint64_t first = bss.gen_start_ns ? bss.gen_start_ns : start;
  const uint64_t stop = stop_ns.load() > first ? stop_ns.load() : fb::monoNs();
  const int64_t xmit_after = xmit.read();
  const uint64_t frames = bss.gen_frames;
  if (fail)
    std::fprintf(stderr, "fp-xdpgen: BPF_PROG_TEST_RUN (live frames) on %s: %s\n",
                 o.ifname.c_str(), std::strerror(-fail));
  // Accepted by the device; without its counters every generated frame counts as sent.
  const bool counted = xmit_before >= 0 && xmit_after >= xmit_before;
  uint64_t sent = counted ? (uint64_t)(xmit_after - xmit_before) : frames;
  if (sent > frames) sent = frames;  // other XDP traffic out of the same device
  const uint64_t errors = frames - sent;
  const bool none_taken = counted && frames > 0 && sent == 0;
  if (none_taken)
    std::fprintf(stderr, "fp-xdpgen: %s accepted none of %llu frames (a veth's peer needs an "
                 "XDP program or GRO on, and must be up)\n", o.ifname.c_str(),
                 (unsigned long long)frames);
  const double elapsed = stop > first ? (double)(stop - first) * 1e-9 : 1e-9;
  const double pps = (double)sent / elapsed;
  const bool reached = o.flat_out || pps >= 0.98 * o.pps;
  std::printf(
      "{\"sent\": %llu, \"errors\": %llu, \"elapsed_s\": %.6f, \"pps\": %.1f, \"mbps\": %.3f, "
      "\"offered_pps\": %.1f, \"flat_out\": %s, \"target_reached\": %s, \"payload\": %d, "
      "\"flows\": %d, \"frame_bytes\": %zu, \"calls\": %llu, \"cpu\": %d, \"max_burst\": %llu, "
      "\"skipped\": %llu, \"generator\": \"xdp-live\", \"xmit_counted\": %s, "
      "\"bad_template\": %llu}\n",
      (unsigned long long)sent, (unsigned long long)errors, elapsed, pps,
      pps * 8.0 * o.payload / 1e6, o.flat_out ? 0.0 : o.pps, o.flat_out ? "true" : "false",
      reached ? "true" : "false", o.payload, o.flows, frame.size(), (unsigned long long)calls,
      o.cpu, (unsigned long long)(o.flat_out ? 0 : max_burst), (unsigned long long)skipped,
      counted ? "true" : "false", (unsigned long long)skel->bss->gen_bad_template);
  return fail || none_taken ? 1 : 0;
}
