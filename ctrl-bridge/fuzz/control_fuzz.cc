// SPDX-License-Identifier: GPL-2.0-only
// libFuzzer target: bytes from a client -> frame decoding -> request dispatch (validation,
// translation) -> apply on real FibManagers (MultiNodeBackend: the default node and r1,
// each over its own table; inputs may create and delete nodes and links). Checks, beyond
// "no crash and no ASan report": exactly one reply per request carrying its id, a rejected
// route transaction leaves every node's table exactly as it was (all-or-nothing), and a
// request for one node never changes another node's table.
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>

#include <map>
#include <string>
#include <vector>

#include "dispatcher.h"
#include "fastpath/log.h"
#include "framing.h"
#include "multi_node_backend.h"

namespace {

using fastpath::ctrl::Dispatcher;
using fastpath::ctrl::FrameDecoder;
using fastpath::ctrl::Session;
namespace v1 = ::fastpath::v1;

using fastpath::ctrl::testing::MultiNodeBackend;

MultiNodeBackend* g_backend;
Dispatcher* g_dispatcher;

bool sameRoutes(const std::vector<fastpath::Route>& a, const std::vector<fastpath::Route>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!(a[i].prefix == b[i].prefix) || a[i].next_hop != b[i].next_hop || a[i].port != b[i].port ||
        a[i].metric != b[i].metric)
      return false;
  return true;
}

void resetTable(fastpath::ctrl::testing::TableBackend& t) {
  // Removing the few routes an input added is much cheaper than a replace-all (which
  // builds a whole new LPM table).
  auto routes = t.routes();
  if (!routes.empty()) {
    fastpath::RouteBatch clear;
    for (const auto& r : routes) clear.remove.push_back(r.prefix);
    if (!t.applyRoutes(clear)) std::abort();
  }
  for (const auto& n : t.neighbours()) (void)t.deleteNeighbour(n.ip, n.port);
}

/// Back to the default node and r1 (ports r1-eth0/1, ids 10/11), tables empty. What an
/// input created goes; r1 stays (a new node's tables cost more than emptying them).
void resetBackend() {
  if (!g_backend->keepDefaultAndR1()) std::abort();
  if (g_backend->nodes().size() != 2 || !g_backend->links().empty()) std::abort();
  resetTable(*g_backend);
  resetTable(*g_backend->table("r1"));
}

/// Every node's routes, by node.
std::map<std::string, std::vector<fastpath::Route>> allRoutes() {
  std::map<std::string, std::vector<fastpath::Route>> out;
  for (const auto& n : g_backend->nodes()) out[n.name] = g_backend->table(n.name)->routes();
  return out;
}

bool sameTables(const std::map<std::string, std::vector<fastpath::Route>>& a,
                const std::map<std::string, std::vector<fastpath::Route>>& b,
                const std::string& except) {
  for (const auto& [node, routes] : a) {
    if (node == except) continue;
    auto it = b.find(node);
    if (it != b.end() && !sameRoutes(routes, it->second)) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  fastpath::setLogLevel(fastpath::LogLevel::kError);
  // Small tables keep each execution cheap; capacity errors are part of what is fuzzed.
  // (MultiNodeBackend's tables are small: 4096 IPv4 and 1024 IPv6 routes per node.)
  g_backend = new MultiNodeBackend(MultiNodeBackend::defaultPorts(3), /*max_nodes=*/8);
  resetBackend();
  fastpath::ctrl::DispatchOptions o;
  o.max_batch_routes = 512;
  o.route_page_size = 64;
  o.node_name = "fuzz";
  g_dispatcher = new Dispatcher(*g_backend, o);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  resetBackend();
  Session s;
  // Most inputs start after a successful Hello, so the fuzzer reaches the rest quickly;
  // the first byte's low bit keeps the "no Hello yet" path reachable too. Bit 1 binds
  // the connection to r1; bit 2 makes the peer an operator (nodes and links may change).
  if (size > 0 && (data[0] & 1)) {
    v1::Request hello;
    hello.set_id(1);
    hello.mutable_hello()->mutable_version()->set_major(1);
    if (data[0] & 2) hello.mutable_hello()->set_node("r1");
    (void)g_dispatcher->handle(s, hello);
    if (!s.hello) std::abort();
  }
  s.may_change_topology = size > 0 && (data[0] & 4);
  if (size > 0) {
    ++data;
    --size;
  }
  FrameDecoder dec(64 * 1024);
  dec.append(reinterpret_cast<const char*>(data), size);
  for (int i = 0; i < 64; ++i) {
    v1::Request req;
    if (dec.next(&req) != FrameDecoder::State::kFrame) break;
    const bool is_apply = req.body_case() == v1::Request::kApplyRoutes;
    const std::string target =
        req.node().empty() ? s.node : fastpath::ctrl::canonicalNode(req.node());
    std::map<std::string, std::vector<fastpath::Route>> before;
    if (is_apply) before = allRoutes();
    auto out = g_dispatcher->handle(s, req);
    if (out.fd >= 0) ::close(out.fd);
    if (!out.message.has_reply() || out.message.reply().id() != req.id()) std::abort();
    const bool failed = out.message.reply().has_error();
    if (failed && out.message.reply().error().message().empty()) std::abort();
    if (is_apply) {
      const auto after = allRoutes();
      // Nothing changes anywhere when refused; only the target node when applied.
      if (!sameTables(before, after, failed ? std::string() : target)) std::abort();
    }
    std::string wire;
    if (!fastpath::ctrl::encodeFrame(out.message, 16u << 20, &wire)) std::abort();
    if (out.close_after) break;
  }
  g_dispatcher->disconnected(s);
  return 0;
}
