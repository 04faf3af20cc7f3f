// SPDX-License-Identifier: GPL-2.0-only
// Requests -> validated domain values (wire_validate, route_batch) and back (wire_encode,
// reply_decode): every error names the offending field.
#include <gtest/gtest.h>

#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "reply_decode.h"
#include "route_batch.h"
#include "table_backend.h"
#include "wire_encode.h"
#include "wire_validate.h"

namespace fastpath::ctrl {
namespace {

using testing::TableBackend;

v1::Prefix wirePrefix(const std::string& text_addr, uint32_t len) {
  v1::Prefix p;
  auto a = IpAddress::parse(text_addr);
  EXPECT_TRUE(a) << text_addr;
  toWire(a.value(), p.mutable_address());
  p.set_length(len);
  return p;
}

v1::Route* addRoute(v1::RouteBatch* b, const std::string& addr, uint32_t len, uint32_t port = 1) {
  auto* r = b->add_add();
  *r->mutable_prefix() = wirePrefix(addr, len);
  r->mutable_port()->set_id(port);
  return r;
}

class Translate : public ::testing::Test {
 protected:
  PortDirectory ports_{TableBackend::defaultPorts()};

  /// Runs one batch through BatchBuilder; returns the error (code OK when accepted).
  WireError check(const v1::RouteBatch& b, size_t max = 1000) {
    BatchBuilder builder(ports_, max);
    if (auto st = builder.addChunk(b); !st) return st.error();
    if (auto out = builder.finish(); !out) return out.error();
    return WireError{v1::OK, "", ""};
  }
};

TEST_F(Translate, ValidBatchTranslates) {
  v1::RouteBatch b;
  auto* r = addRoute(&b, "198.18.2.0", 24, 1);
  toWire(IpAddress::parse("198.18.1.2").value(), r->mutable_next_hop());
  r->set_metric(7);
  addRoute(&b, "2001:2:0:1::", 64, 2);
  *b.add_remove() = wirePrefix("198.18.9.0", 24);
  BatchBuilder builder(ports_, 100);
  auto st = builder.addChunk(b);
  ASSERT_TRUE(st) << st.error().message;
  auto finished = builder.finish();
  ASSERT_TRUE(finished) << finished.error().message;
  const RouteBatch& out = *finished;
  ASSERT_EQ(out.add.size(), 2u);
  EXPECT_EQ(out.add[0].prefix.toString(), "198.18.2.0/24");
  EXPECT_EQ(out.add[0].next_hop.toString(), "198.18.1.2");
  EXPECT_EQ(out.add[0].port, 1u);
  EXPECT_EQ(out.add[0].metric, 7u);
  EXPECT_TRUE(out.add[1].next_hop.isUnspecified());
  EXPECT_EQ(out.add[1].next_hop.family, Family::kIpv6);
  ASSERT_EQ(out.remove.size(), 1u);
}

TEST_F(Translate, PrefixLengthTooLongNamesField) {
  v1::RouteBatch b;
  addRoute(&b, "198.18.0.0", 16);
  addRoute(&b, "198.18.1.0", 24);
  addRoute(&b, "198.18.2.0", 24);
  addRoute(&b, "198.18.3.0", 33);
  auto e = check(b);
  EXPECT_EQ(e.code, v1::INVALID_ARGUMENT);
  EXPECT_EQ(e.field, "apply_routes.add[3].prefix.length");
  EXPECT_EQ(e.message, "apply_routes.add[3].prefix.length: 33 > 32 (IPv4)");
  v1::RouteBatch b6;
  addRoute(&b6, "2001:2::", 129);
  EXPECT_EQ(check(b6).message, "apply_routes.add[0].prefix.length: 129 > 128 (IPv6)");
}

TEST_F(Translate, HostBitsSetAreRejectedWithTheNormalisedPrefix) {
  v1::RouteBatch b;
  addRoute(&b, "198.18.2.1", 24);
  auto e = check(b);
  EXPECT_EQ(e.code, v1::INVALID_ARGUMENT);
  EXPECT_EQ(e.field, "apply_routes.add[0].prefix");
  EXPECT_NE(e.message.find("host bits set; send 198.18.2.0/24"), std::string::npos) << e.message;
}

TEST_F(Translate, UnknownPortByIdAndByName) {
  v1::RouteBatch b;
  addRoute(&b, "198.18.2.0", 24, 9);
  auto e = check(b);
  EXPECT_EQ(e.code, v1::NOT_FOUND);
  EXPECT_EQ(e.field, "apply_routes.add[0].port");
  EXPECT_NE(e.message.find("no port with id 9"), std::string::npos);

  v1::RouteBatch n;
  addRoute(&n, "198.18.2.0", 24)->mutable_port()->set_name("eth7");
  e = check(n);
  EXPECT_EQ(e.code, v1::NOT_FOUND);
  EXPECT_NE(e.message.find("apply_routes.add[0].port: no port named 'eth7'"), std::string::npos);

  v1::RouteBatch ok;
  addRoute(&ok, "198.18.2.0", 24)->mutable_port()->set_name("fp2");
  EXPECT_EQ(check(ok).code, v1::OK);

  v1::RouteBatch unset;
  addRoute(&unset, "198.18.2.0", 24)->clear_port();
  EXPECT_EQ(check(unset).field, "apply_routes.add[0].port");
}

TEST_F(Translate, BadAddressBytesAndFamilyMismatch) {
  v1::RouteBatch b;
  addRoute(&b, "198.18.2.0", 24)->mutable_prefix()->mutable_address()->set_bytes("abcde");
  auto e = check(b);
  EXPECT_EQ(e.field, "apply_routes.add[0].prefix.address");
  EXPECT_NE(e.message.find("5 address bytes"), std::string::npos);

  v1::RouteBatch f;
  auto* r = addRoute(&f, "198.18.2.0", 24);
  toWire(IpAddress::parse("2001:2::1").value(), r->mutable_next_hop());
  EXPECT_EQ(check(f).field, "apply_routes.add[0].next_hop");

  v1::RouteBatch missing;
  missing.add_add()->mutable_port()->set_id(0);
  EXPECT_EQ(check(missing).field, "apply_routes.add[0].prefix");
}

TEST_F(Translate, EmptyBatchIsRejectedButEmptyReplaceAllClears) {
  v1::RouteBatch b;
  auto e = check(b);
  EXPECT_EQ(e.code, v1::INVALID_ARGUMENT);
  EXPECT_NE(e.message.find("empty batch"), std::string::npos);
  b.set_replace_all(true);
  EXPECT_EQ(check(b).code, v1::OK);
}

TEST_F(Translate, OversizeBatchIsResourceExhausted) {
  v1::RouteBatch b;
  for (int i = 0; i < 11; ++i) addRoute(&b, "198.18." + std::to_string(i) + ".0", 24);
  auto e = check(b, 10);
  EXPECT_EQ(e.code, v1::RESOURCE_EXHAUSTED);
  EXPECT_EQ(e.field, "apply_routes");
  EXPECT_NE(e.message.find("limit of 10"), std::string::npos);
}

TEST_F(Translate, DuplicateDeleteAndDuplicateAdd) {
  v1::RouteBatch b;
  *b.add_remove() = wirePrefix("198.18.9.0", 24);
  *b.add_remove() = wirePrefix("198.18.8.0", 24);
  *b.add_remove() = wirePrefix("198.18.9.0", 24);
  auto e = check(b);
  EXPECT_EQ(e.field, "apply_routes.remove[2]");
  EXPECT_NE(e.message.find("duplicate delete of 198.18.9.0/24 (also apply_routes.remove[0])"),
            std::string::npos)
      << e.message;

  v1::RouteBatch a;
  addRoute(&a, "198.18.9.0", 24);
  addRoute(&a, "198.18.9.0", 24, 2);
  e = check(a);
  EXPECT_EQ(e.field, "apply_routes.add[1].prefix");

  v1::RouteBatch both;
  addRoute(&both, "198.18.9.0", 24);
  *both.add_remove() = wirePrefix("198.18.9.0", 24);
  EXPECT_EQ(check(both).field, "apply_routes.remove[0]");
}

TEST_F(Translate, TheFirstRepeatedEntryIsReported) {
  v1::RouteBatch b;
  addRoute(&b, "198.18.9.0", 24);  // A
  addRoute(&b, "198.18.1.0", 24);  // B (sorts first)
  addRoute(&b, "198.18.1.0", 24);  // B again: reported
  addRoute(&b, "198.18.9.0", 24);  // A again
  addRoute(&b, "198.18.1.0", 24);  // B a third time
  auto e = check(b);
  EXPECT_EQ(e.field, "apply_routes.add[2].prefix");
  EXPECT_NE(e.message.find("duplicates apply_routes.add[1]"), std::string::npos) << e.message;
}

TEST_F(Translate, ReplaceAllWithRemovesIsRejected) {
  v1::RouteBatch b;
  b.set_replace_all(true);
  addRoute(&b, "198.18.9.0", 24);
  *b.add_remove() = wirePrefix("198.18.8.0", 24);
  EXPECT_EQ(check(b).field, "apply_routes.remove");
}

TEST_F(Translate, ChunkIndicesAreGlobal) {
  BatchBuilder builder(ports_, 100);
  v1::RouteBatch c0, c1;
  addRoute(&c0, "198.18.0.0", 24);
  addRoute(&c0, "198.18.1.0", 24);
  addRoute(&c1, "198.18.2.0", 24);
  addRoute(&c1, "198.18.0.0", 24);  // duplicate of chunk 0's first
  ASSERT_TRUE(builder.addChunk(c0));
  ASSERT_TRUE(builder.addChunk(c1));  // duplicates are checked over the whole transaction
  auto out = builder.finish();
  ASSERT_FALSE(out);
  const WireError& err = out.error();
  EXPECT_EQ(err.field, "apply_routes.add[3].prefix");
  EXPECT_NE(err.message.find("duplicates apply_routes.add[0]"), std::string::npos);
}

TEST_F(Translate, UnknownEnumValuesNameTheField) {
  v1::SetControlRules s;
  auto* r0 = s.add_rules();
  r0->set_kind(v1::ControlRule::KIND_ETHERTYPE);
  r0->set_ethertype(0x0806);
  auto* r1 = s.add_rules();
  r1->set_kind(static_cast<v1::ControlRule::Kind>(9));
  auto rules = controlRulesFromWire(s, "set_control_rules");
  ASSERT_FALSE(rules);
  EXPECT_EQ(rules.error().message, "set_control_rules.rules[1].kind: unknown value 9");

  r1->set_kind(v1::ControlRule::KIND_L4_PORT);
  r1->set_ip_proto(17);
  r1->set_port(521);
  r1->set_action(static_cast<v1::ControlRule::Action>(5));
  rules = controlRulesFromWire(s, "set_control_rules");
  ASSERT_FALSE(rules);
  EXPECT_EQ(rules.error().field, "set_control_rules.rules[1].action");

  r1->set_action(v1::ControlRule::ACTION_PASS);
  rules = controlRulesFromWire(s, "set_control_rules");
  ASSERT_TRUE(rules) << rules.error().message;
  const std::vector<ControlRule>& out = *rules;
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[1].kind, ControlRule::Kind::kL4Port);
  EXPECT_EQ(out[1].port, 521);
  EXPECT_TRUE(out[1].pass_to_kernel);

  r1->set_ip_proto(1);
  rules = controlRulesFromWire(s, "set_control_rules");
  ASSERT_FALSE(rules);
  EXPECT_EQ(rules.error().field, "set_control_rules.rules[1].ip_proto");

  v1::Subscribe sub;
  sub.add_kinds(v1::EVENT_KIND_PORT_UP);
  sub.add_kinds(static_cast<v1::EventKind>(42));
  auto kinds = subscriptionFromWire(sub, "subscribe");
  ASSERT_FALSE(kinds);
  EXPECT_EQ(kinds.error().field, "subscribe.kinds[1]");
}

TEST_F(Translate, NeighbourValidation) {
  v1::Neighbour n;
  toWire(IpAddress::parse("198.18.1.2").value(), n.mutable_address());
  n.mutable_port()->set_name("fp1");
  n.set_mac(std::string("\x02\x00\x00\x00\x00\x09", 6));
  auto out = neighbourFromWire(n, "add_neighbour", ports_);
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_EQ(out->port, 1u);
  EXPECT_EQ(out->mac.toString(), "02:00:00:00:00:09");
  n.set_mac(std::string("\x02\x00", 2));
  out = neighbourFromWire(n, "add_neighbour", ports_);
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().message, "add_neighbour.mac: 2 bytes, expected 6");
  n.set_mac(std::string("\xff\xff\xff\xff\xff\xff", 6));
  out = neighbourFromWire(n, "add_neighbour", ports_);
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().field, "add_neighbour.mac");
}

TEST_F(Translate, DomainWireRoundTrip) {
  Route r;
  r.prefix = IpPrefix::parse("2001:2:0:5::/64").value();
  r.next_hop = IpAddress::parse("2001:2::1").value();
  r.port = 2;
  r.metric = 5;
  v1::Route w;
  toWire(r, &w);
  Route back = routeFromReply(w);
  EXPECT_EQ(back.prefix, r.prefix);
  EXPECT_EQ(back.next_hop, r.next_hop);
  EXPECT_EQ(back.port, 2u);
  EXPECT_EQ(back.metric, 5u);
}

TEST(Nodes, PortDirectoryKnowsOnlyItsNodesPorts) {
  auto ports = TableBackend::defaultPorts();  // fp0..fp2, node left empty (one-node backend)
  PortInfo foreign;
  foreign.id = 20;
  foreign.ifname = "r2-eth0";
  foreign.node = "r2";
  ports.push_back(foreign);
  PortDirectory dflt(ports);
  v1::PortRef by_id, by_name;
  by_id.set_id(20);
  by_name.set_name("fp1");
  auto r = dflt.resolve(by_id, "add_neighbour.port");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, v1::NOT_FOUND);
  EXPECT_EQ(r.error().message, "add_neighbour.port: no port with id 20 (`fpctl ports` lists them)");
  EXPECT_EQ(dflt.resolve(by_name, "p").value(), 1u);
  // For r2, only r2's port (and ports that name no node, from a one-node backend).
  PortDirectory r2({foreign}, "r2");
  EXPECT_EQ(r2.resolve(by_id, "p").value(), 20u);
  auto miss = r2.resolve(by_name, "p");
  ASSERT_FALSE(miss);
  EXPECT_EQ(miss.error().message,
            "p: no port named 'fp1' in node r2 (`fpctl --node r2 ports` lists them)");
}

TEST(Nodes, NamesMacsAndLinkSpecs) {
  EXPECT_TRUE(nameFromWire("r1.a_b-C", "f", "node"));
  EXPECT_TRUE(nameFromWire(std::string(31, 'x'), "f", "node"));
  EXPECT_EQ(nameFromWire(std::string(32, 'x'), "f", "node").error().message,
            "f: node name of 32 characters; at most 31");
  EXPECT_EQ(nameFromWire("", "f", "link").error().message, "f: empty link name");
  EXPECT_EQ(nameFromWire("a b", "f", "port").error().message,
            "f: port name has ' ' at offset 1; use letters, digits, '_', '.' and '-'");
  EXPECT_EQ(nameFromWire(std::string("a\x01", 2), "f", "node").error().message,
            "f: node name has 0x01 at offset 1; use letters, digits, '_', '.' and '-'");
  EXPECT_TRUE(optionalNodeFromWire("", "node"));
  EXPECT_EQ(canonicalNode(""), "default");
  EXPECT_EQ(canonicalNode("r1"), "r1");
  EXPECT_TRUE(portMacFromWire("", "m", true).value().isZero());
  EXPECT_FALSE(portMacFromWire("", "m", false));
  EXPECT_FALSE(portMacFromWire(std::string("\x03\0\0\0\0\1", 6), "m", true));

  v1::CreateLink l;
  l.set_name("r1-r2");
  l.mutable_a()->set_node("r1");
  l.mutable_b()->set_node("r2");
  l.mutable_b()->set_port("eth-r1");
  l.mutable_b()->set_mtu(9000);
  auto spec = linkSpecFromWire(l, "create_link");
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->a.port, "r1-r2");  // named after the link
  EXPECT_EQ(spec->a.mtu, 1500u);
  EXPECT_EQ(spec->b.port, "eth-r1");
  EXPECT_EQ(spec->b.mtu, 9000u);
  EXPECT_TRUE(spec->up);  // unset = up
  l.set_up(false);
  EXPECT_FALSE(linkSpecFromWire(l, "create_link")->up);
  l.mutable_a()->set_mac(std::string("\x02\0\0\0\0\1", 6));
  l.mutable_b()->set_mac(std::string("\x02\0\0\0\0\1", 6));
  EXPECT_EQ(linkSpecFromWire(l, "create_link").error().field, "create_link.b.mac");
  l.clear_b();
  EXPECT_EQ(linkSpecFromWire(l, "create_link").error().field, "create_link.b");

  v1::CreateNode n;
  n.set_name("r3");
  EXPECT_EQ(nodeSpecFromWire(n, "create_node")->host, "local");
  n.set_host("host-7.lab");
  EXPECT_EQ(nodeSpecFromWire(n, "create_node")->host, "host-7.lab");
}

// ---------------------------------------------------------------- link emulation (1.4)

std::vector<std::string> words(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

TEST(LinkEmulation, ParametersRoundTripThroughTheWire) {
  LinkParams p;
  ASSERT_TRUE(applyLinkParamWords(words("rate 10mbit overhead 24 delay 5ms jitter 1ms distribution "
                                        "paretonormal reorder limit 50 limit-bytes 64kb loss 1% "
                                        "duplicate 0.5% corrupt 0.1% seed 42"),
                                  &p));
  v1::LinkParams w;
  toWire(p, &w);
  auto back = linkParamsFromWire(w, "f");
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_TRUE(*back == p) << formatLinkParams(*back);
  EXPECT_TRUE(linkParamsFromReply(w) == p);

  LinkParams ge;
  ASSERT_TRUE(applyLinkParamWords(words("gemodel 1% 10% 70% 0.1%"), &ge));
  toWire(ge, &w);
  EXPECT_TRUE(w.has_gilbert_elliott());
  EXPECT_TRUE(*linkParamsFromWire(w, "f") == ge);
  EXPECT_TRUE(linkParamsFromReply(w) == ge);

  // A queue discipline, CoDel's, COBALT's and FqCoDel's values; an unknown kind is refused
  // by name.
  for (const char* aqm : {"aqm codel aqm-limit 200 target 4ms interval 80ms min-bytes 3000 ecn "
                          "ce-threshold 1ms",
                          "aqm cobalt aqm-limit-bytes 64kb blue-increment 1% blue-threshold 1s",
                          "aqm fq_codel aqm-limit 10240 flows 256 quantum 300 drop-batch 8 "
                          "perturbation 5 set-associative set-ways 4 ecn ce-threshold 2ms",
                          "aqm red aqm-limit 1000 red-min 3.5 red-max 12 red-qw -1 red-no-gentle "
                          "red-mean-size 512 feng feng-alpha 4 nlred red-link-rate 1mbit "
                          "red-link-delay 50ms ecn red-no-hard-drop",
                          "aqm red aqm-limit-bytes 512000 ared red-interval 300ms red-alpha 0.02 "
                          "red-bottom 0.001 red-rtt 50ms red-last-set 1s red-ns1 red-no-wait"}) {
    LinkParams q;
    ASSERT_TRUE(applyLinkParamWords(words(std::string("rate 10mbit limit 3 ") + aqm), &q));
    toWire(q, &w);
    EXPECT_TRUE(w.has_aqm());
    auto a = linkParamsFromWire(w, "f");
    ASSERT_TRUE(a) << a.error().message;
    EXPECT_TRUE(*a == q) << formatLinkParams(*a);
    EXPECT_TRUE(linkParamsFromReply(w) == q);
  }
  w.mutable_aqm()->set_kind(v1::LinkAqm::Kind(9));
  auto unknown = linkParamsFromWire(w, "f");
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message.find("f.aqm.kind"), std::string::npos)
      << unknown.error().message;
  // RED's settings are checked as the words are: MinTh above MaxTh is refused by name.
  w.mutable_aqm()->set_kind(v1::LinkAqm::AQM_RED);
  w.mutable_aqm()->mutable_red()->set_min_th(20);
  w.mutable_aqm()->mutable_red()->set_max_th(10);
  auto inverted = linkParamsFromWire(w, "f");
  ASSERT_FALSE(inverted);
  EXPECT_NE(inverted.error().message.find("red-min 20 and red-max 10"), std::string::npos)
      << inverted.error().message;
  w.mutable_aqm()->clear_red();
  w.mutable_aqm()->set_kind(v1::LinkAqm::AQM_CODEL);
  w.mutable_aqm()->set_target_ns(0);
  EXPECT_FALSE(linkParamsFromWire(w, "f")) << "CoDel without a target";

  // An empty message passes frames at once, with ns-3's queue of 100 packets; an empty
  // gilbert_elliott is netem's defaults r = 1 and 1-h = 1.
  v1::LinkParams empty;
  EXPECT_TRUE(*linkParamsFromWire(empty, "f") == LinkParams{});
  EXPECT_EQ(linkParamsFromWire(empty, "f")->limit_packets, 100u);
  empty.mutable_gilbert_elliott()->set_p(0.01);
  auto g = linkParamsFromWire(empty, "f");
  ASSERT_TRUE(g);
  EXPECT_TRUE(g->gilbert_elliott);
  EXPECT_EQ(g->ge_r, 1.0);
  EXPECT_EQ(g->ge_loss_bad, 1.0);

  // Link in a reply: configured and measured, per direction.
  LinkInfo info;
  info.name = "l";
  info.a_to_b = p;
  info.b_to_a = ge;
  info.a_to_b_stats.tx_packets = 1000;
  info.a_to_b_stats.delivered = 980;
  info.a_to_b_stats.loss_drops = 11;
  info.a_to_b_stats.sojourn_p99_ns = 1234567;
  info.a_to_b_stats.lateness_p99_ns = 45678;
  info.b_to_a_stats.depth_bytes = 3000;
  info.b_to_a_stats.link_down_drops = 7;
  v1::Link wl;
  toWire(info, &wl);
  LinkInfo r = linkFromReply(wl);
  EXPECT_TRUE(r.a_to_b == p);
  EXPECT_TRUE(r.b_to_a == ge);
  EXPECT_EQ(r.a_to_b_stats.tx_packets, 1000u);
  EXPECT_EQ(r.a_to_b_stats.delivered, 980u);
  EXPECT_EQ(r.a_to_b_stats.loss_drops, 11u);
  EXPECT_EQ(r.a_to_b_stats.sojourn_p99_ns, 1234567u);
  EXPECT_EQ(r.a_to_b_stats.lateness_p99_ns, 45678u);
  EXPECT_EQ(r.b_to_a_stats.depth_bytes, 3000u);
  EXPECT_EQ(r.b_to_a_stats.link_down_drops, 7u);
  // A 1.3 server sends no parameters: frames pass at once.
  v1::Link old;
  old.set_name("l");
  EXPECT_TRUE(linkFromReply(old).a_to_b == LinkParams{});

  // A CreateLink carries the parameters of an emulated direction only.
  LinkSpec spec;
  spec.name = "l";
  spec.a = {"r1", "l", {}, 1500};
  spec.b = {"r2", "l", {}, 1500};
  spec.b_to_a = p;
  v1::CreateLink cl;
  toWire(spec, &cl);
  EXPECT_FALSE(cl.has_a_to_b());
  ASSERT_TRUE(cl.has_b_to_a());
  auto s = linkSpecFromWire(cl, "create_link");
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_TRUE(s->a_to_b == LinkParams{});
  EXPECT_TRUE(s->b_to_a == p);
}

TEST(LinkEmulation, EveryBadValueNamesItsField) {
  struct Case {
    const char* what;
    std::function<void(v1::LinkParams&)> fill;
    const char* message;  // the whole message, field included
  };
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<Case> cases = {
      {"loss over 100%", [](v1::LinkParams& w) { w.set_loss(1.5); },
       "p.loss: 150% is outside 0% .. 100%"},
      {"negative duplicate", [](v1::LinkParams& w) { w.set_duplicate(-0.01); },
       "p.duplicate: -1% is outside 0% .. 100%"},
      {"NaN corrupt", [&](v1::LinkParams& w) { w.set_corrupt(nan); },
       "p.corrupt: nan% is outside 0% .. 100%"},
      {"rate under 1kbit", [](v1::LinkParams& w) { w.set_rate_bps(500); },
       "p.rate_bps: 500 bit/s is outside 1kbit .. 1000tbit"},
      {"overhead over 1024", [](v1::LinkParams& w) { w.set_overhead_bytes(2000); },
       "p.overhead_bytes: 2000 is outside -64 .. 1024 bytes"},
      {"overhead under -64", [](v1::LinkParams& w) { w.set_overhead_bytes(-65); },
       "p.overhead_bytes: -65 is outside -64 .. 1024 bytes"},
      {"mpu over 1024", [](v1::LinkParams& w) { w.set_mpu_bytes(1500); },
       "p.mpu_bytes: 1500 is more than 1024 bytes"},
      {"delay over 60 s", [](v1::LinkParams& w) { w.set_delay_ns(61000000000ull); },
       "p.delay_ns: 61s is more than 60s"},
      {"jitter over 60 s", [](v1::LinkParams& w) { w.set_jitter_ns(90000000000ull); },
       "p.jitter_ns: 90s is more than 60s"},
      {"limit over 1000000", [](v1::LinkParams& w) { w.set_limit_packets(2000000); },
       "p.limit_packets: 2000000 is outside 1 .. 1000000 packets"},
      {"limit-bytes over 1gb", [](v1::LinkParams& w) { w.set_limit_bytes(1ull << 31); },
       "p.limit_bytes: 2147483648 bytes is more than 1gb"},
      {"unknown distribution",
       [](v1::LinkParams& w) { w.set_jitter_distribution(static_cast<v1::LinkParams::Jitter>(7)); },
       "p.jitter_distribution: unknown value 7 (JITTER_UNIFORM, JITTER_NORMAL or "
       "JITTER_PARETONORMAL)"},
      {"gemodel p over 1", [](v1::LinkParams& w) { w.mutable_gilbert_elliott()->set_p(2); },
       "p.gilbert_elliott.p: 200% is outside 0% .. 100%"},
      {"gemodel r negative", [](v1::LinkParams& w) { w.mutable_gilbert_elliott()->set_r(-1); },
       "p.gilbert_elliott.r: -100% is outside 0% .. 100%"},
      {"gemodel 1-h over 1",
       [](v1::LinkParams& w) { w.mutable_gilbert_elliott()->set_loss_bad(1.01); },
       "p.gilbert_elliott.loss_bad: 101% is outside 0% .. 100%"},
      {"gemodel 1-k NaN",
       [&](v1::LinkParams& w) { w.mutable_gilbert_elliott()->set_loss_good(nan); },
       "p.gilbert_elliott.loss_good: nan% is outside 0% .. 100%"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    v1::LinkParams w;
    c.fill(w);
    auto r = linkParamsFromWire(w, "p");
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, v1::INVALID_ARGUMENT);
    EXPECT_EQ(r.error().message, c.message);
    EXPECT_EQ(r.error().message.rfind(r.error().field + ": ", 0), 0u) << r.error().field;
  }
  // The bounds themselves are fine.
  v1::LinkParams edge;
  edge.set_rate_bps(1000);
  edge.set_overhead_bytes(1024);
  edge.set_mpu_bytes(1024);
  edge.set_delay_ns(60000000000ull);
  edge.set_limit_packets(1000000);
  edge.set_limit_bytes(1ull << 30);
  edge.set_loss(1);
  EXPECT_TRUE(linkParamsFromWire(edge, "p"));
  edge.set_overhead_bytes(-64);
  EXPECT_EQ(linkParamsFromWire(edge, "p").value().overhead_bytes, -64);

  EXPECT_EQ(linkDirectionFromWire(v1::LINK_DIRECTION_B_TO_A, "d").value(), LinkDirection::kBToA);
  EXPECT_EQ(linkDirectionFromWire(9, "d").error().field, "d");
  v1::CreateLink cl;
  cl.set_name("l");
  cl.mutable_a()->set_node("r1");
  cl.mutable_b()->set_node("r2");
  cl.mutable_b_to_a()->set_loss(2);
  EXPECT_EQ(linkSpecFromWire(cl, "create_link").error().message,
            "create_link.b_to_a.loss: 200% is outside 0% .. 100%");
}

TEST(ErrorCodes, RoundTrip) {
  for (int c = v1::INVALID_ARGUMENT; c <= v1::UNIMPLEMENTED; ++c) {
    auto code = static_cast<v1::ErrorCode>(c);
    EXPECT_EQ(codeForErrno(errnoForCode(code)), code) << c;
  }
}

}  // namespace
}  // namespace fastpath::ctrl
