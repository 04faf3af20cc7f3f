// SPDX-License-Identifier: GPL-2.0-only
// The server over a real Unix socket, several clients, the real FibManager behind it.
#include <arpa/inet.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <optional>
#include <thread>

#include "fastpath/ctrl/client.h"
#include "framing.h"
#include "server_harness.h"
#include "wire_client.h"
#include "wire_encode.h"

namespace fastpath::ctrl {
namespace {

using testing::ServerHarness;
using namespace testing::wire;

Route route(const std::string& prefix, const std::string& via, PortId port, uint32_t metric = 0) {
  Route r;
  r.prefix = IpPrefix::parse(prefix).value();
  r.next_hop = via.empty() ? IpAddress{} : IpAddress::parse(via).value();
  r.next_hop.family = r.prefix.address.family;
  r.port = port;
  r.metric = metric;
  return r;
}

class ServerTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(h_.start()); }
  ServerHarness h_;
};

TEST_F(ServerTest, SocketIsCreated0660) {
  struct stat sb {};
  ASSERT_EQ(::stat(h_.socketPath().c_str(), &sb), 0);
  EXPECT_TRUE(S_ISSOCK(sb.st_mode));
  EXPECT_EQ(sb.st_mode & 0777, 0660u);
}

TEST_F(ServerTest, HelloReportsServerIdentity) {
  auto c = connectOk(h_);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->serverInfo().major, kProtocolMajor);
  EXPECT_EQ(c->serverInfo().daemon_name, "fastpathd");
  EXPECT_FALSE(c->serverInfo().node_name.empty());
}

TEST_F(ServerTest, RoutesAppliedByOneClientAreSeenByAnother) {
  auto a = connectOk(h_);
  auto b = connectOk(h_);
  ASSERT_TRUE(a && b);
  ASSERT_TRUE(a->addRoute(route("198.18.2.0/24", "198.18.1.2", 1, 5)));
  ASSERT_TRUE(a->addRoute(route("2001:2:0:7::/64", "", 2)));
  auto rs = b->routes();
  ASSERT_TRUE(rs) << rs.error().message;
  ASSERT_EQ(rs->size(), 2u);
  // And the table behind the server really has them (a lookup, not just a list).
  auto nh = h_.onServer([&] {
    return h_.backend().fib().view().nextHop4(
        IpAddress::parse("198.18.2.77").value().v4NetworkOrder());
  });
  EXPECT_NE(nh, kLpmNoRoute);
  ASSERT_TRUE(b->deleteRoute(IpPrefix::parse("198.18.2.0/24").value()));
  EXPECT_EQ(a->routes()->size(), 1u);
  auto st = b->deleteRoute(IpPrefix::parse("198.18.2.0/24").value());
  ASSERT_FALSE(st);
  // A missing route is NOT_FOUND on the wire (ENOENT here), naming the entry.
  EXPECT_EQ(st.error().code, -ENOENT) << st.error().message;
  EXPECT_NE(st.error().message.find("remove[0]: no route 198.18.2.0/24"), std::string::npos)
      << st.error().message;
  EXPECT_TRUE(b->deleteRoute(IpPrefix::parse("198.18.2.0/24").value(), /*ignore_missing=*/true));
}

TEST_F(ServerTest, ValidationErrorNamesFieldAndLeavesTableUntouched) {
  auto c = connectOk(h_);
  ASSERT_TRUE(c->addRoute(route("198.18.50.0/24", "", 0)));
  RouteBatch b;
  b.add = {route("198.18.2.0/24", "", 1), route("198.18.3.0/24", "", 1),
           route("198.18.4.0/24", "", 7)};
  auto st = c->applyRoutes(b);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code, -ENOENT);
  EXPECT_NE(st.error().message.find("apply_routes.add[2].port: no port with id 7"),
            std::string::npos)
      << st.error().message;
  EXPECT_EQ(c->routes()->size(), 1u);  // all-or-nothing
}

TEST_F(ServerTest, NeighboursRulesPortsStats) {
  auto c = connectOk(h_);
  auto ports = c->ports();
  ASSERT_TRUE(ports);
  ASSERT_EQ(ports->size(), 3u);
  EXPECT_EQ((*ports)[1].ifname, "fp1");
  EXPECT_EQ(c->portByName("fp2").value(), 2u);
  EXPECT_EQ(c->portByName("nope").error().code, -ENOENT);

  Neighbour n{IpAddress::parse("198.18.1.2").value(), 1,
              MacAddress::parse("02:aa:00:00:00:01").value()};
  ASSERT_TRUE(c->addNeighbour(n));
  auto ns = c->neighbours();
  ASSERT_TRUE(ns);
  ASSERT_EQ(ns->size(), 1u);
  EXPECT_EQ((*ns)[0].mac, n.mac);
  ASSERT_TRUE(c->deleteNeighbour(n.ip, 1));
  EXPECT_FALSE(c->deleteNeighbour(n.ip, 1));
  EXPECT_EQ(c->neighbours()->size(), 0u);

  ControlRule r;
  r.kind = ControlRule::Kind::kL4Port;
  r.ip_proto = 17;
  r.port = 698;
  ASSERT_TRUE(c->setControlRules({r}));
  auto rules = c->controlRules();
  ASSERT_TRUE(rules);
  ASSERT_EQ(rules->size(), 1u);
  EXPECT_EQ((*rules)[0].port, 698);

  auto stats = c->stats();
  ASSERT_TRUE(stats);
  bool found = false;
  for (const auto& s : *stats) found |= s.scope == "control-server";
  EXPECT_TRUE(found);
}

TEST_F(ServerTest, VersionMismatchIsRefusedNamingBothVersions) {
  ClientOptions o;
  o.protocol_major = 2;
  o.protocol_minor = 3;
  auto c = Client::connect(h_.socketPath(), o);
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().code, -EPROTONOSUPPORT);
  EXPECT_NE(c.error().message.find("client speaks protocol 2.3, fastpathd speaks 1." +
                                   std::to_string(kProtocolMinor)),
            std::string::npos)
      << c.error().message;
}

// A fastpathd of protocol 1.`minor` as far as one client can tell: it answers Hello with
// that version and every other request with OK, and keeps what it was asked.
class OlderServer {
 public:
  explicit OlderServer(uint32_t minor) : minor_(minor) {
    char dir[] = "/tmp/fp-older-server-XXXXXX";
    if (!mkdtemp(dir)) return;
    dir_ = dir;
    path_ = dir_ + "/sock";
    listen_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::strncpy(a.sun_path, path_.c_str(), sizeof(a.sun_path) - 1);
    if (::bind(listen_, reinterpret_cast<sockaddr*>(&a), sizeof(a)) < 0 ||
        ::listen(listen_, 1) < 0)
      return;
    thread_ = std::thread([this] { serve(); });
  }
  ~OlderServer() {
    if (thread_.joinable()) thread_.join();
    if (listen_ >= 0) ::close(listen_);
    ::unlink(path_.c_str());
    ::rmdir(dir_.c_str());
  }
  const std::string& path() const { return path_; }
  /// What the client sent, once it closed its connection.
  const std::vector<v1::Request>& requests() {
    if (thread_.joinable()) thread_.join();
    return requests_;
  }

 private:
  void serve() {
    const int c = ::accept4(listen_, nullptr, nullptr, SOCK_CLOEXEC);
    if (c < 0) return;
    FrameDecoder dec(64u << 20);
    char buf[4096];
    for (;;) {
      const ssize_t n = ::recv(c, buf, sizeof(buf), 0);
      if (n <= 0) break;
      dec.append(buf, size_t(n));
      v1::Request req;
      while (dec.next(&req) == FrameDecoder::State::kFrame) {
        requests_.push_back(req);
        v1::ServerMessage m;
        m.mutable_reply()->set_id(req.id());
        if (req.has_hello()) {
          m.mutable_reply()->mutable_hello()->mutable_version()->set_major(kProtocolMajor);
          m.mutable_reply()->mutable_hello()->mutable_version()->set_minor(minor_);
        }
        // Requests newer than the server: it does not know them (body not set for it).
        if (minor_ < 11 && (req.has_create_bridge() || req.has_delete_bridge() ||
                            req.has_get_bridges())) {
          m.mutable_reply()->mutable_error()->set_code(v1::UNIMPLEMENTED);
          m.mutable_reply()->mutable_error()->set_message("unknown request");
        }
        std::string w;
        if (!encodeFrame(m, 64u << 20, &w) ||
            ::send(c, w.data(), w.size(), MSG_NOSIGNAL) != ssize_t(w.size()))
          break;
      }
    }
    ::close(c);
  }

  uint32_t minor_;
  std::string dir_, path_;
  int listen_ = -1;
  std::thread thread_;
  std::vector<v1::Request> requests_;
};

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

TEST_F(ServerTest, RequestBeforeHelloIsRejected) {
  int s = rawConnect(h_.socketPath());
  ASSERT_GE(s, 0);
  v1::Request r;
  r.set_id(5);
  r.mutable_get_ports();
  sendFrame(s, r);
  ::shutdown(s, SHUT_WR);
  bool eof;
  auto msgs = readUntilEof(s, &eof);
  ::close(s);
  ASSERT_EQ(msgs.size(), 1u);
  EXPECT_EQ(msgs[0].reply().id(), 5u);
  EXPECT_EQ(msgs[0].reply().error().code(), v1::FAILED_PRECONDITION);
}

struct BadFrameCase {
  const char* name;
  std::string bytes;
  v1::ErrorCode code;
};

class BadFrames : public ServerTest, public ::testing::WithParamInterface<int> {};

TEST_P(BadFrames, GetErrorReplyThenCleanCloseWhileOthersContinue) {
  std::string oversize;
  {
    // Announce 17 MiB (limit 16 MiB): refused from the length prefix alone.
    v1::Request big;
    big.set_id(9);
    big.mutable_set_control_rules();
    std::string w;
    uint64_t len = 17u << 20;
    while (len >= 0x80) {
      w.push_back(static_cast<char>((len & 0x7f) | 0x80));
      len >>= 7;
    }
    w.push_back(static_cast<char>(len));
    w += std::string(100, '\0');
    oversize = w;
  }
  std::string truncated;
  {
    v1::Request r;
    r.set_id(3);
    r.mutable_apply_routes()->add_add()->set_metric(1);
    ASSERT_TRUE(encodeFrame(r, 1 << 20, &truncated));
    truncated.pop_back();
  }
  const BadFrameCase cases[] = {
      {"oversize", oversize, v1::MESSAGE_TOO_LARGE},
      {"truncated", truncated, v1::MALFORMED},
      {"garbage-varint", std::string(12, '\xff'), v1::MALFORMED},
      {"garbage-body", std::string("\x04\x0f\x01\x02\x03", 5), v1::MALFORMED},
  };
  const auto& tc = cases[GetParam()];
  SCOPED_TRACE(tc.name);
  auto other = connectOk(h_);
  int s = rawConnect(h_.socketPath());
  ASSERT_GE(s, 0);
  sendHello(s);
  ASSERT_EQ(::send(s, tc.bytes.data(), tc.bytes.size(), MSG_NOSIGNAL),
            static_cast<ssize_t>(tc.bytes.size()));
  ::shutdown(s, SHUT_WR);  // EOF makes the truncated frame visible
  bool eof = false;
  auto msgs = readUntilEof(s, &eof);
  ::close(s);
  EXPECT_TRUE(eof) << "server must close the connection";
  ASSERT_EQ(msgs.size(), 2u);  // hello reply + the error
  EXPECT_FALSE(msgs[0].reply().has_error());
  EXPECT_EQ(msgs[1].reply().error().code(), tc.code) << msgs[1].reply().error().message();
  EXPECT_FALSE(msgs[1].reply().error().message().empty());
  // The server is fine and serves others.
  EXPECT_TRUE(other->addRoute(route("198.18.77.0/24", "", 0)));
}

INSTANTIATE_TEST_SUITE_P(All, BadFrames, ::testing::Values(0, 1, 2, 3));

TEST_F(ServerTest, LargeReplaceAllIsChunkedAndAtomic) {
  ClientOptions o;
  o.routes_per_chunk = 20000;
  auto c = connectOk(h_, o);
  ASSERT_TRUE(c->addRoute(route("198.19.0.0/16", "", 0)));
  std::vector<Route> table;
  for (uint32_t i = 0; i < 70000; ++i) {
    Route r;
    r.prefix.address = IpAddress::v4(htonl(0xc6000000u | (i << 8)));  // 198.0.0.0 + i*256
    r.prefix.length = 24;
    r.next_hop.family = Family::kIpv4;
    r.port = i % 3;
    table.push_back(r);
  }
  ASSERT_TRUE(c->replaceAllRoutes(table));
  ClientOptions small;
  auto rs = connectOk(h_, small)->routes();
  ASSERT_TRUE(rs);
  EXPECT_EQ(rs->size(), 70000u);  // the /16 is gone: replaced, paged back (100k/page)
}

TEST_F(ServerTest, ClientDisconnectingMidTransactionLeavesNothingApplied) {
  auto keep = connectOk(h_);
  ASSERT_TRUE(keep->addRoute(route("198.18.100.0/24", "", 0)));
  int s = rawConnect(h_.socketPath());
  ASSERT_GE(s, 0);
  sendHello(s);
  for (uint32_t chunk = 0; chunk < 2; ++chunk) {
    v1::Request r;
    r.set_id(10 + chunk);
    auto* b = r.mutable_apply_routes();
    b->set_transaction_id(77);
    b->set_chunk_index(chunk);
    b->set_replace_all(true);
    for (uint32_t i = 0; i < 100; ++i)
      toWire(route("198." + std::to_string(18 + chunk) + "." + std::to_string(i) + ".0/24", "", 1),
             b->add_add());
    sendFrame(s, r);
  }
  // Wait for both chunk acks, then vanish without the final chunk.
  FrameDecoder dec(1 << 20);
  int acks = 0;
  while (acks < 3) {
    char buf[4096];
    ssize_t n = ::recv(s, buf, sizeof(buf), 0);
    ASSERT_GT(n, 0);
    dec.append(buf, n);
    v1::ServerMessage m;
    while (dec.next(&m) == FrameDecoder::State::kFrame) {
      EXPECT_FALSE(m.reply().has_error()) << m.reply().error().message();
      ++acks;
    }
  }
  ::close(s);
  for (int i = 0; i < 100 && h_.server().counters().transactions_aborted == 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(h_.onServer([&] { return h_.server().counters().transactions_aborted; }), 1u);
  auto rs = keep->routes();
  ASSERT_EQ(rs->size(), 1u);
  EXPECT_EQ((*rs)[0].prefix.toString(), "198.18.100.0/24");
}

TEST_F(ServerTest, OutOfOrderChunkAbortsTheTransaction) {
  auto c = connectOk(h_);
  int s = rawConnect(h_.socketPath());
  sendHello(s);
  auto chunk = [&](uint64_t id, uint32_t idx, bool final) {
    v1::Request r;
    r.set_id(id);
    auto* b = r.mutable_apply_routes();
    b->set_transaction_id(5);
    b->set_chunk_index(idx);
    b->set_final_chunk(final);
    b->set_replace_all(true);
    toWire(route("198.18." + std::to_string(idx) + ".0/24", "", 1), b->add_add());
    sendFrame(s, r);
  };
  chunk(2, 0, false);
  chunk(3, 2, false);  // skips 1
  chunk(4, 1, true);   // no transaction open any more
  ::shutdown(s, SHUT_WR);
  bool eof;
  auto msgs = readUntilEof(s, &eof);
  ::close(s);
  ASSERT_EQ(msgs.size(), 4u);
  EXPECT_FALSE(msgs[1].reply().has_error());
  EXPECT_EQ(msgs[2].reply().error().code(), v1::ABORTED);
  EXPECT_EQ(msgs[2].reply().error().field(), "apply_routes.chunk_index");
  EXPECT_NE(msgs[2].reply().error().message().find("out of order (expected 1)"), std::string::npos);
  EXPECT_EQ(msgs[3].reply().error().code(), v1::ABORTED);
  EXPECT_EQ(c->routes()->size(), 0u);
}

TEST(ServerSlowReader, ClientThatStopsReadingIsDisconnectedOthersAreServed) {
  ServerOptions o;
  o.max_send_queue_bytes = 256 * 1024;
  ServerHarness h(o);
  ASSERT_TRUE(h.start());
  auto fast = connectOk(h);
  std::vector<Route> table;
  for (uint32_t i = 0; i < 2000; ++i)
    table.push_back(
        route("198.18." + std::to_string(i / 256) + "." + std::to_string(i % 256) + "/32", "", 1));
  ASSERT_TRUE(fast->replaceAllRoutes(table));

  int s = rawConnect(h.socketPath());
  ASSERT_GE(s, 0);
  int small = 4096;
  ::setsockopt(s, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
  sendHello(s);
  // Ask for the table over and over without reading a byte (each reply ~40 KB).
  bool disconnected = false;
  for (int i = 0; i < 2000 && !disconnected; ++i) {
    v1::Request r;
    r.set_id(100 + i);
    r.mutable_get_routes();
    std::string w;
    ASSERT_TRUE(encodeFrame(r, 1 << 20, &w));
    if (::send(s, w.data(), w.size(), MSG_NOSIGNAL | MSG_DONTWAIT) < 0) disconnected = true;
    // Meanwhile the well-behaved client gets prompt answers.
    if (i % 50 == 0) {
      auto t0 = std::chrono::steady_clock::now();
      ASSERT_TRUE(fast->ports());
      EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(2));
    }
    if (h.onServer([&] { return h.server().counters().send_queue_overflows; }) > 0)
      disconnected = true;
  }
  EXPECT_TRUE(disconnected);
  EXPECT_EQ(h.onServer([&] { return h.server().counters().send_queue_overflows; }), 1u);
  ::close(s);
  EXPECT_TRUE(fast->addRoute(route("198.19.0.0/16", "", 2)));
}

TEST(ServerCredentials, PeerNotAllowedIsRefusedWithReason) {
  ServerOptions o;
  o.socket_mode = 0666;  // let anyone reach the SO_PEERCRED check
  o.allow_same_uid = false;
  ServerHarness h(o);
  ASSERT_TRUE(h.start());
  if (::geteuid() != 0) {
    // Non-root: our own uid is not allowed by this configuration.
    auto c = Client::connect(h.socketPath(), {});
    ASSERT_FALSE(c);
    EXPECT_EQ(c.error().code, -EACCES) << c.error().message;
    EXPECT_NE(c.error().message.find("uid " + std::to_string(::getuid())), std::string::npos);
  } else {
    passwd* nobody = ::getpwnam("nobody");
    if (!nobody) GTEST_SKIP() << "no 'nobody' user to drop to";
    ::chmod(h.dir().c_str(), 0755);  // let nobody traverse the temp dir
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      if (::setgid(nobody->pw_gid) != 0 || ::setuid(nobody->pw_uid) != 0) _exit(10);
      auto c = Client::connect(h.socketPath(), {});
      if (c) _exit(11);
      if (c.error().code != -EACCES) _exit(12);
      if (c.error().message.find("permission denied") == std::string::npos) _exit(13);
      _exit(0);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
    // Root is always allowed.
    EXPECT_TRUE(Client::connect(h.socketPath(), {}));
  }
  EXPECT_EQ(h.onServer([&] { return h.server().counters().refused_credentials; }), 1u);
}

TEST_F(ServerTest, ControlChannelFdIsPassedWithScmRights) {
  auto c = connectOk(h_);
  auto fd = c->openControlChannel(1);
  ASSERT_TRUE(fd) << fd.error().message;
  const char frame[] = "\xff\xff\xff\xff\xff\xff\x02\x00\x00\x00\x00\x09\x08\x06arp?";
  ASSERT_EQ(::write(fd.value(), frame, sizeof(frame)), static_cast<ssize_t>(sizeof(frame)));
  int daemon_end = h_.onServer([&] { return h_.backend().daemonEnd(1); });
  ASSERT_GE(daemon_end, 0);
  char buf[128];
  ssize_t n = ::recv(daemon_end, buf, sizeof(buf), MSG_DONTWAIT);
  ASSERT_EQ(n, static_cast<ssize_t>(sizeof(frame)));
  EXPECT_EQ(std::memcmp(buf, frame, sizeof(frame)), 0);
  // And the other way: one frame per message.
  ASSERT_EQ(::send(daemon_end, "reply", 5, 0), 5);
  ASSERT_EQ(::recv(fd.value(), buf, sizeof(buf), 0), 5);
  ::close(fd.value());
  auto bad = c->openControlChannel(9);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, -ENOENT);
  EXPECT_TRUE(c->ports());  // connection still in sync after the error
}

TEST_F(ServerTest, ChannelIsReleasedWhenTheLastConnectionHoldingItCloses) {
  auto a = connectOk(h_);
  auto b = connectOk(h_);
  auto fa = a->openControlChannel(1);
  ASSERT_TRUE(fa) << fa.error().message;
  auto fb = b->openControlChannel(1);
  ASSERT_TRUE(fb) << fb.error().message;
  ::close(*fa);
  ::close(*fb);
  auto released = [&] { return h_.onServer([&] { return h_.backend().released(); }); };
  a.reset();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_TRUE(released().empty()) << "b still holds the channel";
  b.reset();
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (released().empty() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(released(), std::vector<PortId>{1});
}

TEST_F(ServerTest, EventsReachSubscribersOnly) {
  auto sub = connectOk(h_);
  auto other = connectOk(h_);
  ASSERT_TRUE(sub->subscribe());
  h_.onServer([&] {
    FastPathEvent e;
    e.kind = FastPathEvent::Kind::kRouteMiss;
    e.port = 2;
    e.address = IpAddress::parse("198.18.9.9").value();
    h_.backend().emit(e);
    e.kind = FastPathEvent::Kind::kPortDown;
    h_.backend().emit(e);
    return 0;
  });
  // A request in between: the events arriving first are buffered, not lost.
  ASSERT_TRUE(sub->ports());
  auto e1 = sub->nextEvent(2000);
  ASSERT_TRUE(e1 && e1.value());
  EXPECT_EQ(e1.value()->kind, FastPathEvent::Kind::kRouteMiss);
  EXPECT_EQ(e1.value()->address.toString(), "198.18.9.9");
  EXPECT_EQ(e1.value()->port, 2u);
  auto e2 = sub->nextEvent(2000);
  ASSERT_TRUE(e2 && e2.value());
  EXPECT_EQ(e2.value()->kind, FastPathEvent::Kind::kPortDown);
  auto none = other->nextEvent(50);
  ASSERT_TRUE(none);
  EXPECT_FALSE(none.value());
}

TEST_F(ServerTest, ReconnectsWithBackoffAndReplays) {
  ClientOptions o;
  o.auto_reconnect = true;
  o.backoff_initial_ms = 10;
  int replays = 0;
  o.on_reconnect = [&](Client& c) -> Status {
    ++replays;
    return c.replaceAllRoutes({route("198.18.200.0/24", "", 1)});
  };
  auto c = connectOk(h_, o);
  ASSERT_TRUE(c->subscribe());
  ASSERT_TRUE(h_.restart());  // drops every connection
  auto rs = c->routes();      // fails once, reconnects, replays, retries
  ASSERT_TRUE(rs) << rs.error().message;
  EXPECT_EQ(replays, 1);
  ASSERT_EQ(rs->size(), 1u);
  EXPECT_EQ((*rs)[0].prefix.toString(), "198.18.200.0/24");
}

TEST(ServerStart, RefusesWhenAnotherServerListens) {
  ServerHarness h;
  ASSERT_TRUE(h.start());
  testing::TableBackend b;
  ServerOptions o;
  o.socket_path = h.socketPath();
  ControlServer second(b, o);
  auto st = second.start();
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code, -EADDRINUSE);
}

// ---------------------------------------------------------------- route leases

using SteadyClock = std::chrono::steady_clock;

bool hasRoute(Client& c, const std::string& prefix) {
  auto rs = c.routes();
  EXPECT_TRUE(rs) << (rs ? "" : rs.error().message);
  if (!rs) return false;
  auto p = IpPrefix::parse(prefix).value();
  for (const auto& r : *rs)
    if (r.prefix == p) return true;
  return false;
}

bool hasNeighbour(Client& c, const std::string& ip) {
  auto ns = c.neighbours();
  if (!ns) return false;
  auto a = IpAddress::parse(ip).value();
  for (const auto& n : *ns)
    if (n.ip == a) return true;
  return false;
}

std::unique_ptr<Client> connectLeased(ServerHarness& h, const std::string& node,
                                      uint32_t grace_ms) {
  ClientOptions o;
  o.node_name = node;
  o.client_name = "ns-3";
  o.route_grace_period_ms = grace_ms;
  return connectOk(h, o);
}

/// Waits (bounded) until `prefix` is gone; returns how long that took from `since`.
std::optional<std::chrono::milliseconds> waitGone(Client& c, const std::string& prefix,
                                                  SteadyClock::time_point since) {
  auto deadline = SteadyClock::now() + std::chrono::seconds(5);
  while (SteadyClock::now() < deadline) {
    if (!hasRoute(c, prefix))
      return std::chrono::duration_cast<std::chrono::milliseconds>(SteadyClock::now() - since);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return std::nullopt;
}

TEST_F(ServerTest, LeasedRoutesOutliveTheOwnerForTheGracePeriodThenAreWithdrawn) {
  auto admin = connectOk(h_);  // fpctl-like: no lease
  ASSERT_TRUE(admin);
  ASSERT_TRUE(admin->addRoute(route("198.18.100.0/24", "198.18.1.9", 1)));
  Neighbour admin_n{IpAddress::parse("198.18.1.9").value(), 1,
                    MacAddress::parse("02:aa:00:00:00:09").value()};
  ASSERT_TRUE(admin->addNeighbour(admin_n));

  auto a = connectLeased(h_, "ns3-A", 300);
  ASSERT_TRUE(a);
  RouteBatch b;
  b.add = {route("198.18.2.0/24", "198.18.1.2", 1), route("198.18.3.0/24", "198.18.1.2", 1),
           route("2001:2:0:7::/64", "", 2), route("198.18.4.0/24", "198.18.1.2", 1)};
  ASSERT_TRUE(a->applyRoutes(b));
  ASSERT_TRUE(a->deleteRoute(IpPrefix::parse("198.18.3.0/24").value()));  // A no longer has it
  ASSERT_TRUE(a->addNeighbour(
      {IpAddress::parse("198.18.1.2").value(), 1, MacAddress::parse("02:aa:00:00:00:02").value()}));
  // The admin takes over one of A's prefixes: last writer owns it, it must survive A.
  ASSERT_TRUE(admin->addRoute(route("198.18.4.0/24", "198.18.1.9", 1)));
  EXPECT_EQ(h_.onServer([&] { return h_.server().counters().leases_expired; }), 0u);

  const auto t0 = SteadyClock::now();
  a.reset();  // ns-3 exits
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  bool present = hasRoute(*admin, "198.18.2.0/24") && hasRoute(*admin, "2001:2:0:7::/64");
  if (SteadyClock::now() - t0 < std::chrono::milliseconds(280)) {  // still inside the grace period
    EXPECT_TRUE(present) << "routes withdrawn before the grace period ended";
  }
  EXPECT_TRUE(hasNeighbour(*admin, "198.18.1.2") ||
              SteadyClock::now() - t0 >= std::chrono::milliseconds(280));

  auto gone = waitGone(*admin, "198.18.2.0/24", t0);
  ASSERT_TRUE(gone) << "routes of the departed owner still present 5 s after it left";
  EXPECT_GE(gone->count(), 300);
  std::this_thread::sleep_for(std::chrono::milliseconds(600) -
                              std::min(*gone, std::chrono::milliseconds(600)));
  EXPECT_FALSE(hasRoute(*admin, "2001:2:0:7::/64"));
  EXPECT_FALSE(hasNeighbour(*admin, "198.18.1.2"));
  // Untouched: fpctl's own route, the prefix it took over, its neighbour.
  EXPECT_TRUE(hasRoute(*admin, "198.18.100.0/24"));
  EXPECT_TRUE(hasRoute(*admin, "198.18.4.0/24"));
  EXPECT_TRUE(hasNeighbour(*admin, "198.18.1.9"));
  EXPECT_EQ(admin->routes()->size(), 2u);

  auto ctr = h_.onServer([&] { return h_.server().counters(); });
  EXPECT_EQ(ctr.leases_expired, 1u);
  EXPECT_EQ(ctr.leases_cancelled, 0u);
  EXPECT_EQ(ctr.lease_routes_withdrawn, 2u);  // 198.18.2.0/24 and 2001:2:0:7::/64
  EXPECT_EQ(ctr.lease_neighbours_withdrawn, 1u);
  auto stats = admin->stats();
  ASSERT_TRUE(stats);
  uint64_t reported = 0;
  for (const auto& set : *stats)
    if (set.scope == "control-server")
      for (const auto& [name, value] : set.counters)
        if (name == "lease_routes_withdrawn") reported = value;
  EXPECT_EQ(reported, 2u);
}

TEST_F(ServerTest, OwnerBackWithinTheGracePeriodKeepsItsRoutes) {
  auto observer = connectOk(h_);
  auto a = connectLeased(h_, "ns3-A", 300);
  ASSERT_TRUE(observer && a);
  ASSERT_TRUE(a->addRoute(route("198.18.2.0/24", "198.18.1.2", 1)));
  a.reset();
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  a = connectLeased(h_, "ns3-A", 300);  // the restarted simulation (it replays anyway)
  ASSERT_TRUE(a);
  std::this_thread::sleep_for(std::chrono::milliseconds(600));
  EXPECT_TRUE(hasRoute(*observer, "198.18.2.0/24"));
  auto ctr = h_.onServer([&] { return h_.server().counters(); });
  EXPECT_EQ(ctr.leases_cancelled, 1u);
  EXPECT_EQ(ctr.leases_expired, 0u);

  // Its second departure is not forgiven: the lease still covers the route.
  const auto t0 = SteadyClock::now();
  a.reset();
  ASSERT_TRUE(waitGone(*observer, "198.18.2.0/24", t0));
}

TEST_F(ServerTest, ReplaceAllByAnOwnerReplacesItsLeasedSetAndOthersLoseTheirs) {
  auto observer = connectOk(h_);
  auto a = connectLeased(h_, "ns3-A", 200);
  auto bb = connectLeased(h_, "ns3-B", 60000);
  ASSERT_TRUE(observer && a && bb);
  ASSERT_TRUE(bb->addRoute(route("198.18.9.0/24", "198.18.1.2", 1)));
  ASSERT_TRUE(a->addRoute(route("198.18.2.0/24", "198.18.1.2", 1)));
  // A's replace-all: the table (and A's set) is exactly these two; B owns nothing now.
  ASSERT_TRUE(a->replaceAllRoutes(
      {route("198.18.5.0/24", "198.18.1.2", 1), route("198.18.9.0/24", "198.18.1.3", 1)}));
  ASSERT_TRUE(observer->addRoute(route("198.18.6.0/24", "", 2)));
  EXPECT_EQ(h_.onServer([&] { return h_.server().counters().leases_expired; }), 0u);
  const auto t0 = SteadyClock::now();
  a.reset();
  ASSERT_TRUE(waitGone(*observer, "198.18.5.0/24", t0));
  EXPECT_FALSE(hasRoute(*observer, "198.18.9.0/24"));
  EXPECT_TRUE(hasRoute(*observer, "198.18.6.0/24"));
  EXPECT_EQ(h_.onServer([&] { return h_.server().counters().lease_routes_withdrawn; }), 2u);
}

TEST_F(ServerTest, GracePeriodWithoutNodeNameIsRefused) {
  ClientOptions o;
  o.node_name = "";
  o.route_grace_period_ms = 100;
  auto c = Client::connect(h_.socketPath(), o);
  ASSERT_FALSE(c);
  EXPECT_NE(c.error().message.find("hello.route_grace_period_ms"), std::string::npos)
      << c.error().message;
}

}  // namespace
}  // namespace fastpath::ctrl
