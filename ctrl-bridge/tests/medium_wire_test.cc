// SPDX-License-Identifier: GPL-2.0-only
// Radio media on the wire: what a client sends is checked field by field (refusals name
// the field), and what the server lists comes back to the client as it was.
#include <gtest/gtest.h>

#include "reply_decode.h"
#include "wire_encode.h"
#include "wire_medium.h"

namespace fastpath::ctrl {
namespace {

v1::CreateMedium twoMembers() {
  v1::CreateMedium c;
  c.set_name("air");
  c.add_ports()->set_node("r1");
  c.add_ports()->set_node("r2");
  auto* p = c.add_pairs();
  p->set_from("r1");
  p->set_to("r2");
  p->set_rx_power_dbm(-60);
  return c;
}

TEST(MediumWire, DefaultsAreNs3s) {
  auto spec = mediumSpecFromWire(twoMembers(), "create_medium");
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  EXPECT_EQ(spec->phy, MediumPhy{});
  EXPECT_EQ(spec->ports[0].port, "air");
  ASSERT_EQ(spec->pairs.size(), 1u);
  EXPECT_EQ(spec->pairs[0].to, "r2");
}

TEST(MediumWire, RefusalsNameTheField) {
  auto c = twoMembers();
  c.mutable_phy()->set_data_rate_kbps(7000);
  auto r = mediumSpecFromWire(c, "create_medium");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().field, "create_medium.phy.data_rate_kbps");
  c = twoMembers();
  c.mutable_phy()->set_data_rate_kbps(54000);  // OFDM data, DSSS basic
  EXPECT_EQ(mediumSpecFromWire(c, "create_medium").error().field,
            "create_medium.phy.basic_rate_kbps");
  c = twoMembers();
  c.mutable_phy()->set_ack_rate_kbps(6000);  // OFDM ACK, DSSS data
  EXPECT_EQ(mediumSpecFromWire(c, "create_medium").error().field,
            "create_medium.phy.ack_rate_kbps");
  c = twoMembers();
  c.mutable_phy()->set_rate_control(static_cast<v1::MediumPhy::RateControl>(7));
  EXPECT_EQ(mediumSpecFromWire(c, "create_medium").error().field,
            "create_medium.phy.rate_control");
  c = twoMembers();
  c.mutable_phy()->set_long_retry_limit(40);
  EXPECT_EQ(mediumSpecFromWire(c, "create_medium").error().field,
            "create_medium.phy.long_retry_limit");
  c = twoMembers();
  c.mutable_pairs(0)->set_to("r3");
  r = mediumSpecFromWire(c, "create_medium");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, v1::NOT_FOUND);
  EXPECT_EQ(r.error().field, "create_medium.pairs[0]");
  c = twoMembers();
  c.mutable_pairs(0)->set_rx_power_dbm(500);
  EXPECT_EQ(mediumSpecFromWire(c, "create_medium").error().field,
            "create_medium.pairs[0].rx_power_dbm");
  c = twoMembers();
  c.mutable_ports(1)->set_node("r1");
  EXPECT_EQ(mediumSpecFromWire(c, "create_medium").error().field, "create_medium.ports[1].node");
  v1::UpdateMedium u;
  u.set_name("air");
  auto* p = u.add_pairs();
  p->set_from("r1");
  p->set_to("r1");
  EXPECT_EQ(mediumUpdateFromWire(u, "update_medium").error().field, "update_medium.pairs[0].to");
}

TEST(MediumWire, SpecUpdateAndInfoRoundTrip) {
  MediumSpec spec;
  spec.name = "air";
  spec.ports = {PortSpec{"r1", "w0", MacAddress{}, 1500}, PortSpec{"r2", "w0", MacAddress{}, 1400}};
  spec.phy.data_rate_kbps = 54000;
  spec.phy.basic_rate_kbps = 6000;
  spec.phy.error_model = WifiErrorModel::kYans;
  spec.phy.capture_margin_db = 5;
  spec.phy.cs_threshold_dbm = -95;
  spec.phy.rts_threshold = 100;
  spec.phy.long_retry_limit = 6;
  spec.phy.rts_rate_kbps = 6000;
  spec.phy.cts_rate_kbps = 12000;
  spec.phy.ack_rate_kbps = 24000;
  spec.phy.rate_control = RateControl::kArf;
  spec.phy.arf_success_threshold = 4;
  spec.phy.arf_timer_threshold = 9;
  spec.pairs = {MediumPair{"r1", "r2", -71.5, false}};
  v1::CreateMedium w;
  toWire(spec, &w);
  auto back = mediumSpecFromWire(w, "create_medium");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->phy, spec.phy);
  EXPECT_EQ(back->ports[1].mtu, 1400u);
  EXPECT_EQ(back->pairs[0].rx_power_dbm, -71.5);
  MediumUpdate u;
  u.pairs = {MediumPair{"r2", "r1", 0, true}};
  u.replace_all = true;
  v1::UpdateMedium uw;
  toWire("air", u, &uw);
  auto ub = mediumUpdateFromWire(uw, "update_medium");
  ASSERT_TRUE(ub.ok());
  EXPECT_TRUE(ub->replace_all);
  EXPECT_TRUE(ub->pairs[0].remove);
  MediumInfo info;
  info.name = "air";
  info.phy = spec.phy;
  info.ports.push_back(MediumInfo::Port{});
  info.ports[0].retry_drops = 3;
  info.ports[0].busy_ns = 42;
  info.ports[0].expired_drops = 4;
  info.ports[0].acks_lost = 6;
  info.ports[0].duplicates = 5;
  info.ports[0].acks_sent = 4;
  info.ports[0].acks_unsent = 3;
  info.pairs.push_back(MediumInfo::Pair{"r1", "r2", -60, 33.5, 0.99, 10, 9, 1, 0});
  info.updates = 5;
  v1::Medium mw;
  toWire(info, &mw);
  const MediumInfo got = mediumFromReply(mw);
  EXPECT_EQ(got.phy, info.phy);
  EXPECT_EQ(got.ports[0].retry_drops, 3u);
  EXPECT_EQ(got.ports[0].busy_ns, 42u);
  EXPECT_EQ(got.ports[0].expired_drops, 4u);
  EXPECT_EQ(got.ports[0].acks_lost, 6u);
  EXPECT_EQ(got.ports[0].duplicates, 5u);
  EXPECT_EQ(got.ports[0].acks_sent, 4u);
  EXPECT_EQ(got.ports[0].acks_unsent, 3u);
  EXPECT_EQ(got.pairs[0].delivered, 9u);
  EXPECT_EQ(got.pairs[0].expected_delivery, 0.99);
  EXPECT_EQ(got.updates, 5u);
}

// A unicast dropped after its retries reaches a subscriber with the receiver's MAC.
TEST(MediumWire, RetryLimitEventRoundTrip) {
  FastPathEvent e;
  e.kind = FastPathEvent::Kind::kMediumRetryLimit;
  e.port = 7;
  e.node = "r1";
  e.mac = MacAddress{{0x02, 0, 0, 0, 0, 0x0b}};
  v1::Event w;
  toWire(e, &w);
  EXPECT_EQ(w.kind(), v1::EVENT_KIND_MEDIUM_RETRY_LIMIT);
  const auto back = eventFromReply(w);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->kind, FastPathEvent::Kind::kMediumRetryLimit);
  EXPECT_EQ(back->port, 7u);
  EXPECT_EQ(back->node, "r1");
  EXPECT_EQ(back->mac, e.mac);
}

}  // namespace
}  // namespace fastpath::ctrl
