// SPDX-License-Identifier: GPL-2.0-only
// The attach policy without root: the decision for every kind of interface and requester,
// --attachable on the command line and in the config file, and the facts the kernel gives
// about loopback (read-only, in the test's own namespace).
#include <gtest/gtest.h>

#include <cerrno>
#include <string>
#include <vector>

#include "daemon/attach_policy.h"
#include "daemon/config.h"

namespace fastpath {
namespace {

InterfaceFacts plain(const std::string& name) {
  InterfaceFacts f;
  f.ifname = name;
  return f;
}

constexpr auto kRoot = AttachRequester::kRoot;
constexpr auto kOperator = AttachRequester::kOperator;

TEST(AttachPolicy, OperatorsAttachOwnedAndAttachableInterfacesOnly) {
  const AttachPolicy policy({"lab*", "tap[0-3]"}, {"fh-h1", "fp0"});
  for (const char* ok : {"fh-h1", "fp0", "lab", "lab7", "tap2"})
    EXPECT_TRUE(policy.check(plain(ok), kOperator).ok()) << ok;
  for (const char* no : {"eth1", "tap4", "xlab", "fh-h2"}) {
    auto st = policy.check(plain(no), kOperator);
    ASSERT_FALSE(st.ok()) << no;
    EXPECT_EQ(st.error().code, -EPERM);
    EXPECT_NE(st.error().message.find("--attachable"), std::string::npos) << st.error().message;
    EXPECT_NE(st.error().message.find("root may"), std::string::npos) << st.error().message;
    // Root may.
    EXPECT_TRUE(policy.check(plain(no), kRoot).ok()) << no;
  }
}

TEST(AttachPolicy, ByDefaultAnOperatorHasOnlyWhatFastpathdMadeOrWasGiven) {
  const AttachPolicy policy({}, {"fh-h1"});
  EXPECT_TRUE(policy.check(plain("fh-h1"), kOperator).ok());
  EXPECT_FALSE(policy.check(plain("veth0"), kOperator).ok());
  EXPECT_TRUE(policy.check(plain("veth0"), kRoot).ok());
}

TEST(AttachPolicy, TheDefaultRouteInterfaceNeedsItsNameEvenForRoot) {
  InterfaceFacts mgmt = plain("eth0");
  mgmt.default_route = true;
  for (auto who : {kRoot, kOperator}) {
    auto st = AttachPolicy({}, {}).check(mgmt, who);
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.error().code, -EPERM);
    EXPECT_NE(st.error().message.find("default route"), std::string::npos);
    EXPECT_NE(st.error().message.find("--attachable eth0"), std::string::npos)
        << st.error().message;
    // A wildcard does not give it away, nor does having been given it at start.
    EXPECT_FALSE(AttachPolicy({"*", "eth*"}, {"eth0"}).check(mgmt, who).ok());
    EXPECT_TRUE(AttachPolicy({"eth0"}, {}).check(mgmt, who).ok());
  }
}

TEST(AttachPolicy, LoopbackBondMembersAndOtherXdpProgramsAreRefusedToEveryone) {
  const AttachPolicy everything({"*", "lo", "bm0", "vz0"}, {"lo", "bm0", "vz0"});
  InterfaceFacts lo = plain("lo");
  lo.loopback = true;
  InterfaceFacts member = plain("bm0");
  member.bond_member = true;
  member.master = "bond0";
  InterfaceFacts xdp = plain("vz0");
  xdp.xdp_prog_id = 42;
  struct Case {
    InterfaceFacts f;
    int code;
    const char* reason;
  } cases[] = {{lo, -EINVAL, "loopback"},
               {member, -EBUSY, "member of bond bond0"},
               {xdp, -EBUSY, "another XDP program (id 42"}};
  for (const auto& c : cases)
    for (auto who : {kRoot, kOperator}) {
      auto st = everything.check(c.f, who);
      ASSERT_FALSE(st.ok()) << c.f.ifname;
      EXPECT_EQ(st.error().code, c.code) << st.error().message;
      EXPECT_NE(st.error().message.find(c.reason), std::string::npos) << st.error().message;
    }
}

TEST(AttachPolicy, PatternsAreInterfaceNames) {
  for (const char* ok : {"eth0", "veth*", "tap[0-9]", "a?c", "fifteen-chars15"})
    EXPECT_TRUE(validateAttachablePattern(ok).ok()) << ok;
  for (const char* no : {"", "sixteen-chars-16", "a/b", "a:b", "a b", "a\tb"})
    EXPECT_FALSE(validateAttachablePattern(no).ok()) << no;
}

Result<Config> parse(std::vector<std::string> args) {
  std::vector<char*> argv{const_cast<char*>("fastpathd")};
  for (auto& a : args) argv.push_back(a.data());
  return parseCommandLine(int(argv.size()), argv.data());
}

TEST(AttachPolicy, AttachableFromTheCommandLineAndTheConfigFile) {
  auto c = parse({"--attachable", "lab*,tap0", "--attachable=eth0"});
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->attachable, (std::vector<std::string>{"lab*", "tap0", "eth0"}));
  Config f;
  ASSERT_TRUE(parseConfigText("attachable lab*,tap0\n", "test.conf", &f).ok());
  EXPECT_EQ(f.attachable, (std::vector<std::string>{"lab*", "tap0"}));
  auto bad = parse({"--attachable", "a/b"});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("--attachable \"a/b\""), std::string::npos)
      << bad.error().message;
}

TEST(InterfaceFacts, LoopbackIsSeenAndAMissingInterfaceIsNoDevice) {
  auto lo = readInterfaceFacts("lo");
  ASSERT_TRUE(lo.ok()) << lo.error().message;
  EXPECT_TRUE(lo->loopback);
  EXPECT_FALSE(lo->bond_member);
  EXPECT_FALSE(lo->default_route);
  auto none = readInterfaceFacts("fp-no-such-if");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().code, -ENODEV);
}

}  // namespace
}  // namespace fastpath
