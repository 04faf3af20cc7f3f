// SPDX-License-Identifier: GPL-2.0-only
// libFuzzer target: bytes from a client -> frame decoding -> request dispatch (validation,
// translation) -> apply on a real FibManager (TableBackend). Checks, beyond "no crash
// and no ASan report": exactly one reply per request carrying its id, and a rejected
// route transaction leaves the table exactly as it was (all-or-nothing).
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "dispatcher.h"
#include "fastpath/log.h"
#include "framing.h"
#include "table_backend.h"

namespace {

using fastpath::ctrl::Dispatcher;
using fastpath::ctrl::FrameDecoder;
using fastpath::ctrl::Session;
namespace v1 = ::fastpath::v1;

fastpath::ctrl::testing::TableBackend* g_backend;
Dispatcher* g_dispatcher;

bool sameRoutes(const std::vector<fastpath::Route>& a, const std::vector<fastpath::Route>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!(a[i].prefix == b[i].prefix) || a[i].next_hop != b[i].next_hop || a[i].port != b[i].port ||
        a[i].metric != b[i].metric)
      return false;
  return true;
}

void resetTable() {
  // Removing the few routes an input added is much cheaper than a replace-all (which
  // builds a whole new LPM table).
  auto routes = g_backend->routes();
  if (!routes.empty()) {
    fastpath::RouteBatch clear;
    for (const auto& r : routes) clear.remove.push_back(r.prefix);
    if (!g_backend->applyRoutes(clear)) std::abort();
  }
  for (const auto& n : g_backend->neighbours()) (void)g_backend->deleteNeighbour(n.ip, n.port);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  fastpath::setLogLevel(fastpath::LogLevel::kError);
  // Small tables keep each execution cheap; capacity errors are part of what is fuzzed.
  g_backend = new fastpath::ctrl::testing::TableBackend(
      fastpath::ctrl::testing::TableBackend::defaultPorts(3), 1 << 12, 1 << 10);
  fastpath::ctrl::DispatchOptions o;
  o.max_batch_routes = 512;
  o.route_page_size = 64;
  o.node_name = "fuzz";
  g_dispatcher = new Dispatcher(*g_backend, o);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  resetTable();
  Session s;
  // Most inputs start after a successful Hello, so the fuzzer reaches the rest quickly;
  // the first byte's low bit keeps the "no Hello yet" path reachable too.
  if (size > 0 && (data[0] & 1)) {
    v1::Request hello;
    hello.set_id(1);
    hello.mutable_hello()->mutable_version()->set_major(1);
    (void)g_dispatcher->handle(s, hello);
    if (!s.hello) std::abort();
  }
  if (size > 0) {
    ++data;
    --size;
  }
  FrameDecoder dec(64 * 1024);
  dec.append(reinterpret_cast<const char*>(data), size);
  for (int i = 0; i < 64; ++i) {
    v1::Request req;
    if (dec.next(&req) != FrameDecoder::State::kFrame) break;
    std::vector<fastpath::Route> before;
    const bool is_apply = req.body_case() == v1::Request::kApplyRoutes;
    if (is_apply) before = g_backend->routes();
    auto out = g_dispatcher->handle(s, req);
    if (out.fd >= 0) ::close(out.fd);
    if (!out.message.has_reply() || out.message.reply().id() != req.id()) std::abort();
    const bool failed = out.message.reply().has_error();
    if (failed && out.message.reply().error().message().empty()) std::abort();
    if (is_apply && failed && !sameRoutes(before, g_backend->routes())) std::abort();
    std::string wire;
    if (!fastpath::ctrl::encodeFrame(out.message, 16u << 20, &wire)) std::abort();
    if (out.close_after) break;
  }
  g_dispatcher->disconnected(s);
  return 0;
}
