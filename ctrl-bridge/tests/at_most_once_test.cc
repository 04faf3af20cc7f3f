// SPDX-License-Identifier: GPL-2.0-only
// At-most-once (protocol 1.15): a change whose reply was lost with its connection, resent by
// the client library after it reconnected, is answered with that reply and not carried out
// again. The connection is cut by a proxy between the real client library and the real
// server after the server carried the request out (cutting_proxy.h); the dispatcher's and
// the reply cache's own rules are tested without sockets.
#include "cutting_proxy.h"
#include "nodes_fixture.h"
#include "operator_session.h"
#include "reply_cache.h"

namespace fastpath::ctrl {
namespace {

class AtMostOnce : public Nodes {
 protected:
  void SetUp() override {
    Nodes::SetUp();
    proxy_ = std::make_unique<testing::CuttingProxy>(h_->socketPath(), h_->dir());
    ASSERT_TRUE(proxy_->listening());
  }
  /// A client that reconnects and resends, through the proxy.
  std::unique_ptr<Client> viaProxy(ClientOptions o = {}) {
    o.node_name = "test-node";
    o.auto_reconnect = true;
    o.backoff_initial_ms = 5;
    auto c = Client::connect(proxy_->path(), o);
    EXPECT_TRUE(c) << (c ? "" : c.error().message);
    return c ? std::move(c).value() : nullptr;
  }
  /// The server's requests_replayed, read by a client of its own.
  uint64_t replayed() {
    auto c = connectOk(*h_);
    auto sets = c->stats();
    EXPECT_TRUE(sets);
    for (const auto& set : sets.value())
      if (set.scope == "control-server")
        for (const auto& [name, value] : set.counters)
          if (name == "requests_replayed") return value;
    ADD_FAILURE() << "no requests_replayed counter";
    return 0;
  }
  std::size_t nodesNamed(const std::string& name) {
    auto c = connectOk(*h_);
    auto ns = c->nodes();
    EXPECT_TRUE(ns);
    std::size_t n = 0;
    for (const auto& node : ns.value()) n += node.name == name;
    return n;
  }

  std::unique_ptr<testing::CuttingProxy> proxy_;
};

TEST_F(AtMostOnce, ACreateWhoseReplyWasLostSucceedsOnce) {
  auto c = viaProxy();
  ASSERT_TRUE(c);
  proxy_->cutAtReply(1);
  auto st = c->createNode(NodeSpec{"r5", ""});
  ASSERT_TRUE(st) << st.error().message;
  EXPECT_EQ(proxy_->cuts(), 1);
  EXPECT_EQ(nodesNamed("r5"), 1u);
  EXPECT_EQ(replayed(), 1u);
  // The connection goes on: the next create is carried out.
  ASSERT_TRUE(c->createNode(NodeSpec{"r6", ""}));
  EXPECT_EQ(nodesNamed("r6"), 1u);
  EXPECT_EQ(replayed(), 1u);
}

// What the cache prevents: a client announcing 1.14 names no session, and its resend is
// carried out a second time.
TEST_F(AtMostOnce, WithoutASessionTheResendIsCarriedOutAgain) {
  ClientOptions o;
  o.protocol_minor = 14;
  auto c = viaProxy(o);
  ASSERT_TRUE(c);
  proxy_->cutAtReply(1);
  auto st = c->createNode(NodeSpec{"r5", ""});
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code, -EINVAL) << st.error().message;
  EXPECT_NE(st.error().message.find("exist"), std::string::npos) << st.error().message;
  EXPECT_EQ(nodesNamed("r5"), 1u);
  EXPECT_EQ(replayed(), 0u);
}

TEST_F(AtMostOnce, AStatsResetWhoseReplyWasLostResetsOnce) {
  auto c = viaProxy();
  ASSERT_TRUE(c);
  proxy_->cutAtReply(1);
  auto epoch = c->resetStats();
  ASSERT_TRUE(epoch) << epoch.error().message;
  EXPECT_EQ(epoch->resets, 1u);
  EXPECT_EQ(h_->onServer([this] { return multi_->statsEpoch().resets; }), 1u);
}

TEST_F(AtMostOnce, ADeleteWhoseReplyWasLostDoesNotReportNotFound) {
  auto c = viaProxy();
  ASSERT_TRUE(c);
  ASSERT_TRUE(c->addRoute(route("198.18.5.0/24", "", 1)));
  proxy_->cutAtReply(1);
  auto st = c->deleteRoute(IpPrefix::parse("198.18.5.0/24").value(), false);
  ASSERT_TRUE(st) << st.error().message;
  EXPECT_EQ(routesIn(""), 0u);
}

// The resent chunks before the last open the transaction again on the new connection;
// the resent last one is answered from the cache, and that transaction must not stay open.
TEST_F(AtMostOnce, AChunkedBatchWhoseLastReplyWasLostIsAppliedOnce) {
  ClientOptions o;
  o.routes_per_chunk = 2;
  auto c = viaProxy(o);
  ASSERT_TRUE(c);
  RouteBatch b;
  for (int i = 0; i < 5; ++i) b.add.push_back(route("198.18." + std::to_string(i) + ".0/24", "", 1));
  proxy_->cutAtReply(3);  // chunks 0, 1 answered; the last one's reply is lost
  auto st = c->applyRoutes(b);
  ASSERT_TRUE(st) << st.error().message;
  EXPECT_EQ(proxy_->cuts(), 1);
  EXPECT_EQ(routesIn(""), 5u);
  EXPECT_EQ(replayed(), 1u);
  // No transaction is left open on the new connection: another one goes through whole.
  RouteBatch more;
  for (int i = 5; i < 10; ++i)
    more.add.push_back(route("198.18." + std::to_string(i) + ".0/24", "", 1));
  ASSERT_TRUE(c->applyRoutes(more));
  EXPECT_EQ(routesIn(""), 10u);
}

// The client's replay after a reconnect (on_reconnect) makes changes on the new connection
// before the resend: they must not push the lost reply out.
TEST_F(AtMostOnce, TheReplayAfterAReconnectDoesNotPushTheLostReplyOut) {
  ClientOptions o;
  int replays = 0;
  o.on_reconnect = [&](Client& c) -> Status {
    ++replays;
    for (int i = 0; i < 20; ++i)
      if (auto st = c.addRoute(route("198.18.100." + std::to_string(i) + "/32", "", 1)); !st)
        return st;
    return {};
  };
  auto c = viaProxy(o);
  ASSERT_TRUE(c);
  proxy_->cutAtReply(1);
  auto st = c->createNode(NodeSpec{"r5", ""});
  ASSERT_TRUE(st) << st.error().message;
  EXPECT_EQ(replays, 1);
  EXPECT_EQ(nodesNamed("r5"), 1u);
  EXPECT_EQ(routesIn(""), 20u);
}

// ---- the dispatcher's rules, without sockets

v1::Request helloWithSession(uint64_t session) {
  v1::Request r;
  r.set_id(1);
  r.mutable_hello()->mutable_version()->set_major(kProtocolMajor);
  r.mutable_hello()->mutable_version()->set_minor(kProtocolMinor);
  r.mutable_hello()->set_session_id(session);
  return r;
}

Session sessionOf(Dispatcher& d, uint32_t uid, uint64_t session) {
  Session s;
  s.uid = uid;
  s.may_change_topology = true;
  auto out = d.handle(s, helloWithSession(session));
  EXPECT_FALSE(out.message.reply().has_error()) << out.message.reply().error().message();
  return s;
}

v1::Request createNode(uint64_t id, const std::string& name) {
  v1::Request r;
  r.set_id(id);
  r.mutable_create_node()->set_name(name);
  return r;
}

TEST(AtMostOnceDispatcher, ASessionIsItsUsersOnly) {
  testing::MultiNodeBackend backend;
  Dispatcher d(backend, {});
  Session first = sessionOf(d, 1000, 42);
  ASSERT_FALSE(d.handle(first, createNode(7, "r5")).message.reply().has_error());
  d.disconnected(first);
  // Another user naming the same session gets no reply of the first: the create is
  // carried out, and r5 exists.
  Session stranger = sessionOf(d, 1001, 42);
  auto theirs = d.handle(stranger, createNode(7, "r5"));
  ASSERT_TRUE(theirs.message.reply().has_error());
  EXPECT_EQ(theirs.message.reply().error().code(), v1::INVALID_ARGUMENT)
      << theirs.message.reply().error().message();
  EXPECT_EQ(d.counters().replayed, 0u);
  // The same user and session: answered with the first reply.
  Session again = sessionOf(d, 1000, 42);
  auto mine = d.handle(again, createNode(7, "r5"));
  EXPECT_FALSE(mine.message.reply().has_error()) << mine.message.reply().error().message();
  EXPECT_EQ(mine.message.reply().id(), 7u);
  EXPECT_EQ(d.counters().replayed, 1u);
}

TEST(AtMostOnceDispatcher, ReadsAndTheSameConnectionAreNotAnsweredFromTheCache) {
  testing::MultiNodeBackend backend;
  Dispatcher d(backend, {});
  Session s = sessionOf(d, 0, 9);
  ASSERT_FALSE(d.handle(s, createNode(3, "r5")).message.reply().has_error());
  // The same id again on the same connection is a new request (a client's own business).
  EXPECT_TRUE(d.handle(s, createNode(3, "r5")).message.reply().has_error());
  v1::Request nodes;
  nodes.set_id(4);
  nodes.mutable_get_nodes();
  (void)d.handle(s, nodes);
  d.disconnected(s);
  Session next = sessionOf(d, 0, 9);
  auto listed = d.handle(next, nodes);
  EXPECT_TRUE(listed.message.reply().has_nodes());
  EXPECT_EQ(d.counters().replayed, 0u);
}

// ---- the cache's bounds

v1::ServerMessage replyWithId(uint64_t id) {
  v1::ServerMessage m;
  m.mutable_reply()->set_id(id);
  return m;
}

TEST(ReplyCache, AClosedConnectionsReplyIsKeptForItsRetainTimeOnly) {
  ReplyCache::Limits l;
  l.retain = std::chrono::seconds(10);
  ReplyCache cache(l);
  const ReplyCache::Key key{0, 5};
  auto t0 = ReplyCache::Clock::now();
  cache.remember(key, 1, 11, replyWithId(11));
  EXPECT_EQ(cache.find(key, 1, 11), nullptr) << "not on the connection that made it";
  ASSERT_NE(cache.find(key, 2, 11), nullptr);
  cache.closed(key, 1, t0);
  cache.expire(t0 + std::chrono::seconds(9));
  ASSERT_NE(cache.find(key, 2, 11), nullptr);
  cache.expire(t0 + std::chrono::seconds(10));
  EXPECT_EQ(cache.find(key, 2, 11), nullptr);
  EXPECT_EQ(cache.sessions(), 0u);
}

TEST(ReplyCache, BoundedPerSessionAndInSessions) {
  ReplyCache::Limits l;
  l.connections_per_session = 2;
  l.sessions = 2;
  ReplyCache cache(l);
  auto t0 = ReplyCache::Clock::now();
  const ReplyCache::Key a{0, 1}, b{0, 2}, c{0, 3};
  // Three connections of one session: the oldest closed one's reply goes.
  cache.remember(a, 1, 100, replyWithId(100));
  cache.closed(a, 1, t0);
  cache.remember(a, 2, 200, replyWithId(200));
  cache.closed(a, 2, t0 + std::chrono::seconds(1));
  cache.remember(a, 3, 300, replyWithId(300));
  EXPECT_EQ(cache.find(a, 9, 100), nullptr);
  EXPECT_NE(cache.find(a, 9, 200), nullptr);
  EXPECT_NE(cache.find(a, 9, 300), nullptr);
  // A third session: of those without a live connection, the one closed first goes.
  cache.remember(b, 4, 400, replyWithId(400));
  cache.closed(b, 4, t0 + std::chrono::seconds(2));
  cache.remember(c, 5, 500, replyWithId(500));
  EXPECT_EQ(cache.sessions(), 2u);
  EXPECT_NE(cache.find(a, 9, 300), nullptr) << "a still has a live connection";
  EXPECT_EQ(cache.find(b, 9, 400), nullptr);
  EXPECT_NE(cache.find(c, 9, 500), nullptr);
}

}  // namespace
}  // namespace fastpath::ctrl
