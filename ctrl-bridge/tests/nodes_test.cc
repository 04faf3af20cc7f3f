// SPDX-License-Identifier: GPL-2.0-only
// Nodes through the control socket (protocol 1.3): a MultiNodeBackend (the default node,
// r1 with ports r1-eth0/1 ids 10/11, r2 with r2-eth0/1 ids 20/21), the real server, the
// client library. Every node-scoped request reaches its node's backend only: routes,
// neighbours, rules, ports, stats, control channels, leases and events are kept apart;
// an old client (no node anywhere) talks to the default node; nodes and links are
// created, changed and deleted by operators only; malformed names are refused; links carry
// their emulation parameters and counters (1.4), bad values refused with their field.
#include <grp.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "fastpath/ctrl/client.h"
#include "multi_node_backend.h"
#include "server_harness.h"
#include "wire_client.h"
#include "wire_encode.h"

namespace fastpath::ctrl {
namespace {

using testing::MultiNodeBackend;
using testing::ServerHarness;
using namespace testing::wire;
using SteadyClock = std::chrono::steady_clock;

Route route(const std::string& prefix, const std::string& via, PortId port) {
  Route r;
  r.prefix = IpPrefix::parse(prefix).value();
  r.next_hop = via.empty() ? IpAddress{} : IpAddress::parse(via).value();
  r.next_hop.family = r.prefix.address.family;
  r.port = port;
  return r;
}

Neighbour neighbour(const std::string& ip, PortId port, const std::string& mac) {
  return Neighbour{IpAddress::parse(ip).value(), port, MacAddress::parse(mac).value()};
}

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

class Nodes : public ::testing::Test {
 protected:
  explicit Nodes(ServerOptions o = pageOptions()) {
    auto b = std::make_unique<MultiNodeBackend>();
    multi_ = b.get();
    EXPECT_TRUE(multi_->addNode("r1", MultiNodeBackend::interfacePorts("r1-eth", 10)));
    EXPECT_TRUE(multi_->addNode("r2", MultiNodeBackend::interfacePorts("r2-eth", 20)));
    h_ = std::make_unique<ServerHarness>(o, std::move(b));
  }
  static ServerOptions pageOptions() {
    ServerOptions o;
    o.route_page_size = 50;  // GetRoutes paging is per node too
    return o;
  }
  void SetUp() override { ASSERT_TRUE(h_->start()); }

  /// A client bound to `node` ("" = none named: an old client).
  std::unique_ptr<Client> connectTo(const std::string& node, ClientOptions o = {}) {
    o.node = node;
    return connectOk(*h_, o);
  }
  /// Runs `f` on the node's table, on the server thread.
  template <typename F>
  auto onTable(const std::string& node, F f) {
    return h_->onServer([=, this] { return f(*multi_->table(node)); });
  }
  std::size_t routesIn(const std::string& node) {
    return onTable(node, [](testing::TableBackend& t) { return t.routes().size(); });
  }

  MultiNodeBackend* multi_ = nullptr;
  std::unique_ptr<ServerHarness> h_;
};

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

std::vector<FastPathEvent> drain(Client& c, int wait_ms = 300) {
  std::vector<FastPathEvent> out;
  (void)c.ports();  // a round trip: events sent before it have arrived
  for (;;) {
    auto e = c.nextEvent(out.empty() ? wait_ms : 50);
    if (!e || !e.value()) return out;
    out.push_back(*e.value());
  }
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

/// Sends `req` (after a Hello) on a raw connection; returns the reply to it.
v1::Reply rawReply(ServerHarness& h, const v1::Request& req) {
  int s = rawConnect(h.socketPath());
  sendHello(s);
  sendFrame(s, req);
  ::shutdown(s, SHUT_WR);
  bool eof = false;
  auto msgs = readUntilEof(s, &eof);
  ::close(s);
  EXPECT_EQ(msgs.size(), 2u);
  return msgs.empty() ? v1::Reply{} : msgs.back().reply();
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

// ---------------------------------------------------------------- link emulation (1.4)

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

// Runs `f` in a child process as nobody (uid/gid 65534); returns its exit status.
template <typename F>
int asNobody(F f) {
  pid_t pid = ::fork();
  if (pid == 0) {
    gid_t none = 65534;
    if (::setgroups(0, nullptr) != 0 || ::setgid(none) != 0 || ::setuid(65534) != 0) _exit(100);
    _exit(f());
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 200;
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
