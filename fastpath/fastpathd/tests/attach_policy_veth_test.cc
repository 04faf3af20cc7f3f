// SPDX-License-Identifier: GPL-2.0-only
// Who may attach which interface, through a real fastpathd in an fp-* namespace, as root
// (the test) and as an operator (a forked child that became uid 65534, the socket's owner
// by --socket-uid): loopback, a bond's member and the default route's interface are
// refused to root with their reasons; an operator attaches what --attachable names and
// nothing else; root attaches any other interface.
#include <sys/wait.h>
#include <grp.h>
#include <signal.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "fastpath/ctrl/client.h"
#include "fastpathd_child.h"
#include "netns.h"

namespace fastpath {
namespace {

using testing::Topology;

constexpr uid_t kOperator = 65534;

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

class AttachPolicyVeth : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!testing::havePrivileges(&why)) GTEST_SKIP() << why;
    topo_ = std::make_unique<Topology>("apv");
    d_ = topo_->addNamespace("d");
    sock_ = "/tmp/fp-attachpolicy-" + std::to_string(::getpid()) + ".sock";
    topo_file_ = "/tmp/fp-attachpolicy-" + std::to_string(::getpid()) + ".yaml";
    std::ofstream(topo_file_) << "nodes: []\n";
    log_ = ::testing::TempDir() + "fp-attachpolicy-fastpathd.log";
    // va0/vo0/vd0: veth pairs (peers va0p, vo0p, vd0p); vd0 carries the default route.
    // Every command in the namespace on its own: `ip netns exec` runs one command.
    auto in = [&](const std::string& cmd) { return topo_->exec(d_, cmd); };
    for (const std::string v : {"va0", "vo0", "vd0"}) {
      ASSERT_EQ(in("ip link add " + v + " type veth peer name " + v + "p"), 0);
      ASSERT_EQ(in("ip link set " + v + " up"), 0);
      ASSERT_EQ(in("ip link set " + v + "p up"), 0);
    }
    ASSERT_EQ(in("ip addr add 198.18.9.1/24 dev vd0"), 0);
    ASSERT_EQ(in("ip route add default via 198.18.9.2 dev vd0"), 0);
    have_bond_ = in("ip link add bd0 type bond 2>/dev/null") == 0 &&
                 in("ip link add bm0 type dummy") == 0 && in("ip link set bm0 master bd0") == 0;
  }

  void TearDown() override {
    client_.reset();
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      int status = 0;
      ::waitpid(pid_, &status, 0);
    }
    std::remove(topo_file_.c_str());
  }

  void startDaemon() {
    pid_ = testing::spawnInNetns(
        d_, log_,
        {FASTPATHD_PATH, "--topology", topo_file_, "--socket", sock_, "--socket-uid",
         std::to_string(kOperator), "--attachable", "va*", "--no-tune"});
    ASSERT_GE(pid_, 0);
    testing::connectWhenOpen(sock_, log_, &client_);
  }

  /// Attaches `ifname` to r1 as the operator (a child with uid 65534); the error message,
  /// "" when attached, or "child: ..." when the child could not ask.
  std::string attachAsOperator(const std::string& ifname) {
    int fds[2];
    if (::pipe(fds) != 0) return "child: pipe";
    pid_t pid = ::fork();
    if (pid == 0) {
      ::close(fds[0]);
      std::string out;
      if (::setgroups(0, nullptr) != 0 || ::setgid(kOperator) != 0 || ::setuid(kOperator) != 0) {
        out = "child: setuid failed";
      } else if (auto c = ctrl::Client::connect(sock_, {}); !c) {
        out = "child: connect: " + c.error().message;
      } else if (auto p = (*c)->attachInterface("r1", ifname); !p) {
        out = p.error().message;
      }
      (void)!::write(fds[1], out.data(), out.size());
      _exit(0);
    }
    ::close(fds[1]);
    std::string got;
    char buf[512];
    for (ssize_t n; (n = ::read(fds[0], buf, sizeof(buf))) > 0;) got.append(buf, size_t(n));
    ::close(fds[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    return got;
  }

  std::string attachAsRoot(const std::string& ifname) {
    auto p = client_->attachInterface("r1", ifname);
    return p ? "" : p.error().message;
  }

  std::unique_ptr<Topology> topo_;
  std::string d_, sock_, topo_file_, log_;
  pid_t pid_ = -1;
  bool have_bond_ = false;
  std::unique_ptr<ctrl::Client> client_;
};

TEST_F(AttachPolicyVeth, RootAndOperatorEachAttachWhatTheyMayAndHearWhyNot) {
  startDaemon();
  ASSERT_TRUE(client_);
  ASSERT_TRUE(client_->createNode(NodeSpec{"r1", "local"}).ok());

  // Refused to root too, each with its reason.
  std::string e = attachAsRoot("lo");
  EXPECT_TRUE(contains(e, "attach_interface.ifname: lo is the loopback interface")) << e;
  e = attachAsRoot("vd0");
  EXPECT_TRUE(contains(e, "vd0 carries the namespace's default route")) << e;
  EXPECT_TRUE(contains(e, "--attachable vd0")) << e;
  if (have_bond_) {
    e = attachAsRoot("bm0");
    EXPECT_TRUE(contains(e, "bm0 is a member of bond bd0")) << e;
  }

  // The operator: what --attachable names (va*), nothing else.
  e = attachAsOperator("vo0");
  EXPECT_TRUE(contains(e, "vo0 is not attachable by an operator")) << e;
  EXPECT_TRUE(contains(e, "--attachable")) << e;
  EXPECT_EQ(attachAsOperator("lo").find("loopback") != std::string::npos, true);
  EXPECT_EQ(attachAsOperator("va0"), "");

  // Root: any other interface.
  EXPECT_EQ(attachAsRoot("vo0"), "");
  auto ports = client_->ports("r1");
  ASSERT_TRUE(ports.ok());
  int attached = 0;
  for (const auto& p : *ports) attached += p.ifname == "va0" || p.ifname == "vo0";
  EXPECT_EQ(attached, 2);
  if (!have_bond_)
    std::printf("[   INFO   ] no bonding in this kernel: the bond member was not tried here "
                "(attach_policy_test has it)\n");
}

}  // namespace
}  // namespace fastpath
