// SPDX-License-Identifier: GPL-2.0-only
// Link emulation parameters through the control socket (protocol 1.4): set at creation and
// at run time, reported with the link's counters; bad values refused naming their field,
// the link keeping its parameters.
#include "nodes_fixture.h"

namespace fastpath::ctrl {
namespace {

LinkParams params(std::vector<std::string> words) {
  LinkParams p;
  EXPECT_TRUE(applyLinkParamWords(words, &p));
  return p;
}

TEST_F(Nodes, LinkEmulationIsSetAtCreationAndAtRunTimeAndReported) {
  auto c = connectTo("");
  LinkSpec l;
  l.name = "r1-r2";
  l.a.node = "r1";
  l.b.node = "r2";
  l.a_to_b = params({"rate", "10mbit", "delay", "5ms", "loss", "1%"});
  ASSERT_TRUE(c->createLink(l));
  auto ls = c->links();
  ASSERT_TRUE(ls);
  ASSERT_EQ(ls->size(), 1u);
  EXPECT_TRUE((*ls)[0].a_to_b == l.a_to_b) << formatLinkParams((*ls)[0].a_to_b);
  EXPECT_TRUE((*ls)[0].b_to_a == LinkParams{});

  // One direction: the other keeps its parameters.
  const LinkParams back = params({"delay", "20ms", "jitter", "2ms", "distribution", "normal",
                                  "gemodel", "1%", "10%", "limit", "500"});
  ASSERT_TRUE(c->setLinkParams("r1-r2", LinkDirection::kBToA, back));
  ls = c->links();
  EXPECT_TRUE((*ls)[0].a_to_b == l.a_to_b);
  EXPECT_TRUE((*ls)[0].b_to_a == back) << formatLinkParams((*ls)[0].b_to_a);
  // Both, whole: what is not given is the default again.
  const LinkParams both = params({"rate", "1gbit", "limit-bytes", "64kb", "seed", "7"});
  ASSERT_TRUE(c->setLinkParams("r1-r2", LinkDirection::kBoth, both));
  ls = c->links();
  EXPECT_TRUE((*ls)[0].a_to_b == both);
  EXPECT_TRUE((*ls)[0].b_to_a == both);
  ASSERT_TRUE(c->setLinkParams("r1-r2", LinkDirection::kAToB, LinkParams{}));
  EXPECT_TRUE(c->links()->at(0).a_to_b == LinkParams{});

  // What the workers measured, per direction, as the backend counts it.
  LinkDirectionStats ab, ba;
  ab.tx_packets = 10000;
  ab.tx_bytes = 15000000;
  ab.enqueued = 9900;
  ab.delivered = 9850;
  ab.queue_drops = 50;
  ab.loss_drops = 100;
  ab.depth_packets = 3;
  ab.depth_bytes = 4500;
  ab.in_flight = 12;
  ab.sojourn_p50_ns = 5200000;
  ab.sojourn_p99_ns = 9800000;
  ab.sojourn_max_ns = 12000000;
  ba.duplicated = 4;
  ba.corrupted = 2;
  ba.full_drops = 1;
  ba.link_down_drops = 9;
  ASSERT_TRUE(h_->onServer([&] { return multi_->setLinkStats("r1-r2", ab, ba); }));
  const LinkInfo li = c->links()->at(0);
  EXPECT_EQ(li.a_to_b_stats.tx_packets, 10000u);
  EXPECT_EQ(li.a_to_b_stats.tx_bytes, 15000000u);
  EXPECT_EQ(li.a_to_b_stats.enqueued, 9900u);
  EXPECT_EQ(li.a_to_b_stats.delivered, 9850u);
  EXPECT_EQ(li.a_to_b_stats.queue_drops, 50u);
  EXPECT_EQ(li.a_to_b_stats.loss_drops, 100u);
  EXPECT_EQ(li.a_to_b_stats.depth_packets, 3u);
  EXPECT_EQ(li.a_to_b_stats.depth_bytes, 4500u);
  EXPECT_EQ(li.a_to_b_stats.in_flight, 12u);
  EXPECT_EQ(li.a_to_b_stats.sojourn_p50_ns, 5200000u);
  EXPECT_EQ(li.a_to_b_stats.sojourn_p99_ns, 9800000u);
  EXPECT_EQ(li.a_to_b_stats.sojourn_max_ns, 12000000u);
  EXPECT_EQ(li.b_to_a_stats.duplicated, 4u);
  EXPECT_EQ(li.b_to_a_stats.corrupted, 2u);
  EXPECT_EQ(li.b_to_a_stats.full_drops, 1u);
  EXPECT_EQ(li.b_to_a_stats.link_down_drops, 9u);
  EXPECT_EQ(li.b_to_a_stats.delivered, 0u);

  auto missing = c->setLinkParams("nope", LinkDirection::kBoth, LinkParams{});
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, -ENOENT);
  EXPECT_EQ(missing.error().message.rfind("set_link_params: ", 0), 0u) << missing.error().message;
}

TEST_F(Nodes, BadLinkParametersAreRefusedWithTheirFieldAndTheLinkKeepsItsParameters) {
  auto c = connectTo("");
  LinkSpec l;
  l.name = "r1-r2";
  l.a.node = "r1";
  l.b.node = "r2";
  l.a_to_b = params({"rate", "10mbit", "delay", "5ms"});
  l.b_to_a = params({"loss", "2%"});
  ASSERT_TRUE(c->createLink(l));
  auto unchanged = [&] {
    auto ls = c->links();
    return ls && ls->size() == 1 && (*ls)[0].a_to_b == l.a_to_b && (*ls)[0].b_to_a == l.b_to_a;
  };

  // Through the library: the first bad value's field, and nothing changes.
  LinkParams bad = l.a_to_b;
  bad.loss = 1.5;
  auto st = c->setLinkParams("r1-r2", LinkDirection::kBoth, bad);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code, -EINVAL);
  EXPECT_EQ(st.error().message, "set_link_params.params.loss: 150% is outside 0% .. 100%");
  EXPECT_TRUE(unchanged());
  bad = LinkParams{};
  bad.rate_bps = 10;
  st = c->setLinkParams("r1-r2", LinkDirection::kAToB, bad);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().message,
            "set_link_params.params.rate_bps: 10 bit/s is outside 1kbit .. 1000tbit");
  EXPECT_TRUE(unchanged());

  // On the wire, every field.
  struct Case {
    const char* what;
    std::function<void(v1::Request&)> fill;
    const char* field;
  };
  auto set = [](v1::Request& r) {
    auto* s = r.mutable_set_link_params();
    s->set_name("r1-r2");
    return s->mutable_params();
  };
  const std::vector<Case> cases = {
      {"loss 150%", [&](v1::Request& r) { set(r)->set_loss(1.5); }, "set_link_params.params.loss"},
      {"duplicate -1%", [&](v1::Request& r) { set(r)->set_duplicate(-0.01); },
       "set_link_params.params.duplicate"},
      {"corrupt NaN",
       [&](v1::Request& r) { set(r)->set_corrupt(std::numeric_limits<double>::quiet_NaN()); },
       "set_link_params.params.corrupt"},
      {"rate 999 bit/s", [&](v1::Request& r) { set(r)->set_rate_bps(999); },
       "set_link_params.params.rate_bps"},
      {"delay 2 minutes", [&](v1::Request& r) { set(r)->set_delay_ns(120000000000ull); },
       "set_link_params.params.delay_ns"},
      {"limit 10^7 packets", [&](v1::Request& r) { set(r)->set_limit_packets(10000000); },
       "set_link_params.params.limit_packets"},
      {"limit 4 GiB", [&](v1::Request& r) { set(r)->set_limit_bytes(4ull << 30); },
       "set_link_params.params.limit_bytes"},
      {"gemodel r 300%", [&](v1::Request& r) { set(r)->mutable_gilbert_elliott()->set_r(3); },
       "set_link_params.params.gilbert_elliott.r"},
      {"jitter distribution 5",
       [&](v1::Request& r) {
         set(r)->set_jitter_distribution(static_cast<v1::LinkParams::Jitter>(5));
       },
       "set_link_params.params.jitter_distribution"},
      {"direction 3",
       [&](v1::Request& r) {
         set(r);
         r.mutable_set_link_params()->set_direction(static_cast<v1::LinkDirection>(3));
       },
       "set_link_params.direction"},
      {"no params",
       [&](v1::Request& r) {
         set(r);
         r.mutable_set_link_params()->clear_params();
       },
       "set_link_params.params"},
      {"bad link name",
       [&](v1::Request& r) {
         set(r);
         r.mutable_set_link_params()->set_name("r1 r2");
       },
       "set_link_params.name"},
  };
  for (const auto& k : cases) {
    SCOPED_TRACE(k.what);
    v1::Request req;
    req.set_id(2);
    k.fill(req);
    auto rep = rawReply(*h_, req);
    EXPECT_EQ(rep.error().code(), v1::INVALID_ARGUMENT) << rep.error().message();
    EXPECT_EQ(rep.error().field(), k.field);
    EXPECT_EQ(rep.error().message().rfind(std::string(k.field) + ": ", 0), 0u)
        << rep.error().message();
    EXPECT_TRUE(unchanged());
  }
  // At creation: the link is not created.
  v1::Request create;
  create.set_id(2);
  auto* cl = create.mutable_create_link();
  cl->set_name("r1-r2b");
  cl->mutable_a()->set_node("r1");
  cl->mutable_b()->set_node("r2");
  cl->mutable_a_to_b()->set_loss(1.01);
  auto rep = rawReply(*h_, create);
  EXPECT_EQ(rep.error().code(), v1::INVALID_ARGUMENT);
  EXPECT_EQ(rep.error().message(), "create_link.a_to_b.loss: 101% is outside 0% .. 100%");
  EXPECT_EQ(c->links()->size(), 1u);
  // A raw client of 1.3 lists links as before (the new fields are skipped by it).
  v1::Request get;
  get.set_id(2);
  get.mutable_get_links();
  EXPECT_EQ(rawReply(*h_, get).links().links_size(), 1);
}

}  // namespace
}  // namespace fastpath::ctrl
