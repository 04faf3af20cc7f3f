// SPDX-License-Identifier: GPL-2.0-only
// Segments, interfaces attached at run time and hosts through the control socket
// (protocol 1.5): validated at the wire edge naming the field, an unknown node NOT_FOUND, a
// backend without them refusing with a reason, changes for operators only.
#include "nodes_fixture.h"

namespace fastpath::ctrl {
namespace {

// Segments (1.5): the server validates a CreateSegment before the backend sees it, naming
// the field; a backend without segments (this one, as SingleNodeTopology) refuses
// them with a reason; the operator rule is the links'.
TEST_F(Nodes, SegmentRequestsAreValidatedWithTheirField) {
  auto c = connectTo("");
  SegmentSpec s;
  s.name = "lan";
  auto st = c->createSegment(s);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code, -EINVAL);
  EXPECT_NE(st.error().message.find("create_segment.ports"), std::string::npos)
      << st.error().message;
  s.ports = {SegmentPortSpec{"r1", "lan", {}, 1500}, SegmentPortSpec{"r1", "lan2", {}, 1500}};
  st = c->createSegment(s);
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message.find("create_segment.ports[1].node"), std::string::npos)
      << st.error().message;
  s.ports = {SegmentPortSpec{"r1", "lan", {}, 1500}, SegmentPortSpec{"r9", "", {}, 1500}};
  st = c->createSegment(s);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code, -ENOENT);
  EXPECT_NE(st.error().message.find("create_segment.ports[1].node"), std::string::npos)
      << st.error().message;
  s.ports = {SegmentPortSpec{"r1", "bad name", {}, 1500}};
  st = c->createSegment(s);
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message.find("create_segment.ports[0].port"), std::string::npos)
      << st.error().message;
  s.ports = {SegmentPortSpec{"r1", "", {}, 1500}, SegmentPortSpec{"r2", "", {}, 1500}};
  s.params.loss = 2;
  st = c->createSegment(s);
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message.find("create_segment.params.loss"), std::string::npos)
      << st.error().message;
  s.params = LinkParams{};
  st = c->createSegment(s);
  ASSERT_FALSE(st) << "this backend has no segments";
  EXPECT_TRUE(c->segments()->empty());
  auto missing = c->setSegmentState("lan", false);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, -ENOENT);
}

// Interfaces at run time and hosts (1.5): validated at the wire edge naming the field, an
// unknown node is NOT_FOUND, a backend without them (this one) refuses with a reason, and
// changes need an operator as the links' do.
TEST_F(Nodes, HostAndInterfaceRequestsAreValidatedWithTheirField) {
  auto c = connectTo("");
  auto p = c->attachInterface("r1", "bad/name");
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().code, -EINVAL);
  EXPECT_NE(p.error().message.find("attach_interface.ifname"), std::string::npos)
      << p.error().message;
  p = c->attachInterface("r1", "a-name-much-too-long");
  ASSERT_FALSE(p);
  EXPECT_NE(p.error().message.find("attach_interface.ifname"), std::string::npos);
  p = c->attachInterface("bad name", "eth1");
  ASSERT_FALSE(p);
  EXPECT_NE(p.error().message.find("attach_interface.node"), std::string::npos);
  p = c->attachInterface("r1", "eth1");
  ASSERT_FALSE(p) << "this backend cannot attach interfaces";
  EXPECT_EQ(c->detachInterface("r1", "eth1").error().code, -ENOENT);
  HostSpec h;
  h.name = "h1";
  h.node = "r1";
  h.addresses = {IpPrefix{*IpAddress::parse("198.18.1.2"), 33}};
  auto made = c->createHost(h);
  ASSERT_FALSE(made);
  EXPECT_EQ(made.error().code, -EINVAL);
  EXPECT_NE(made.error().message.find("create_host.addresses[0].length"), std::string::npos)
      << made.error().message;
  h.addresses = {IpPrefix{*IpAddress::parse("198.18.1.2"), 24}};
  h.node = "r9";
  made = c->createHost(h);
  ASSERT_FALSE(made);
  EXPECT_EQ(made.error().code, -ENOENT);
  EXPECT_NE(made.error().message.find("create_host.node"), std::string::npos);
  h.node = "r1";
  made = c->createHost(h);
  ASSERT_FALSE(made) << "this backend has no hosts";
  EXPECT_TRUE(c->hosts()->empty());
  EXPECT_EQ(c->deleteHost("h1").error().code, -ENOENT);
}

TEST(NodesAccess, AttachingInterfacesAndCreatingHostsNeedsAnOperator) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to act as another user";
  ServerOptions o;
  o.socket_mode = 0666;
  o.allowed_gids = {65534};  // nobody may talk, but is no operator
  auto b = std::make_unique<MultiNodeBackend>();
  ASSERT_TRUE(b->addNode("r1", MultiNodeBackend::interfacePorts("r1-eth", 10)));
  ServerHarness h(o, std::move(b));
  ASSERT_TRUE(h.start());
  ::chmod(h.dir().c_str(), 0755);
  EXPECT_EQ(asNobody([&] {
              auto c = Client::connect(h.socketPath(), {});
              if (!c) return 1;
              Client& cl = *c.value();
              if (!cl.hosts()) return 2;  // listing is open to all
              HostSpec spec;
              spec.name = "h1";
              spec.node = "r1";
              auto made = cl.createHost(spec);
              if (made || made.error().code != -EACCES) return 3;
              if (made.error().message.find("needs an operator") == std::string::npos) return 4;
              if (cl.attachInterface("r1", "eth1").error().code != -EACCES) return 5;
              if (cl.detachInterface("r1", "eth1").error().code != -EACCES) return 6;
              if (cl.deleteHost("h1").error().code != -EACCES) return 7;
              return 0;
            }),
            0);
}

}  // namespace
}  // namespace fastpath::ctrl
