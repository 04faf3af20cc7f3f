// SPDX-License-Identifier: GPL-2.0-only
// fpctl capture: the frames fastpathd carries on a port, a link or a segment, written as
// pcap with libpcap (or one line each), filtered with tcpdump's syntax (pcap_compile,
// pcap_offline_filter): links between nodes have no kernel interface to run tcpdump on.
#include <pcap/pcap.h>

#include <arpa/inet.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <map>
#include <string>
#include <vector>

#include "fpctl.h"

namespace fastpath::ctrl::fpctl {
namespace {

const char* kCaptureHelp =
    R"(Usage: fpctl [--node NODE] capture TARGET [a-to-b|b-to-a] [-w FILE|-] [-c N]
                                  [--snaplen N] [--punts] [FILTER...]

  Captures the frames fastpathd carries on TARGET: a link (the frames each end sends
  into it; a-to-b or b-to-a for one direction), a segment (each frame as a port sends
  it onto the medium), or a port of the node (--node; received and sent). Names are
  tried in that order. Needs an operator (root, the socket's owner or an allowed uid):
  a capture shows every peer's traffic.

  -w FILE       write pcap (Ethernet) to FILE; "-w -" to stdout, for a pipe:
                  fpctl capture r1-r2 -w - | tcpdump -n -r -
                  fpctl capture r1-r2 -w - | wireshark -k -i -
                without -w: one line per frame
  -c N          stop after N frames (counted after the filter)
  --snaplen N   keep at most N bytes of each frame (14..65535, default 65535; never more
                than fastpathd's frame size)
  --punts       only the frames the classifier did not pass as DATA: punts, CONTROL
                frames and, on link ports, its drops; lines name verdict and reason
  FILTER        a tcpdump filter expression (pcap-filter(7)), e.g. "udp port 9"

  Ends on SIGINT, on -c, or when the reader of -w - goes away (SIGPIPE), with a summary
  on stderr: frames captured, dropped by fastpathd (its capture ring was full: the
  reader was too slow; forwarding is never slowed), and filtered out.
)";

const char* kVerdicts[] = {"data", "control", "punt", "pass", "drop"};

std::string verdictText(const CapturedFrame& f) {
  if (f.verdict == 0xff) return "";
  std::string v = f.verdict < 5 ? kVerdicts[f.verdict] : "verdict" + std::to_string(f.verdict);
  return " " + v + " reason " + std::to_string(f.reason);
}

/// The tapped ports' names: "NODE:PORT" for link and segment ports (their ids are in
/// other nodes than the connection's), the node's port name otherwise.
std::map<PortId, std::string> portNames(Session& s, const CaptureInfo& info) {
  std::map<PortId, std::string> names;
  if (auto links = s.client().links())
    for (const auto& l : *links)
      for (const auto* e : {&l.a, &l.b}) names[e->id] = e->node + ":" + e->port;
  if (auto segs = s.client().segments())
    for (const auto& seg : *segs)
      for (const auto& p : seg.ports) names[p.id] = p.node + ":" + p.port;
  for (PortId p : info.ports)
    if (!names.count(p)) names[p] = s.portName(p);
  return names;
}

/// One line: time, port, in/out, length, addresses when IP, classifier verdict.
void printLine(const std::map<PortId, std::string>& names, const CapturedFrame& f) {
  const time_t sec = time_t(f.time_ns / 1000000000ull);
  tm t;
  localtime_r(&sec, &t);
  char when[32];
  std::strftime(when, sizeof(when), "%H:%M:%S", &t);
  std::string what;
  const auto* d = reinterpret_cast<const uint8_t*>(f.data.data());
  if (f.data.size() >= 14) {
    const uint16_t type = uint16_t(d[12] << 8 | d[13]);
    char a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN];
    if (type == 0x0800 && f.data.size() >= 34) {
      inet_ntop(AF_INET, d + 26, a, sizeof(a));
      inet_ntop(AF_INET, d + 30, b, sizeof(b));
      what = std::string(" IP ") + a + " > " + b + " proto " + std::to_string(d[23]);
    } else if (type == 0x86dd && f.data.size() >= 54) {
      inet_ntop(AF_INET6, d + 22, a, sizeof(a));
      inet_ntop(AF_INET6, d + 38, b, sizeof(b));
      what = std::string(" IP6 ") + a + " > " + b + " next " + std::to_string(d[20]);
    } else if (type == 0x0806) {
      what = " ARP";
    } else {
      // Sized by the longest text: a 16-bit type is four hex digits.
      char buf[sizeof(" ethertype 0xffff")];
      std::snprintf(buf, sizeof(buf), " ethertype 0x%04x", unsigned(type));
      what = buf;
    }
  }
  std::printf("%s.%06llu %s %s length %u%s%s\n", when,
              static_cast<unsigned long long>(f.time_ns % 1000000000ull / 1000),
              names.count(f.port) ? names.at(f.port).c_str() : "?", f.where == CaptureWhere::kTx ? "out" : "in",
              f.orig_len, what.c_str(), verdictText(f).c_str());
}

}  // namespace

int cmdCapture(const Global& g) {
  if (g.help) return printHelp(g, kCaptureHelp);
  std::vector<std::string> a = g.args;
  std::string file, count_s, snap_s;
  const bool write = takeFlag(a, "-w", &file);
  if (!write && std::find(a.begin(), a.end(), "-w") != a.end())
    return usage("capture: -w needs a file name (or - for stdout)", kCaptureHelp);
  long long count = 0;
  if (takeFlag(a, "-c", &count_s)) {
    char* end = nullptr;
    count = std::strtoll(count_s.c_str(), &end, 10);
    if (count_s.empty() || *end || count <= 0)
      return usage("capture: -c: '" + count_s + "' is not a positive count", kCaptureHelp);
  }
  CaptureSpec spec;
  if (takeFlag(a, "--snaplen", &snap_s)) {
    char* end = nullptr;
    const long v = std::strtol(snap_s.c_str(), &end, 10);
    if (snap_s.empty() || *end || v < long(kCaptureMinSnaplen) || v > long(kCaptureMaxSnaplen))
      return usage("capture: --snaplen: '" + snap_s + "' is outside " +
                       std::to_string(kCaptureMinSnaplen) + ".." +
                       std::to_string(kCaptureMaxSnaplen),
                   kCaptureHelp);
    spec.snaplen = uint32_t(v);
  }
  spec.exceptions_only = takeFlag(a, "--punts");
  if (a.empty()) return usage("capture: missing TARGET (a link, segment or port)", kCaptureHelp);
  spec.target = a[0];
  a.erase(a.begin());
  if (!a.empty() && (a[0] == "a-to-b" || a[0] == "b-to-a")) {
    spec.direction = a[0] == "a-to-b" ? LinkDirection::kAToB : LinkDirection::kBToA;
    a.erase(a.begin());
  }
  std::string filter;
  for (const auto& w : a) filter += (filter.empty() ? "" : " ") + w;
  if (!filter.empty() && filter[0] == '-' && filter.find(' ') == std::string::npos)
    return usage("capture: unknown option '" + filter + "'", kCaptureHelp);

  // The filter is compiled before anything is asked of fastpathd: a typo costs nothing.
  pcap_t* dead = pcap_open_dead(DLT_EN10MB, int(spec.snaplen));
  if (!dead) return fail(makeError(-ENOMEM, "pcap_open_dead failed"), false);
  bpf_program prog{};
  const bool filtering = !filter.empty();
  if (filtering &&
      pcap_compile(dead, &prog, filter.c_str(), 1, PCAP_NETMASK_UNKNOWN) != 0) {
    const std::string why = pcap_geterr(dead);
    pcap_close(dead);
    return usage("capture: filter \"" + filter + "\": " + why, kCaptureHelp);
  }
  auto cleanup = [&] {
    if (filtering) pcap_freecode(&prog);
    pcap_close(dead);
  };

  Session s(g);
  if (int rc = s.connect()) {
    cleanup();
    return rc;
  }
  spec.node = g.node;
  // Without a filter fastpathd itself stops at the count.
  if (!filtering) spec.count = uint64_t(count);
  auto info = s.client().startCapture(spec);
  if (!info) {
    cleanup();
    return fail(info.error(), true);
  }
  pcap_dumper_t* dumper = nullptr;
  if (write) {
    // The file's header says the snap length fastpathd applies.
    pcap_t* out = pcap_open_dead(DLT_EN10MB, int(info->snaplen));
    dumper = file == "-" ? pcap_dump_fopen(out, stdout) : pcap_dump_open(out, file.c_str());
    if (!dumper) {
      const std::string why = pcap_geterr(out);
      pcap_close(out);
      (void)s.client().stopCapture(info->id);
      cleanup();
      return fail(makeError(-EIO, "capture: cannot write " + file + ": " + why), true);
    }
    pcap_close(out);  // the dumper keeps what it needs (link type, snap length)
  }
  const auto names = dumper ? std::map<PortId, std::string>{} : portNames(s, *info);
  std::fprintf(stderr, "fpctl: capturing on %s, snap length %u\n", info->description.c_str(),
               info->snaplen);
  uint64_t written = 0, filtered = 0, dropped = 0;
  bool stopping = false, reader_gone = false;
  int rc = kExitOk;
  for (;;) {
    if ((g_stop || reader_gone || (count && written >= uint64_t(count))) && !stopping) {
      stopping = true;
      if (auto st = s.client().stopCapture(info->id); !st) {
        rc = fail(st.error(), true);
        break;
      }
    }
    auto b = s.client().nextCaptureBatch(200);
    if (!b) {
      if (b.error().code == -EINTR) continue;
      rc = fail(b.error(), true);
      break;
    }
    if (!b.value()) continue;
    const CaptureBatch& batch = *b.value();
    dropped = batch.dropped;
    for (const CapturedFrame& f : batch.frames) {
      if (stopping || (count && written >= uint64_t(count))) break;
      pcap_pkthdr h{};
      h.ts.tv_sec = time_t(f.time_ns / 1000000000ull);
      h.ts.tv_usec = suseconds_t(f.time_ns % 1000000000ull / 1000);
      h.caplen = uint32_t(f.data.size());
      h.len = f.orig_len;
      const auto* bytes = reinterpret_cast<const u_char*>(f.data.data());
      if (filtering && !pcap_offline_filter(&prog, &h, bytes)) {
        ++filtered;
        continue;
      }
      if (dumper)
        pcap_dump(reinterpret_cast<u_char*>(dumper), &h, bytes);
      else
        printLine(names, f);
      ++written;
    }
    // Each batch reaches the reader at once (a pipe into tcpdump shows frames as they
    // come); a reader that went away (EPIPE: SIGPIPE is ignored) ends the capture.
    if (dumper ? pcap_dump_flush(dumper) != 0 : std::fflush(stdout) != 0) reader_gone = true;
    if (batch.done) break;
  }
  if (dumper) pcap_dump_close(dumper);
  cleanup();
  std::fprintf(stderr,
               "%llu frames captured\n%llu frames dropped by fastpathd\n%llu frames filtered "
               "out\n",
               static_cast<unsigned long long>(written), static_cast<unsigned long long>(dropped),
               static_cast<unsigned long long>(filtered));
  return rc;
}

}  // namespace fastpath::ctrl::fpctl
