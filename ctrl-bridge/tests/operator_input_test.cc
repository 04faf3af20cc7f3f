// SPDX-License-Identifier: GPL-2.0-only
// What an operator sends, checked by the server whatever the client checked: seeds as
// unsigned numbers (words and wire), names, host addresses (unique on their node, not the
// node's own), MTUs and gateways of hosts, segment membership, and who may attach which
// interface (root or operator, --attachable). Dispatcher over a HostsBackend, no root.
#include <gtest/gtest.h>

#include <string>

#include "dispatcher.h"
#include "fastpath/link_params.h"
#include "hosts_backend.h"
#include "operator_session.h"
#include "wire_validate.h"

namespace fastpath::ctrl {
namespace {

using testing::HostsBackend;
using testing::MultiNodeBackend;
using testing::operatorSession;

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

TEST(SeedWords, OnlyUnsignedNumbersUpTo2To63Minus1) {
  for (const char* bad : {"-5", "+5", " 5", "", "5x", "18446744073709551611",
                          "18446744073709551616", "9223372036854775808", "0x8000000000000000"}) {
    LinkParams p;
    p.seed = 3;
    auto st = applyLinkParamWords({"seed", bad}, &p);
    ASSERT_FALSE(st.ok()) << '"' << bad << '"';
    EXPECT_TRUE(contains(st.error().message, "expected an unsigned number 0 .. 9223372036854775807"))
        << st.error().message;
    EXPECT_EQ(p.seed, 3u) << "the old value is kept";
  }
  LinkParams p;
  ASSERT_TRUE(applyLinkParamWords({"seed", "9223372036854775807"}, &p).ok());
  EXPECT_EQ(p.seed, kMaxLinkSeed);
  ASSERT_TRUE(applyLinkParamWords({"seed", "0x10"}, &p).ok());
  EXPECT_EQ(p.seed, 16u);
  p.seed = uint64_t(-5);
  EXPECT_FALSE(validateLinkParams(p).ok());
}

class OperatorInput : public ::testing::Test {
 protected:
  OperatorInput() : backend_(MultiNodeBackend::defaultPorts(2)), dispatcher_(backend_, opts()) {
    EXPECT_TRUE(backend_.addNode("r1", MultiNodeBackend::interfacePorts("r1-eth", 10)).ok());
    EXPECT_TRUE(backend_.addNode("r2", MultiNodeBackend::interfacePorts("r2-eth", 20)).ok());
  }
  static DispatchOptions opts() {
    DispatchOptions o;
    o.node_name = "test";
    return o;
  }
  /// A session after Hello: root, or an operator (uid 1000, allowed to change topology).
  Session session(bool root) {
    Session s = operatorSession(dispatcher_, root);
    EXPECT_TRUE(s.hello);
    return s;
  }
  /// The reply's error ("" when it succeeded), "CODE field: message".
  std::string send(Session& s, v1::Request req) {
    req.set_id(++id_);
    auto out = dispatcher_.handle(s, req);
    EXPECT_EQ(out.message.reply().id(), id_);
    if (!out.message.reply().has_error()) return "";
    const auto& e = out.message.reply().error();
    EXPECT_TRUE(contains(e.message(), e.field())) << e.message();
    return v1::ErrorCode_Name(e.code()) + " " + e.message();
  }
  static v1::Request host(const std::string& name, const std::string& node,
                          const std::string& v4, uint32_t len = 24) {
    v1::Request r;
    auto* h = r.mutable_create_host();
    h->set_name(name);
    h->set_node(node);
    auto* a = h->add_addresses();
    auto ip = IpAddress::parse(v4).value();
    a->mutable_address()->set_bytes(std::string(reinterpret_cast<const char*>(ip.bytes.data()), 4));
    a->set_length(len);
    return r;
  }
  static v1::Request attach(const std::string& node, const std::string& ifname) {
    v1::Request r;
    r.mutable_attach_interface()->set_node(node);
    r.mutable_attach_interface()->set_ifname(ifname);
    return r;
  }

  HostsBackend backend_;
  Dispatcher dispatcher_;
  uint64_t id_ = 1;
};

TEST_F(OperatorInput, ANegativeSeedOverTheWireIsRefusedNamingTheField) {
  Session s = session(true);
  v1::Request link;
  auto* l = link.mutable_create_link();
  l->set_name("l1");
  l->mutable_a()->set_node("r1");
  l->mutable_b()->set_node("r2");
  ASSERT_EQ(send(s, link), "");
  v1::Request set;
  set.mutable_set_link_params()->set_name("l1");
  set.mutable_set_link_params()->mutable_params()->set_seed(uint64_t(-5));
  EXPECT_EQ(send(s, set),
            "INVALID_ARGUMENT set_link_params.params.seed: 18446744073709551611 is above "
            "9223372036854775807 (2^63-1; a negative number sent as unsigned?)");
  EXPECT_EQ(backend_.links().at(0).a_to_b.seed, 0u) << "the old parameters stay";
  set.mutable_set_link_params()->mutable_params()->set_seed(7);
  EXPECT_EQ(send(s, set), "");
  EXPECT_EQ(backend_.links().at(0).a_to_b.seed, 7u);
  // At creation too.
  link.mutable_create_link()->set_name("l2");
  link.mutable_create_link()->mutable_b_to_a()->set_seed(uint64_t(1) << 63);
  EXPECT_TRUE(contains(send(s, link), "create_link.b_to_a.seed: 9223372036854775808 is above"));
}

TEST_F(OperatorInput, AHostAddressIsUniqueOnItsNodeAndNotTheNodesOwn) {
  Session s = session(true);
  ASSERT_EQ(send(s, host("h1", "r1", "198.18.5.2")), "");
  EXPECT_EQ(send(s, host("h2", "r1", "198.18.5.2")),
            "INVALID_ARGUMENT create_host.addresses[0].address: 198.18.5.2 is host h1's "
            "address on node r1 already; a host address is unique on its node");
  EXPECT_EQ(backend_.hosts().size(), 1u);
  // Another node is another network.
  EXPECT_EQ(send(s, host("h3", "r2", "198.18.5.2")), "");
  // The same address twice in one request.
  v1::Request twice = host("h4", "r1", "198.18.6.2");
  *twice.mutable_create_host()->add_addresses() = twice.create_host().addresses(0);
  EXPECT_TRUE(contains(send(s, twice), "create_host.addresses[1].address: 198.18.6.2 is given "
                                       "twice (addresses[0] too)"));
  // The node's own address (a local-address control rule of r1).
  ControlRule own;
  own.kind = ControlRule::Kind::kLocalAddress;
  own.address = IpAddress::parse("198.18.5.1").value();
  ASSERT_TRUE(backend_.table("r1")->setControlRules({own}).ok());
  EXPECT_TRUE(contains(send(s, host("h5", "r1", "198.18.5.1")),
                       "create_host.addresses[0].address: 198.18.5.1 is node r1's own address"));
  // And the backend (fastpathd's createHost) applies the same rule by itself.
  HostSpec direct;
  direct.name = "h6";
  direct.node = "r1";
  direct.addresses = {IpPrefix::parse("198.18.5.2/32").value()};
  auto made = backend_.createHost(direct);
  ASSERT_FALSE(made.ok());
  EXPECT_TRUE(contains(made.error().message, "is host h1's address on node r1 already"));
}

TEST_F(OperatorInput, HostNamesMtusAndGatewaysAreCheckedByTheServer) {
  Session s = session(true);
  EXPECT_TRUE(contains(send(s, host("../x", "r1", "198.18.5.2")),
                       "INVALID_ARGUMENT create_host.name: host name has '/'"));
  EXPECT_TRUE(contains(send(s, host("h1", "r 1", "198.18.5.2")),
                       "INVALID_ARGUMENT create_host.node: node name has ' '"));
  v1::Request big = host("h1", "r1", "198.18.5.2");
  big.mutable_create_host()->set_mtu(70000);
  EXPECT_TRUE(contains(send(s, big), "create_host.mtu: 70000 is outside 68..65535"));
  v1::Request zero = host("h1", "r1", "0.0.0.0");
  EXPECT_TRUE(contains(send(s, zero), "create_host.addresses[0].address: unspecified address"));
  v1::Request gws = host("h1", "r1", "198.18.5.2");
  for (const char* g : {"\xc6\x12\x05\x01", "\xc6\x12\x05\x03"})
    gws.mutable_create_host()->add_gateways()->set_bytes(std::string(g, 4));
  EXPECT_TRUE(contains(send(s, gws), "create_host.gateways[1]: a second IPv4 gateway"));
  v1::Request del;
  del.mutable_delete_host()->set_name("a;b");
  EXPECT_TRUE(contains(send(s, del), "delete_host.name: host name has ';'"));
  EXPECT_TRUE(backend_.hosts().empty());
}

TEST_F(OperatorInput, ASegmentStateForANodeNotOnTheSegmentIsRefused) {
  Session s = session(true);
  v1::Request seg;
  auto* c = seg.mutable_create_segment();
  c->set_name("s1");
  c->add_ports()->set_node("r1");
  c->add_ports()->set_node("default");
  ASSERT_EQ(send(s, seg), "");
  v1::Request state;
  state.mutable_set_segment_state()->set_name("s1");
  state.mutable_set_segment_state()->set_node("r2");
  EXPECT_EQ(send(s, state),
            "NOT_FOUND set_segment_state.node: node r2 is not on segment s1 (its nodes: "
            "r1, default)");
  state.mutable_set_segment_state()->set_node("r1");
  EXPECT_EQ(send(s, state), "");
}

TEST_F(OperatorInput, LoopbackIsRefusedWithItsReasonToRootAndOperators) {
  backend_.setAttachable({"*"});
  for (bool root : {true, false}) {
    Session s = session(root);
    const std::string e = send(s, attach("r1", "lo"));
    EXPECT_TRUE(contains(e, "INVALID_ARGUMENT attach_interface.ifname: lo is the loopback "
                            "interface"))
        << e;
    EXPECT_TRUE(contains(send(s, attach("r1", "bond-m0")), "is a member of bond bond0"));
    EXPECT_TRUE(contains(send(s, attach("r1", "xdp1")), "served by another XDP program"));
  }
}

TEST_F(OperatorInput, OperatorsAttachWhatAttachableNamesRootAnythingButTheDefaultRoute) {
  Session op = session(false);
  Session root = session(true);
  // Default: nothing but what fastpathd made or was given.
  const std::string e = send(op, attach("r1", "veth9"));
  EXPECT_TRUE(contains(e, "PERMISSION_DENIED attach_interface.ifname: veth9 is not attachable "
                          "by an operator"))
      << e;
  EXPECT_TRUE(contains(e, "--attachable"));
  EXPECT_EQ(send(root, attach("r1", "veth9")), "");
  EXPECT_TRUE(contains(send(root, attach("r1", "eth0")),
                       "PERMISSION_DENIED attach_interface.ifname: eth0 carries the "
                       "namespace's default route"));
  backend_.setAttachable({"veth*", "eth0"});
  EXPECT_EQ(send(op, attach("r1", "veth8")), "");
  EXPECT_TRUE(contains(send(op, attach("r1", "tap0")), "not attachable by an operator"));
  EXPECT_EQ(send(op, attach("r2", "eth0")), "");
  // A peer that may not change the topology is refused before any policy.
  Session other = session(false);
  other.may_change_topology = false;
  EXPECT_TRUE(contains(send(other, attach("r1", "veth7")), "PERMISSION_DENIED"));
}

}  // namespace
}  // namespace fastpath::ctrl
