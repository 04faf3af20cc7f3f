// SPDX-License-Identifier: GPL-2.0-only
// Node-scoped requests through the control socket (protocol 1.3): every one reaches its
// node's backend only. Routes, neighbours, rules, ports, stats, control channels, leases
// and events are kept apart; an old client (no node anywhere) talks to the default node;
// a connection is bound by its Hello and moved by Bind.
#include "nodes_fixture.h"

namespace fastpath::ctrl {
namespace {

TEST_F(Nodes, AnOldClientTalksToTheDefaultNode) {
  auto c = connectTo("");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->serverInfo().node, "default");
  EXPECT_EQ(c->boundNode(), "default");
  ASSERT_TRUE(c->addRoute(route("198.18.2.0/24", "198.18.1.2", 1)));
  ASSERT_TRUE(c->addNeighbour(neighbour("198.18.1.2", 1, "02:aa:00:00:00:02")));
  EXPECT_EQ(routesIn("default"), 1u);
  EXPECT_EQ(routesIn("r1"), 0u);
  EXPECT_EQ(routesIn("r2"), 0u);
  auto ports = c->ports();
  ASSERT_TRUE(ports);
  ASSERT_EQ(ports->size(), 3u);
  for (const auto& p : *ports) {
    EXPECT_EQ(p.node, "default") << p.ifname;
    EXPECT_TRUE(p.link.empty());
  }
  // A port of another node does not exist for it; the message is the one it always got.
  auto st = c->addRoute(route("198.18.3.0/24", "", 10));
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code, -ENOENT);
  EXPECT_EQ(st.error().message.rfind("apply_routes.add[0].port: no port with id 10", 0), 0u)
      << st.error().message;
  // A raw 1.2 client: no node in Hello nor in any request.
  int s = rawConnect(h_->socketPath());
  ASSERT_GE(s, 0);
  v1::Request hello;
  hello.set_id(1);
  hello.mutable_hello()->mutable_version()->set_major(1);
  hello.mutable_hello()->mutable_version()->set_minor(2);
  sendFrame(s, hello);
  v1::Request get;
  get.set_id(2);
  get.mutable_get_routes();
  sendFrame(s, get);
  ::shutdown(s, SHUT_WR);
  bool eof = false;
  auto msgs = readUntilEof(s, &eof);
  ::close(s);
  ASSERT_EQ(msgs.size(), 2u);
  EXPECT_FALSE(msgs[0].reply().has_error());
  EXPECT_EQ(msgs[1].reply().routes().total(), 1u);
}

TEST_F(Nodes, RoutesNeighboursRulesPortsAndStatsAreKeptPerNode) {
  auto r1 = connectTo("r1");
  auto r2 = connectTo("r2");
  auto admin = connectTo("");
  ASSERT_TRUE(r1 && r2 && admin);
  EXPECT_EQ(r1->boundNode(), "r1");
  // The same prefix in two nodes: two different routes.
  ASSERT_TRUE(r1->addRoute(route("198.18.2.0/24", "198.18.1.2", 10)));
  ASSERT_TRUE(r2->addRoute(route("198.18.2.0/24", "198.18.9.2", 21)));
  ASSERT_TRUE(r1->addRoute(route("2001:2:0:7::/64", "", 11)));
  ASSERT_TRUE(r1->addNeighbour(neighbour("198.18.1.2", 10, "02:aa:00:00:00:02")));
  ControlRule olsr;
  olsr.kind = ControlRule::Kind::kL4Port;
  olsr.ip_proto = 17;
  olsr.port = 698;
  ASSERT_TRUE(r1->setControlRules({olsr}));

  auto rs1 = r1->routes();
  auto rs2 = r2->routes();
  ASSERT_TRUE(rs1 && rs2);
  ASSERT_EQ(rs1->size(), 2u);
  ASSERT_EQ(rs2->size(), 1u);
  EXPECT_EQ((*rs2)[0].port, 21u);
  EXPECT_EQ((*rs2)[0].next_hop.toString(), "198.18.9.2");
  EXPECT_EQ(admin->routes()->size(), 0u);
  // Per call: the default-bound client names the node.
  EXPECT_EQ(admin->routes("r1")->size(), 2u);
  EXPECT_EQ(admin->neighbours("r1")->size(), 1u);
  EXPECT_EQ(admin->neighbours()->size(), 0u);
  EXPECT_EQ(r2->neighbours()->size(), 0u);
  EXPECT_EQ(admin->controlRules("r1")->size(), 1u);
  EXPECT_EQ(r2->controlRules()->size(), 0u);
  EXPECT_EQ(admin->controlRules()->size(), 0u);
  EXPECT_EQ(routesIn("r1"), 2u);
  EXPECT_EQ(routesIn("r2"), 1u);
  EXPECT_EQ(routesIn("default"), 0u);

  auto ports = admin->ports("r2");
  ASSERT_TRUE(ports);
  ASSERT_EQ(ports->size(), 2u);
  EXPECT_EQ((*ports)[0].ifname, "r2-eth0");
  EXPECT_EQ((*ports)[0].id, 20u);
  EXPECT_EQ((*ports)[0].node, "r2");
  EXPECT_EQ(r1->portByName("r1-eth1").value(), 11u);
  auto other = r1->portByName("r2-eth0");
  ASSERT_FALSE(other);
  EXPECT_EQ(other.error().code, -ENOENT);

  auto stats = r1->stats();
  ASSERT_TRUE(stats);
  bool own = false, foreign = false, server = false;
  for (const auto& set : *stats) {
    own |= set.scope == "port r1-eth0";
    foreign |= set.scope == "port fp0" || set.scope == "port r2-eth0";
    server |= set.scope == "control-server";
  }
  EXPECT_TRUE(own);
  EXPECT_FALSE(foreign);
  EXPECT_TRUE(server);

  // Deleting in r2 leaves r1's route of the same prefix alone.
  ASSERT_TRUE(admin->deleteRoute(IpPrefix::parse("198.18.2.0/24").value(), false, "r2"));
  EXPECT_EQ(routesIn("r2"), 0u);
  EXPECT_EQ(routesIn("r1"), 2u);
}

TEST_F(Nodes, AnUnknownNodeIsNotFoundNamingIt) {
  auto c = connectTo("");
  auto st = c->routes("r9");
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code, -ENOENT);
  EXPECT_TRUE(contains(st.error().message, "\"r9\"")) << st.error().message;
  EXPECT_EQ(st.error().message.rfind("node: ", 0), 0u) << st.error().message;
  EXPECT_TRUE(c->ports());  // the connection is fine

  ClientOptions o;
  o.node = "r9";
  o.node_name = "n";
  auto bound = Client::connect(h_->socketPath(), o);
  ASSERT_FALSE(bound);
  EXPECT_EQ(bound.error().code, -ENOENT);
  EXPECT_TRUE(contains(bound.error().message, "hello.node")) << bound.error().message;
  EXPECT_TRUE(contains(bound.error().message, "\"r9\"")) << bound.error().message;

  // A failed bind() keeps the binding.
  auto r1 = connectTo("r1");
  auto b = r1->bind("r9");
  ASSERT_FALSE(b);
  EXPECT_EQ(b.error().code, -ENOENT);
  EXPECT_EQ(r1->boundNode(), "r1");
  ASSERT_TRUE(r1->addRoute(route("198.18.5.0/24", "", 10)));
  EXPECT_EQ(routesIn("r1"), 1u);
}

TEST_F(Nodes, HelloBindsTheConnectionAndBindMovesIt) {
  auto c = connectTo("r2");
  ASSERT_TRUE(c);
  ASSERT_TRUE(c->addRoute(route("198.18.2.0/24", "", 20)));
  ASSERT_TRUE(c->bind("r1"));
  EXPECT_EQ(c->boundNode(), "r1");
  ASSERT_TRUE(c->addRoute(route("198.18.3.0/24", "", 10)));
  ASSERT_TRUE(c->bind("default"));
  EXPECT_EQ(c->boundNode(), "default");
  ASSERT_TRUE(c->addRoute(route("198.18.4.0/24", "", 0)));
  EXPECT_EQ(routesIn("r2"), 1u);
  EXPECT_EQ(routesIn("r1"), 1u);
  EXPECT_EQ(routesIn("default"), 1u);
}

TEST_F(Nodes, APortOfAnotherNodeIsRefused) {
  auto r1 = connectTo("r1");
  // By id, in a batch: the whole batch is refused, naming the node and the entry.
  RouteBatch b;
  b.add = {route("198.18.2.0/24", "", 10), route("198.18.3.0/24", "", 11),
           route("198.18.4.0/24", "", 20)};
  auto st = r1->applyRoutes(b);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code, -ENOENT);
  EXPECT_EQ(st.error().message.rfind("node r1: apply_routes.add[2].port: no port with id 20 in "
                                     "node r1",
                                     0),
            0u)
      << st.error().message;
  EXPECT_EQ(routesIn("r1"), 0u);
  // The default node's ports neither.
  EXPECT_EQ(r1->addRoute(route("198.18.2.0/24", "", 1)).error().code, -ENOENT);
  auto n = r1->addNeighbour(neighbour("198.18.1.2", 21, "02:aa:00:00:00:02"));
  ASSERT_FALSE(n);
  EXPECT_TRUE(contains(n.error().message, "node r1: add_neighbour.port")) << n.error().message;
  auto ch = r1->openControlChannel(20);
  ASSERT_FALSE(ch);
  EXPECT_EQ(ch.error().code, -ENOENT);
  EXPECT_TRUE(contains(ch.error().message, "open_control_channel.port")) << ch.error().message;
  // By name through the wire.
  int s = rawConnect(h_->socketPath());
  sendHello(s);
  v1::Request r;
  r.set_id(2);
  r.set_node("r2");
  auto* w = r.mutable_apply_routes()->add_add();
  toWire(IpPrefix::parse("198.18.2.0/24").value(), w->mutable_prefix());
  w->mutable_port()->set_name("r1-eth0");
  sendFrame(s, r);
  ::shutdown(s, SHUT_WR);
  bool eof = false;
  auto msgs = readUntilEof(s, &eof);
  ::close(s);
  ASSERT_EQ(msgs.size(), 2u);
  EXPECT_EQ(msgs[1].reply().error().code(), v1::NOT_FOUND);
  EXPECT_EQ(msgs[1].reply().error().field(), "apply_routes.add[0].port");
  EXPECT_TRUE(contains(msgs[1].reply().error().message(), "no port named 'r1-eth0' in node r2"))
      << msgs[1].reply().error().message();
}

TEST_F(Nodes, ChunkedTransactionsAndPagingStayOnTheirNode) {
  ClientOptions o;
  o.routes_per_chunk = 100;
  auto r1 = connectTo("r1", o);
  auto admin = connectTo("", o);
  ASSERT_TRUE(admin->addRoute(route("198.19.0.0/16", "", 0)));
  std::vector<Route> table;
  for (int i = 0; i < 450; ++i)
    table.push_back(
        route("10." + std::to_string(i / 256) + "." + std::to_string(i % 256) + ".0/24", "", 10));
  ASSERT_TRUE(r1->replaceAllRoutes(table));  // 5 chunks
  EXPECT_EQ(routesIn("r1"), 450u);
  EXPECT_EQ(routesIn("default"), 1u);
  // Pages of 50 from r1 and the default node, interleaved on one connection.
  auto mixed = [&]() -> std::pair<std::size_t, std::size_t> {
    return {admin->routes("r1")->size(), admin->routes()->size()};
  };
  EXPECT_EQ(mixed(), (std::pair<std::size_t, std::size_t>{450, 1}));
  // The same transaction through the default-bound client, naming r2.
  for (auto& r : table) r.port = 21;
  ASSERT_TRUE(admin->replaceAllRoutes(table, "r2"));
  EXPECT_EQ(routesIn("r2"), 450u);
  EXPECT_EQ(routesIn("default"), 1u);

  // A chunk for another node while a transaction is open aborts it.
  int s = rawConnect(h_->socketPath());
  sendHello(s);
  auto chunk = [&](uint64_t id, const std::string& node, uint32_t idx, bool final) {
    v1::Request r;
    r.set_id(id);
    r.set_node(node);
    auto* b = r.mutable_apply_routes();
    b->set_transaction_id(7);
    b->set_chunk_index(idx);
    b->set_final_chunk(final);
    toWire(route("198.18." + std::to_string(idx) + ".0/24", "", node == "r1" ? 10 : 20),
           b->add_add());
    sendFrame(s, r);
  };
  chunk(2, "r1", 0, false);
  chunk(3, "r2", 1, true);
  ::shutdown(s, SHUT_WR);
  bool eof = false;
  auto msgs = readUntilEof(s, &eof);
  ::close(s);
  ASSERT_EQ(msgs.size(), 3u);
  EXPECT_FALSE(msgs[1].reply().has_error());
  EXPECT_EQ(msgs[2].reply().error().code(), v1::ABORTED);
  EXPECT_TRUE(contains(msgs[2].reply().error().message(), "for node r1 is open"))
      << msgs[2].reply().error().message();
  EXPECT_EQ(routesIn("r1"), 450u);
  EXPECT_EQ(routesIn("r2"), 450u);
}

TEST_F(Nodes, ControlChannelsArePerNodeAndReleasedWithTheirLastHolder) {
  auto a = connectTo("r1");
  auto b = connectTo("");
  auto fa = a->openControlChannel(10);
  ASSERT_TRUE(fa) << fa.error().message;
  auto fb = b->openControlChannel(10, "r1");
  ASSERT_TRUE(fb) << fb.error().message;
  auto fd = b->openControlChannel(1);  // the default node's fp1
  ASSERT_TRUE(fd) << fd.error().message;
  // The frame written on r1's channel reaches r1's daemon end, not the default node's.
  ASSERT_EQ(::write(*fa, "frame", 5), 5);
  int r1_end = onTable("r1", [](testing::TableBackend& t) { return t.daemonEnd(10); });
  ASSERT_GE(r1_end, 0);
  char buf[16];
  EXPECT_EQ(::recv(r1_end, buf, sizeof(buf), MSG_DONTWAIT), 5);
  for (int f : {*fa, *fb, *fd}) ::close(f);
  auto released = [&](const std::string& node) {
    return onTable(node, [](testing::TableBackend& t) { return t.released(); });
  };
  a.reset();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_TRUE(released("r1").empty()) << "b still holds r1's channel";
  b.reset();
  auto deadline = SteadyClock::now() + std::chrono::seconds(5);
  while ((released("r1").empty() || released("default").empty()) && SteadyClock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(released("r1"), std::vector<PortId>{10});
  EXPECT_EQ(released("default"), std::vector<PortId>{1});
  EXPECT_TRUE(released("r2").empty());
}

std::unique_ptr<Client> connectLeased(ServerHarness& h, const std::string& node,
                                      const std::string& owner, uint32_t grace_ms) {
  ClientOptions o;
  o.node = node;
  o.node_name = owner;
  o.client_name = "ns-3";
  o.route_grace_period_ms = grace_ms;
  return connectOk(h, o);
}

TEST_F(Nodes, LeasesArePerNode) {
  auto admin = connectTo("");
  // The same owner name on two nodes: two owners, two leases.
  auto a = connectLeased(*h_, "r1", "ns3", 300);
  auto b = connectLeased(*h_, "r2", "ns3", 60000);
  ASSERT_TRUE(admin && a && b);
  ASSERT_TRUE(a->addRoute(route("198.18.2.0/24", "198.18.1.2", 10)));
  ASSERT_TRUE(a->addNeighbour(neighbour("198.18.1.2", 10, "02:aa:00:00:00:02")));
  ASSERT_TRUE(b->addRoute(route("198.18.2.0/24", "198.18.9.2", 20)));
  ASSERT_TRUE(b->addNeighbour(neighbour("198.18.9.2", 20, "02:aa:00:00:00:09")));
  // A's write to another node than its own is permanent (the lease is r1's).
  ASSERT_TRUE(a->addRoute(route("198.18.7.0/24", "", 1), "default"));
  // fpctl takes over one prefix of A in r1: last writer, it stays.
  ASSERT_TRUE(admin->addRoute(route("198.18.3.0/24", "", 11), "r1"));
  ASSERT_TRUE(a->addRoute(route("198.18.4.0/24", "", 11)));
  ASSERT_TRUE(admin->addRoute(route("198.18.4.0/24", "", 10), "r1"));
  EXPECT_EQ(routesIn("r1"), 3u);

  const auto t0 = SteadyClock::now();
  a.reset();
  auto deadline = t0 + std::chrono::seconds(5);
  while (routesIn("r1") != 2u && SteadyClock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_GE(SteadyClock::now() - t0, std::chrono::milliseconds(290));
  auto r1 = admin->routes("r1");
  ASSERT_TRUE(r1);
  ASSERT_EQ(r1->size(), 2u);  // 198.18.3.0/24 and 198.18.4.0/24, fpctl's
  for (const auto& r : *r1) EXPECT_NE(r.prefix.toString(), "198.18.2.0/24");
  EXPECT_EQ(admin->neighbours("r1")->size(), 0u);
  // r2's owner of the same name, and A's write to the default node: untouched.
  EXPECT_EQ(routesIn("r2"), 1u);
  EXPECT_EQ(admin->neighbours("r2")->size(), 1u);
  EXPECT_EQ(routesIn("default"), 1u);
  auto ctr = h_->onServer([&] { return h_->server().counters(); });
  EXPECT_EQ(ctr.leases_expired, 1u);
  EXPECT_EQ(ctr.lease_routes_withdrawn, 1u);
  EXPECT_EQ(ctr.lease_neighbours_withdrawn, 1u);
}

TEST_F(Nodes, ALeaseFollowsTheBindingOfItsConnection) {
  auto observer = connectTo("");
  auto a = connectLeased(*h_, "r1", "ns3", 200);
  ASSERT_TRUE(a->addRoute(route("198.18.2.0/24", "", 10)));
  ASSERT_TRUE(a->bind("r2"));  // (r1, ns3) has no connection left: its timer runs
  ASSERT_TRUE(a->addRoute(route("198.18.2.0/24", "", 20)));
  auto deadline = SteadyClock::now() + std::chrono::seconds(5);
  while (routesIn("r1") != 0u && SteadyClock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(routesIn("r1"), 0u);
  EXPECT_EQ(routesIn("r2"), 1u);
  a.reset();
  deadline = SteadyClock::now() + std::chrono::seconds(5);
  while (routesIn("r2") != 0u && SteadyClock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(routesIn("r2"), 0u);
}

TEST_F(Nodes, EventsGoToTheSubscribersOfTheirNodeOrOfAllNodes) {
  auto old = connectTo("");
  auto r1 = connectTo("r1");
  auto all = connectTo("r2");
  auto named = connectTo("");
  ASSERT_TRUE(old->subscribe());
  ASSERT_TRUE(r1->subscribe());
  Subscription everything;
  everything.all_nodes = true;
  ASSERT_TRUE(all->subscribe(everything));
  Subscription of_r2;
  of_r2.node = "r2";
  ASSERT_TRUE(named->subscribe(of_r2));
  h_->onServer([&] {
    FastPathEvent e;
    e.kind = FastPathEvent::Kind::kRouteMiss;
    e.address = IpAddress::parse("198.18.9.9").value();
    e.port = 1;  // the default node's (node left empty, as a one-node backend sends it)
    multi_->emit(e);
    e.port = 10;
    e.node = "r1";
    multi_->emit(e);
    e.port = 21;
    e.node = "r2";
    e.kind = FastPathEvent::Kind::kPortDown;
    multi_->emit(e);
    return 0;
  });
  auto ev_old = drain(*old);
  auto ev_r1 = drain(*r1);
  auto ev_all = drain(*all);
  auto ev_named = drain(*named);
  ASSERT_EQ(ev_old.size(), 1u);
  EXPECT_EQ(ev_old[0].port, 1u);
  EXPECT_EQ(ev_old[0].node, "default");
  ASSERT_EQ(ev_r1.size(), 1u);
  EXPECT_EQ(ev_r1[0].port, 10u);
  EXPECT_EQ(ev_r1[0].node, "r1");
  EXPECT_EQ(ev_r1[0].address.toString(), "198.18.9.9");
  ASSERT_EQ(ev_all.size(), 3u);
  EXPECT_EQ(ev_all[0].node, "default");
  EXPECT_EQ(ev_all[1].node, "r1");
  EXPECT_EQ(ev_all[2].node, "r2");
  EXPECT_EQ(ev_all[2].kind, FastPathEvent::Kind::kPortDown);
  ASSERT_EQ(ev_named.size(), 1u);
  EXPECT_EQ(ev_named[0].port, 21u);

  // A subscription that named no node follows the connection to its new node.
  ASSERT_TRUE(old->bind("r2"));
  h_->onServer([&] {
    FastPathEvent e;
    e.kind = FastPathEvent::Kind::kPortUp;
    e.port = 20;
    e.node = "r2";
    multi_->emit(e);
    return 0;
  });
  auto moved = drain(*old);
  ASSERT_EQ(moved.size(), 1u);
  EXPECT_EQ(moved[0].port, 20u);
  EXPECT_TRUE(drain(*r1, 50).empty());
}

}  // namespace
}  // namespace fastpath::ctrl
