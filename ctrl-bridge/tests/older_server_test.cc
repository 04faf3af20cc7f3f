// SPDX-License-Identifier: GPL-2.0-only
// The client library against a fastpathd of an older protocol minor: a feature that fastpathd
// would silently ignore is refused, naming both versions, and never sent.
#include <gtest/gtest.h>

#include <cerrno>
#include <string>

#include "fastpath/ctrl/client.h"
#include "older_server.h"

namespace fastpath::ctrl {
namespace {

using testing::OlderServer;

TEST(OlderServer, AQueueDisciplineIsRefusedNamingBothVersionsNotDroppedUnseen) {
  OlderServer server(8);
  ASSERT_FALSE(server.path().empty());
  {
    auto c = Client::connect(server.path());
    ASSERT_TRUE(c) << c.error().message;
    EXPECT_EQ((*c)->serverInfo().minor, 8u);
    LinkParams codel;
    codel.aqm = LinkParams::Aqm::kCoDel;
    LinkSpec spec;
    spec.name = "l1";
    spec.b_to_a = codel;
    auto st = (*c)->createLink(spec);
    ASSERT_FALSE(st);
    EXPECT_EQ(st.error().code, -EPROTONOSUPPORT);
    const std::string both = "needs protocol 1.9 (this client speaks 1." +
                             std::to_string(kProtocolMinor) + "); fastpathd speaks 1.8";
    EXPECT_NE(st.error().message.find("create_link: a queue discipline (aqm codel) " + both),
              std::string::npos)
        << st.error().message;
    st = (*c)->setLinkParams("l1", LinkDirection::kAToB, codel);
    ASSERT_FALSE(st);
    EXPECT_EQ(st.error().code, -EPROTONOSUPPORT);
    EXPECT_NE(st.error().message.find("set_link_params: "), std::string::npos)
        << st.error().message;
    // Without a queue discipline the same calls reach the server.
    spec.b_to_a = LinkParams{};
    spec.b_to_a.delay_ns = 1000000;
    EXPECT_TRUE((*c)->createLink(spec));
    codel.aqm = LinkParams::Aqm::kNone;
    EXPECT_TRUE((*c)->setLinkParams("l1", LinkDirection::kAToB, codel));
  }
  int hello = 0, create = 0, set = 0;
  for (const v1::Request& r : server.requests()) {
    hello += r.has_hello();
    create += r.has_create_link();
    set += r.has_set_link_params();
    if (r.has_create_link()) {
      EXPECT_FALSE(r.create_link().b_to_a().has_aqm()) << "no queue discipline was sent";
    }
  }
  EXPECT_EQ(hello, 1);
  EXPECT_EQ(create, 1) << "only the link without a queue discipline";
  EXPECT_EQ(set, 1);
}

TEST(OlderServer, FqCoDelIsRefusedNamingBothVersionsWhereCoDelStillGoes) {
  OlderServer server(11);
  ASSERT_FALSE(server.path().empty());
  {
    auto c = Client::connect(server.path());
    ASSERT_TRUE(c) << c.error().message;
    LinkParams fq;
    fq.aqm = LinkParams::Aqm::kFqCoDel;
    LinkSpec spec;
    spec.name = "l1";
    spec.a_to_b = fq;
    auto st = (*c)->createLink(spec);
    ASSERT_FALSE(st);
    EXPECT_EQ(st.error().code, -EPROTONOSUPPORT);
    EXPECT_NE(st.error().message.find("create_link: a flow-queue discipline (aqm fq_codel) needs "
                                      "protocol 1.12 (this client speaks 1." +
                                      std::to_string(kProtocolMinor) + "); fastpathd speaks 1.11"),
              std::string::npos)
        << st.error().message;
    st = (*c)->setLinkParams("l1", LinkDirection::kBoth, fq);
    ASSERT_FALSE(st);
    EXPECT_NE(st.error().message.find("set_link_params: "), std::string::npos)
        << st.error().message;
    // CoDel, which a 1.11 fastpathd has, still goes.
    LinkParams codel;
    codel.aqm = LinkParams::Aqm::kCoDel;
    EXPECT_TRUE((*c)->setLinkParams("l1", LinkDirection::kBoth, codel));
  }
  int set = 0;
  for (const v1::Request& r : server.requests()) {
    EXPECT_FALSE(r.has_create_link()) << "no FqCoDel link was sent";
    if (r.has_set_link_params()) {
      ++set;
      EXPECT_EQ(r.set_link_params().params().aqm().kind(), v1::LinkAqm::AQM_CODEL);
    }
  }
  EXPECT_EQ(set, 1);
}

TEST(OlderServer, RedIsRefusedNamingBothVersionsNotSentAsAnUnknownKind) {
  OlderServer server(11);
  ASSERT_FALSE(server.path().empty());
  {
    auto c = Client::connect(server.path());
    ASSERT_TRUE(c) << c.error().message;
    LinkParams red;
    red.rate_bps = 1000000;
    red.aqm = LinkParams::Aqm::kRed;
    red.aqm_limit_packets = 1000;
    LinkSpec spec;
    spec.name = "l1";
    spec.a_to_b = red;
    auto st = (*c)->createLink(spec);
    ASSERT_FALSE(st);
    EXPECT_EQ(st.error().code, -EPROTONOSUPPORT);
    EXPECT_NE(st.error().message.find("create_link: RED (aqm red) needs protocol 1.12 (this "
                                      "client speaks 1." +
                                      std::to_string(kProtocolMinor) + "); fastpathd speaks 1.11"),
              std::string::npos)
        << st.error().message;
    st = (*c)->setLinkParams("l1", LinkDirection::kBoth, red);
    ASSERT_FALSE(st);
    EXPECT_EQ(st.error().code, -EPROTONOSUPPORT);
    // CoDel is 1.9: the same server takes it.
    red.aqm = LinkParams::Aqm::kCoDel;
    spec.a_to_b = red;
    EXPECT_TRUE((*c)->createLink(spec));
  }
  for (const v1::Request& r : server.requests()) {
    if (r.has_create_link()) {
      EXPECT_NE(r.create_link().a_to_b().aqm().kind(), v1::LinkAqm::AQM_RED) << "never sent";
    }
    if (r.has_set_link_params()) ADD_FAILURE() << "RED's set_link_params was sent";
  }
}

// Protocol 1.14: a reset of the statistics is refused by the client before a 1.13 server
// would answer UNIMPLEMENTED, and that server's stats say nothing of since when.
TEST(OlderServer, AStatsResetIsRefusedNamingTheVersionAndNeverSent) {
  EXPECT_GE(kProtocolMinor, 14u) << "ResetStats and Stats.histograms_since_unix_ns are 1.14";
  OlderServer server(13);
  ASSERT_FALSE(server.path().empty());
  {
    auto c = Client::connect(server.path());
    ASSERT_TRUE(c) << c.error().message;
    auto r = (*c)->resetStats();
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, -ENOSYS);
    EXPECT_NE(r.error().message.find("reset_stats: fastpathd speaks protocol 1.13; resetting "
                                     "the statistics needs 1.14"),
              std::string::npos)
        << r.error().message;
  }
  for (const v1::Request& r : server.requests())
    EXPECT_FALSE(r.has_reset_stats()) << "reset_stats was sent to a 1.13 server";
}

TEST(OlderServer, ABridgeIsRefusedNamingBothVersions) {
  OlderServer server(10);
  ASSERT_FALSE(server.path().empty());
  {
    auto c = Client::connect(server.path());
    ASSERT_TRUE(c) << c.error().message;
    BridgeSpec b;
    b.name = "br";
    b.node = "sw";
    b.ports = {"p1", "p2"};
    auto st = (*c)->createBridge(b);
    ASSERT_FALSE(st);
    EXPECT_EQ(st.error().code, -EPROTONOSUPPORT);
    EXPECT_NE(st.error().message.find("create_bridge: bridges need protocol 1.11 (this client "
                                      "speaks 1." +
                                      std::to_string(kProtocolMinor) + "); fastpathd speaks 1.10"),
              std::string::npos)
        << st.error().message;
    auto list = (*c)->bridges();
    ASSERT_FALSE(list);
    EXPECT_EQ(list.error().code, -EPROTONOSUPPORT);
    EXPECT_NE(list.error().message.find("get_bridges: "), std::string::npos);
  }
}

TEST(OlderServer, OneEndOfALinkIsRefusedNotTurnedIntoTheWholeLink) {
  OlderServer server(9);
  ASSERT_FALSE(server.path().empty());
  {
    auto c = Client::connect(server.path());
    ASSERT_TRUE(c) << c.error().message;
    auto st = (*c)->setLinkState("l1", false, "r1");
    ASSERT_FALSE(st);
    EXPECT_EQ(st.error().code, -EPROTONOSUPPORT);
    EXPECT_NE(st.error().message.find("set_link_state: setting r1's end alone needs protocol "
                                      "1.10 (this client speaks 1." +
                                      std::to_string(kProtocolMinor) + "); fastpathd speaks 1.9"),
              std::string::npos)
        << st.error().message;
    // The whole link: the same call without a node reaches the server.
    EXPECT_TRUE((*c)->setLinkState("l1", false));
  }
  int state = 0;
  for (const v1::Request& r : server.requests()) {
    if (!r.has_set_link_state()) continue;
    ++state;
    EXPECT_TRUE(r.set_link_state().node().empty()) << "no end was sent";
  }
  EXPECT_EQ(state, 1);
}

}  // namespace
}  // namespace fastpath::ctrl
