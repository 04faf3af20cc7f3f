// SPDX-License-Identifier: GPL-2.0-only
// The fixture of the nodes tests (protocol 1.3): a MultiNodeBackend (the default node, r1
// with ports r1-eth0/1 ids 10/11, r2 with r2-eth0/1 ids 20/21) behind the real server, and
// the client library; helpers shared by the tests of each request family.
#pragma once

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

inline Neighbour neighbour(const std::string& ip, PortId port, const std::string& mac) {
  return Neighbour{IpAddress::parse(ip).value(), port, MacAddress::parse(mac).value()};
}

inline bool contains(const std::string& haystack, const std::string& needle) {
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

/// The events `c` received, after a round trip.
inline std::vector<FastPathEvent> drain(Client& c, int wait_ms = 300) {
  std::vector<FastPathEvent> out;
  (void)c.ports();  // a round trip: events sent before it have arrived
  for (;;) {
    auto e = c.nextEvent(out.empty() ? wait_ms : 50);
    if (!e || !e.value()) return out;
    out.push_back(*e.value());
  }
}

/// Sends `req` (after a Hello) on a raw connection; returns the reply to it.
inline v1::Reply rawReply(ServerHarness& h, const v1::Request& req) {
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

}  // namespace fastpath::ctrl
