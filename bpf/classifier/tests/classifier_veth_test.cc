// SPDX-License-Identifier: GPL-2.0-only
// The classifier attached for real (libxdp, native mode) to a veth end in a private
// namespace: frames of every class sent from the peer namespace arrive on an AF_XDP
// socket with their fp_xdp_meta, PASS frames reach the kernel, counters match, and
// detaching leaves no XDP program. Plus the loader's error and stale-attachment paths.
#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <gtest/gtest.h>
#include <linux/if_ether.h>
#include <linux/if_link.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xdp/libxdp.h>

#include <chrono>
#include <map>
#include <set>

#include "classifier_fixtures.h"
#include "fastpath/monotonic_clock.h"

namespace fastpath::testing {
namespace {

/// A raw AF_PACKET socket on an interface of the current namespace.
class PacketSocket {
 public:
  explicit PacketSocket(const std::string& ifname) {
    fd_ = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, htons(ETH_P_ALL));
    sockaddr_ll sll{};
    sll.sll_family = AF_PACKET;
    sll.sll_protocol = htons(ETH_P_ALL);
    sll.sll_ifindex = static_cast<int>(if_nametoindex(ifname.c_str()));
    if (fd_ >= 0 && bind(fd_, reinterpret_cast<sockaddr*>(&sll), sizeof(sll)) != 0) {
      close(fd_);
      fd_ = -1;
    }
  }
  ~PacketSocket() {
    if (fd_ >= 0) close(fd_);
  }
  bool ok() const { return fd_ >= 0; }
  bool send(const Bytes& f) {
    return ::send(fd_, f.data(), f.size(), 0) == static_cast<ssize_t>(f.size());
  }
  /// Incoming (not outgoing) frames seen within timeout_ms.
  std::vector<Bytes> receive(int timeout_ms) {
    std::vector<Bytes> got;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    while (std::chrono::steady_clock::now() < deadline) {
      pollfd p{fd_, POLLIN, 0};
      poll(&p, 1, 20);
      Bytes buf(2048);
      sockaddr_ll from{};
      socklen_t len = sizeof(from);
      ssize_t n;
      while ((n = recvfrom(fd_, buf.data(), buf.size(), 0, reinterpret_cast<sockaddr*>(&from),
                           &len)) > 0) {
        if (from.sll_pkttype != PACKET_OUTGOING) got.emplace_back(buf.begin(), buf.begin() + n);
        len = sizeof(from);
      }
    }
    return got;
  }

 private:
  int fd_ = -1;
};

struct XdpState {
  uint32_t drv = 0, skb = 0;
};

XdpState xdpQuery(const std::string& ifname) {
  XdpState s;
  LIBBPF_OPTS(bpf_xdp_query_opts, q);
  int ifindex = static_cast<int>(if_nametoindex(ifname.c_str()));
  if (ifindex && bpf_xdp_query(ifindex, 0, &q) == 0) {
    s.drv = q.drv_prog_id;
    s.skb = q.skb_prog_id;
  }
  return s;
}

int countOurPrograms(const std::string& ifname) {
  xdp_multiprog* mp =
      xdp_multiprog__get_from_ifindex(static_cast<int>(if_nametoindex(ifname.c_str())));
  if (!mp || libxdp_get_error(mp)) return 0;
  int n = 0;
  if (xdp_multiprog__is_legacy(mp)) {
    n = std::string(xdp_program__name(xdp_multiprog__main_prog(mp))) == "xdp_fp_classify";
  } else {
    for (xdp_program* p = xdp_multiprog__next_prog(nullptr, mp); p;
         p = xdp_multiprog__next_prog(p, mp))
      n += std::string(xdp_program__name(p)) == "xdp_fp_classify";
  }
  xdp_multiprog__close(mp);
  return n;
}

class ClassifierVethTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!havePrivileges(&why)) GTEST_SKIP() << why;
    topo_ = std::make_unique<Topology>("cls");
    dut_ = topo_->addNamespace("dut");
    peer_ = topo_->addNamespace("peer");
    // No IPv6 on the link: the kernel's own ND/MLD would interleave with our frames.
    for (const std::string& ns : {dut_, peer_})
      topo_->exec(ns,
                  "sysctl -qw net.ipv6.conf.all.disable_ipv6=1 "
                  "net.ipv6.conf.default.disable_ipv6=1");
    topo_->addVeth(dut_, "fp0", peer_, "peer0");
    // The fixtures' destination MAC: attach() reads the port's MAC from the interface, and
    // only frames to it (or broadcast/multicast) are not dropped as for another host.
    topo_->exec(dut_, "ip link set fp0 address " + MacAddress{kDstMac}.toString());
    options_.ifname = "fp0";
    options_.run_dir = "/run/fastpathd";
  }

  std::unique_ptr<Topology> topo_;
  std::string dut_, peer_;
  ClassifierOptions options_;
};

TEST_F(ClassifierVethTest, EveryClassArrivesOnTheSocketWithMetadataAndDetachIsClean) {
  std::unique_ptr<Classifier> cls;
  std::unique_ptr<TestXsk> xsk;
  std::unique_ptr<PacketSocket> host;
  {
    NetnsGuard in(dut_);
    ASSERT_TRUE(in.ok());
    auto c = Classifier::attach(options_);
    ASSERT_TRUE(c) << c.error().message;
    cls = std::move(c.value());
    EXPECT_TRUE(cls->attached());
    EXPECT_EQ(cls->mode(), "native") << "veth supports native XDP";
    EXPECT_EQ(countOurPrograms("fp0"), 1);
    ASSERT_TRUE(cls->setRules(fixtureRules()));
    std::string err;
    xsk = TestXsk::create("fp0", 0, cls->xsksMapFd(), &err);
    ASSERT_TRUE(xsk) << err;
    host = std::make_unique<PacketSocket>("fp0");
    ASSERT_TRUE(host->ok());
  }
  const std::vector<Fixture> fx = fixtures();
  std::map<Bytes, const Fixture*> by_frame;
  size_t to_xsk = 0, to_kernel = 0, dropped = 0;
  std::array<uint64_t, FP_VERDICT_MAX> verdicts{};
  const uint64_t sending_from = monotonicNs();
  {
    NetnsGuard in(peer_);
    PacketSocket wire("peer0");
    ASSERT_TRUE(wire.ok());
    for (const Fixture& f : fx) {
      ASSERT_TRUE(wire.send(f.frame)) << f.description;
      by_frame[f.frame] = &f;
      (f.verdict == FP_VERDICT_PASS   ? to_kernel
       : f.verdict == FP_VERDICT_DROP ? dropped
                                      : to_xsk)++;
      verdicts[f.verdict]++;
    }
  }
  std::vector<TestXsk::Rx> got = xsk->receive(to_xsk, 3000);
  const uint64_t taken_by = monotonicNs();
  ASSERT_EQ(got.size(), to_xsk);
  std::set<std::string> seen;
  for (const TestXsk::Rx& rx : got) {
    auto it = by_frame.find(rx.frame);
    ASSERT_NE(it, by_frame.end()) << "unexpected frame of " << rx.frame.size() << " bytes";
    const Fixture& f = *it->second;
    SCOPED_TRACE(f.description);
    seen.insert(f.description);
    ASSERT_TRUE(rx.has_meta) << "copy-mode AF_XDP must carry the XDP metadata";
    EXPECT_EQ(rx.meta.verdict, f.verdict);
    EXPECT_STREQ(reasonName(rx.meta.reason), reasonName(f.reason));
    EXPECT_EQ(rx.meta.l3_proto, f.l3);
    EXPECT_EQ(rx.meta.l4_proto, f.l4_proto);
    EXPECT_EQ(rx.meta.l3_offset, f.l3_off);
    EXPECT_EQ(rx.meta.l4_offset, f.l4_off);
    // The arrival stamp crosses copy mode with the rest of the metadata: taken when the
    // frame reached XDP (after its send), before the socket was read.
    EXPECT_NE(rx.meta.rx_ns, 0u) << "copy-mode AF_XDP must carry the arrival stamp";
    EXPECT_LE(rx.meta.rx_ns, taken_by);
    EXPECT_GE(rx.meta.rx_ns, sending_from);
  }
  EXPECT_EQ(seen.size(), to_xsk);
  // PASS frames went to the kernel's stack (seen by a packet socket), the others did not.
  std::vector<Bytes> kernel = host->receive(300);
  size_t passed = 0;
  for (const Bytes& b : kernel) {
    auto it = by_frame.find(b);
    if (it == by_frame.end()) continue;
    EXPECT_EQ(it->second->verdict, FP_VERDICT_PASS) << it->second->description;
    passed++;
  }
  EXPECT_EQ(passed, to_kernel);

  auto stats = cls->readStats();
  ASSERT_TRUE(stats);
  for (unsigned v = 0; v < FP_VERDICT_MAX; ++v)
    EXPECT_EQ(stats->verdict[v].packets, verdicts[v]) << verdictName(v);

  // Without a socket the policy (PASS) applies: the frame reaches the kernel, counted.
  xsk.reset();
  {
    NetnsGuard in(peer_);
    PacketSocket wire("peer0");
    ASSERT_TRUE(wire.send(fx.front().frame));
  }
  size_t seen_again = 0;
  for (const Bytes& b : host->receive(300)) seen_again += b == fx.front().frame;
  EXPECT_EQ(seen_again, 1u);
  stats = cls->readStats();
  ASSERT_TRUE(stats);
  EXPECT_EQ(stats->reason[FP_REASON_NO_XSK_PASS].packets, 1u);

  NetnsGuard in(dut_);
  cls.reset();
  XdpState s = xdpQuery("fp0");
  EXPECT_EQ(s.drv, 0u) << "detach must leave no XDP program";
  EXPECT_EQ(s.skb, 0u);
  EXPECT_EQ(topo_->execOutput(dut_, "ip link show fp0").find("xdp"), std::string::npos);
}

// veth refuses native XDP for programs without frags support when the MTU exceeds a page;
// generic mode has no such limit. That makes the generic fallback testable for real.
TEST_F(ClassifierVethTest, NativeRefusedFallsBackToGenericAndStillMarksFrames) {
  ASSERT_EQ(topo_->exec(dut_, "ip link set dev fp0 mtu 9000"), 0);
  ASSERT_EQ(topo_->exec(peer_, "ip link set dev peer0 mtu 9000"), 0);
  std::unique_ptr<Classifier> cls;
  std::unique_ptr<TestXsk> xsk;
  {
    NetnsGuard in(dut_);
    options_.allow_generic = false;
    auto strict = Classifier::attach(options_);
    ASSERT_FALSE(strict) << "native XDP accepted at MTU 9000?";
    EXPECT_NE(strict.error().message.find("fp0"), std::string::npos) << strict.error().message;
    EXPECT_NE(strict.error().message.find("native"), std::string::npos) << strict.error().message;
    EXPECT_EQ(xdpQuery("fp0").drv, 0u);

    options_.allow_generic = true;
    auto c = Classifier::attach(options_);
    ASSERT_TRUE(c) << c.error().message;
    cls = std::move(c.value());
    EXPECT_EQ(cls->mode(), "generic");
    EXPECT_NE(xdpQuery("fp0").skb, 0u);
    ASSERT_TRUE(cls->setRules(fixtureRules()));
    std::string err;
    xsk = TestXsk::create("fp0", 0, cls->xsksMapFd(), &err);
    ASSERT_TRUE(xsk) << err;
  }
  const std::vector<Fixture> fx = fixtures();
  {
    NetnsGuard in(peer_);
    PacketSocket wire("peer0");
    ASSERT_TRUE(wire.send(fx.front().frame));  // ipv4 udp data
  }
  auto got = xsk->receive(1, 3000);
  ASSERT_EQ(got.size(), 1u);
  ASSERT_TRUE(got[0].has_meta) << "generic XDP + copy-mode AF_XDP carry the metadata too";
  EXPECT_EQ(got[0].meta.verdict, FP_VERDICT_DATA);
  EXPECT_EQ(got[0].meta.l4_offset, fx.front().l4_off);
  xsk.reset();
  NetnsGuard in(dut_);
  cls.reset();
  EXPECT_EQ(xdpQuery("fp0").skb, 0u) << "detach removes the generic program";
}

TEST_F(ClassifierVethTest, MissingInterfaceErrorNamesIt) {
  NetnsGuard in(dut_);
  options_.ifname = "fp-nope0";
  auto c = Classifier::attach(options_);
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().code, -ENODEV);
  EXPECT_NE(c.error().message.find("fp-nope0"), std::string::npos) << c.error().message;
  EXPECT_NE(c.error().message.find("ip link"), std::string::npos) << c.error().message;
}

/// Runs fn in a forked child (so privilege drops and environment changes stay there) and
/// returns what it wrote to the pipe.
template <typename Fn>
std::string inChild(Fn fn) {
  int p[2];
  if (pipe(p) != 0) return "pipe failed";
  pid_t child = fork();
  if (child == 0) {
    close(p[0]);
    std::string out = fn();
    ssize_t w = write(p[1], out.data(), out.size());
    (void)w;
    _exit(0);
  }
  close(p[1]);
  std::string out;
  char buf[512];
  ssize_t n;
  while ((n = read(p[0], buf, sizeof(buf))) > 0) out.append(buf, static_cast<size_t>(n));
  close(p[0]);
  waitpid(child, nullptr, 0);
  return out;
}

TEST_F(ClassifierVethTest, UnprivilegedAttachSaysRootIsNeeded) {
  std::string msg = inChild([&] {
    NetnsGuard in(dut_);
    if (setgid(65534) != 0 || setuid(65534) != 0) return std::string("setuid failed");
    auto c = Classifier::attach(options_);
    if (c) return std::string("attached without privileges?");
    return std::to_string(c.error().code) + " " + c.error().message;
  });
  EXPECT_EQ(msg.rfind(std::to_string(-EPERM) + " ", 0), 0u) << msg;
  EXPECT_NE(msg.find("fp0"), std::string::npos) << msg;
  EXPECT_NE(msg.find("root"), std::string::npos) << msg;
}

TEST_F(ClassifierVethTest, MissingBpffsIsNamedWithTheFix) {
  std::string msg = inChild([&] {
    NetnsGuard in(dut_);
    setenv("LIBXDP_BPFFS", "/tmp", 1);  // not a bpffs: what libxdp would use
    auto c = Classifier::attach(options_);
    if (c) return std::string("attached without bpffs?");
    return c.error().message;
  });
  EXPECT_NE(msg.find("bpffs is not mounted at /tmp"), std::string::npos) << msg;
  EXPECT_NE(msg.find("mount -t bpf"), std::string::npos) << msg;
  NetnsGuard in(dut_);
  EXPECT_EQ(xdpQuery("fp0").drv, 0u) << "nothing attached on failure";
}

TEST_F(ClassifierVethTest, StaleAttachmentOfDeadOwnerIsRemovedLiveOwnerRefused) {
  // A "crashed" run: a child attaches and exits without detaching.
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    NetnsGuard in(dut_);
    auto c = Classifier::attach(options_);
    if (!c) _exit(1);
    c.value().release();  // leak: no destructor, like a crash
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);

  NetnsGuard in(dut_);
  ASSERT_EQ(countOurPrograms("fp0"), 1) << "the dead run's program is still attached";
  auto c = Classifier::attach(options_);
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(countOurPrograms("fp0"), 1) << "stale one replaced, not stacked";

  // Same interface again while the owner (this process) lives: refused.
  auto again = Classifier::attach(options_);
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().code, -EBUSY);
  EXPECT_NE(again.error().message.find(std::to_string(getpid())), std::string::npos)
      << again.error().message;

  c.value().reset();
  EXPECT_EQ(xdpQuery("fp0").drv, 0u);
}

TEST_F(ClassifierVethTest, ForeignNonDispatcherProgramIsNotTouched) {
  NetnsGuard in(dut_);
  const bpf_insn insns[] = {
      {BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, XDP_PASS},
      {BPF_JMP | BPF_EXIT, 0, 0, 0, 0},
  };
  int fd = bpf_prog_load(BPF_PROG_TYPE_XDP, "foreign_xdp", "GPL", insns, 2, nullptr);
  ASSERT_GE(fd, 0);
  int ifindex = static_cast<int>(if_nametoindex("fp0"));
  ASSERT_EQ(bpf_xdp_attach(ifindex, fd, XDP_FLAGS_DRV_MODE, nullptr), 0);
  auto c = Classifier::attach(options_);
  ASSERT_FALSE(c);
  EXPECT_NE(c.error().message.find("foreign_xdp"), std::string::npos) << c.error().message;
  EXPECT_NE(xdpQuery("fp0").drv, 0u) << "the foreign program stays";
  bpf_xdp_detach(ifindex, XDP_FLAGS_DRV_MODE, nullptr);
  close(fd);
}

}  // namespace
}  // namespace fastpath::testing
