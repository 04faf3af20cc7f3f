// SPDX-License-Identifier: GPL-2.0-only
// Nodes and links through the control socket (protocol 1.3): created, changed and deleted
// by operators only; malformed names and MACs refused naming their field.
#include "nodes_fixture.h"

namespace fastpath::ctrl {
namespace {

TEST_F(Nodes, NodesAndLinksAreCreatedChangedAndDeleted) {
  auto c = connectTo("");
  ASSERT_TRUE(c->createNode(NodeSpec{"r5", "h1"}));
  ASSERT_TRUE(c->createNode(NodeSpec{"r6", ""}));
  auto ns = c->nodes();
  ASSERT_TRUE(ns);
  std::vector<std::string> names;
  for (const auto& n : *ns) names.push_back(n.name);
  EXPECT_EQ(names, (std::vector<std::string>{"default", "r1", "r2", "r5", "r6"}));
  EXPECT_EQ((*ns)[3].host, "h1");
  EXPECT_EQ((*ns)[4].host, "local");
  EXPECT_EQ((*ns)[1].ports, (std::vector<PortId>{10, 11}));
  auto dup = c->createNode(NodeSpec{"r5", ""});
  ASSERT_FALSE(dup);
  EXPECT_TRUE(contains(dup.error().message, "create_node: ")) << dup.error().message;

  LinkSpec l;
  l.name = "r5-r6";
  l.a.node = "r5";
  l.a.port = "to-r6";
  l.a.mac = MacAddress::parse("02:00:00:00:05:06").value();
  l.a.mtu = 9000;
  l.b.node = "r6";  // port: named after the link; MAC generated; MTU 1500
  ASSERT_TRUE(c->createLink(l));
  auto ls = c->links();
  ASSERT_TRUE(ls);
  ASSERT_EQ(ls->size(), 1u);
  const LinkInfo& li = (*ls)[0];
  EXPECT_EQ(li.name, "r5-r6");
  EXPECT_TRUE(li.up);
  EXPECT_EQ(li.a.node, "r5");
  EXPECT_EQ(li.a.port, "to-r6");
  EXPECT_EQ(li.a.mac.toString(), "02:00:00:00:05:06");
  EXPECT_EQ(li.a.mtu, 9000u);
  EXPECT_EQ(li.b.port, "r5-r6");
  EXPECT_FALSE(li.b.mac.isZero());
  EXPECT_EQ(li.b.mtu, 1500u);
  auto p5 = c->ports("r5");
  ASSERT_TRUE(p5);
  ASSERT_EQ(p5->size(), 1u);
  EXPECT_EQ((*p5)[0].id, li.a.id);
  EXPECT_EQ((*p5)[0].link, "r5-r6");
  EXPECT_EQ((*p5)[0].node, "r5");
  // The new node is usable at once, through its link port.
  auto r5 = connectTo("r5");
  ASSERT_TRUE(r5->addRoute(route("198.18.6.0/24", "", li.a.id)));
  EXPECT_EQ(routesIn("r5"), 1u);

  // Down: both ends down, each node's subscribers told about their end.
  auto r6 = connectTo("r6");
  ASSERT_TRUE(r5->subscribe());
  ASSERT_TRUE(r6->subscribe());
  ASSERT_TRUE(c->setLinkState("r5-r6", false));
  EXPECT_FALSE(c->links()->at(0).up);
  EXPECT_FALSE(c->ports("r6")->at(0).up);
  auto e5 = drain(*r5);
  auto e6 = drain(*r6);
  ASSERT_EQ(e5.size(), 1u);
  EXPECT_EQ(e5[0].kind, FastPathEvent::Kind::kPortDown);
  EXPECT_EQ(e5[0].port, li.a.id);
  ASSERT_EQ(e6.size(), 1u);
  EXPECT_EQ(e6[0].port, li.b.id);
  ASSERT_TRUE(c->setLinkState("r5-r6", true));
  EXPECT_TRUE(c->ports("r6")->at(0).up);
  EXPECT_EQ(drain(*r5).size(), 1u);  // the port-up events
  EXPECT_EQ(drain(*r6).size(), 1u);
  // One end (its node named): only that end is down, only its node is told; the node
  // crosses the wire.
  ASSERT_TRUE(c->setLinkState("r5-r6", false, "r6"));
  EXPECT_TRUE(c->links()->at(0).up);
  EXPECT_FALSE(c->links()->at(0).a.down);
  EXPECT_TRUE(c->links()->at(0).b.down);
  EXPECT_FALSE(c->ports("r6")->at(0).up);
  EXPECT_TRUE(drain(*r5).empty());
  auto e6b = drain(*r6);
  ASSERT_EQ(e6b.size(), 1u);
  EXPECT_EQ(e6b[0].kind, FastPathEvent::Kind::kPortDown);
  ASSERT_TRUE(c->setLinkState("r5-r6", true, "r6"));
  EXPECT_FALSE(c->links()->at(0).b.down);
  EXPECT_EQ(c->setLinkState("r5-r6", false, "r9").error().code, -ENOENT);
  auto missing = c->setLinkState("nope", true);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, -ENOENT);

  // A link to a node that does not exist names the end.
  LinkSpec bad = l;
  bad.name = "r5-r9";
  bad.b.node = "r9";
  bad.a.mac = MacAddress{};
  auto st = c->createLink(bad);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code, -ENOENT);
  EXPECT_EQ(st.error().message.rfind("create_link.b.node: ", 0), 0u) << st.error().message;

  ASSERT_TRUE(c->deleteLink("r5-r6"));
  EXPECT_TRUE(c->links()->empty());
  EXPECT_TRUE(c->ports("r5")->empty());
  EXPECT_EQ(routesIn("r5"), 0u);  // the route through the link port went with it
  ASSERT_TRUE(c->deleteNode("r6"));
  ASSERT_TRUE(c->deleteNode("r5"));
  EXPECT_EQ(c->nodes()->size(), 3u);
  // r5's client is bound to a node that is gone.
  auto gone = r5->routes();
  ASSERT_FALSE(gone);
  EXPECT_EQ(gone.error().code, -ENOENT);
  EXPECT_EQ(c->deleteNode("r5").error().code, -ENOENT);
  auto dflt = c->deleteNode("default");
  ASSERT_FALSE(dflt);
  EXPECT_TRUE(contains(dflt.error().message, "delete_node.name")) << dflt.error().message;
  // A node with interface ports stays (the backend says why).
  EXPECT_FALSE(c->deleteNode("r1"));
}

TEST_F(Nodes, MalformedNamesAndMacsAreRefusedWithTheirField) {
  struct Case {
    const char* what;
    v1::Request req;
    const char* field;
  };
  std::vector<Case> cases;
  auto add = [&](const char* what, const char* field, auto fill) {
    Case c{what, {}, field};
    c.req.set_id(2);
    fill(c.req);
    cases.push_back(std::move(c));
  };
  auto link = [](v1::Request& r) {
    auto* l = r.mutable_create_link();
    l->set_name("l1");
    l->mutable_a()->set_node("r1");
    l->mutable_b()->set_node("r2");
    return l;
  };
  add("request node with a space", "node", [](v1::Request& r) {
    r.set_node("r 1");
    r.mutable_get_routes();
  });
  add("request node of 32 characters", "node", [](v1::Request& r) {
    r.set_node(std::string(32, 'a'));
    r.mutable_get_ports();
  });
  add("hello node with a slash", "hello.node", [](v1::Request& r) {
    r.mutable_hello()->mutable_version()->set_major(1);
    r.mutable_hello()->set_node("r1/x");
  });
  add("empty node name", "create_node.name", [](v1::Request& r) { r.mutable_create_node(); });
  add("node name with a NUL", "create_node.name",
      [](v1::Request& r) { r.mutable_create_node()->set_name(std::string("r\0x", 3)); });
  add("node called default", "create_node.name",
      [](v1::Request& r) { r.mutable_create_node()->set_name("default"); });
  add("host with a space", "create_node.host", [](v1::Request& r) {
    r.mutable_create_node()->set_name("r7");
    r.mutable_create_node()->set_host("a b");
  });
  add("delete, name too long", "delete_node.name",
      [](v1::Request& r) { r.mutable_delete_node()->set_name(std::string(40, 'x')); });
  add("link name with a colon", "create_link.name",
      [&](v1::Request& r) { link(r)->set_name("r1:r2"); });
  add("link end without a node", "create_link.a.node",
      [&](v1::Request& r) { link(r)->mutable_a()->clear_node(); });
  add("link port with a space", "create_link.b.port",
      [&](v1::Request& r) { link(r)->mutable_b()->set_port("eth 0"); });
  add("MAC of 5 bytes", "create_link.a.mac",
      [&](v1::Request& r) { link(r)->mutable_a()->set_mac(std::string(5, '\2')); });
  add("multicast MAC", "create_link.b.mac", [&](v1::Request& r) {
    link(r)->mutable_b()->set_mac(std::string("\x01\x00\x5e\x00\x00\x01", 6));
  });
  add("MTU 20", "create_link.a.mtu", [&](v1::Request& r) { link(r)->mutable_a()->set_mtu(20); });
  add("both ends in one node", "create_link.b.node",
      [&](v1::Request& r) { link(r)->mutable_b()->set_node("r1"); });
  add("link state, empty name", "set_link_state.name",
      [](v1::Request& r) { r.mutable_set_link_state(); });
  add("delete link, bad name", "delete_link.name",
      [](v1::Request& r) { r.mutable_delete_link()->set_name("a\tb"); });
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    auto rep = rawReply(*h_, c.req);
    EXPECT_EQ(rep.error().code(), v1::INVALID_ARGUMENT) << rep.error().message();
    EXPECT_EQ(rep.error().field(), c.field);
    EXPECT_EQ(rep.error().message().rfind(std::string(c.field) + ": ", 0), 0u)
        << rep.error().message();
  }
  // Nothing was created.
  EXPECT_EQ(h_->onServer([&] { return multi_->nodes().size(); }), 3u);
  EXPECT_TRUE(h_->onServer([&] { return multi_->links(); }).empty());
}

TEST(NodesAccess, ChangingNodesAndLinksNeedsAnOperator) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to act as another user";
  ServerOptions o;
  o.socket_mode = 0666;
  o.allowed_gids = {65534};  // nobody may talk, but is no operator
  auto b = std::make_unique<MultiNodeBackend>();
  MultiNodeBackend* multi = b.get();
  ASSERT_TRUE(multi->addNode("r1", MultiNodeBackend::interfacePorts("r1-eth", 10)));
  ServerHarness h(o, std::move(b));
  ASSERT_TRUE(h.start());
  ::chmod(h.dir().c_str(), 0755);
  EXPECT_EQ(asNobody([&] {
              ClientOptions co;
              co.node = "r1";
              auto c = Client::connect(h.socketPath(), co);
              if (!c) return 1;
              Client& cl = *c.value();
              if (!cl.nodes() || !cl.links()) return 2;                    // listing is open to all
              if (!cl.addRoute(route("198.18.2.0/24", "", 10))) return 3;  // its node: fine
              auto st = cl.createNode(NodeSpec{"r7", ""});
              if (st || st.error().code != -EACCES) return 4;
              if (st.error().message.find("needs an operator") == std::string::npos) return 5;
              if (cl.setLinkState("any", false).error().code != -EACCES) return 6;
              if (cl.setLinkParams("any", LinkDirection::kBoth, {}).error().code != -EACCES)
                return 8;
              if (cl.deleteNode("r1").error().code != -EACCES) return 7;
              return 0;
            }),
            0);
  EXPECT_EQ(h.onServer([&] { return multi->nodes().size(); }), 2u);
  // Root is an operator.
  auto root = Client::connect(h.socketPath(), {});
  ASSERT_TRUE(root);
  EXPECT_TRUE(root.value()->createNode(NodeSpec{"r7", ""}));
}

}  // namespace
}  // namespace fastpath::ctrl
