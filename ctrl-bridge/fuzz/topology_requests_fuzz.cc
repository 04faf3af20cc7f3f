// SPDX-License-Identifier: GPL-2.0-only
// libFuzzer target: node, link, segment, host and interface requests through the
// dispatcher, as root or as an operator, against a HostsBackend (nodes and links on real
// tables; hosts, attached interfaces, segments and the attach policy in memory: the real
// daemon needs root and interfaces). Beyond "no crash, no leak, no ASan/UBSan report":
// one reply per request, with its id; every refusal a message naming its field; and after
// every request what the operator surfaces promise holds: a host address is unique on its
// node and never the node's own, every link's emulation is in range (seeds included), and
// an attach the policy refuses never happens.
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>
#include <utility>

#include "daemon/attach_policy.h"
#include "dispatcher.h"
#include "fastpath/log.h"
#include "framing.h"
#include "hosts_backend.h"
#include "operator_session.h"

namespace {

namespace v1 = ::fastpath::v1;
using fastpath::ctrl::Dispatcher;
using fastpath::ctrl::FrameDecoder;
using fastpath::ctrl::Session;
using fastpath::ctrl::testing::HostsBackend;
using fastpath::ctrl::testing::MultiNodeBackend;
using fastpath::ctrl::testing::operatorSession;

HostsBackend* g_backend;
Dispatcher* g_dispatcher;

void resetBackend() {
  g_backend->resetExtras();
  if (!g_backend->keepDefaultAndR1()) std::abort();
  (void)g_backend->setControlRules({});
  (void)g_backend->table("r1")->setControlRules({});
}

void checkInvariants() {
  std::set<std::pair<std::string, std::string>> seen;  // (node, address)
  for (const auto& h : g_backend->hosts()) {
    const std::string node = fastpath::ctrl::canonicalNode(h.spec.node);
    for (const auto& a : h.spec.addresses)
      if (!seen.insert({node, a.address.toString()}).second) std::abort();
  }
  for (const auto& l : g_backend->links())
    if (!fastpath::validateLinkParams(l.a_to_b) || !fastpath::validateLinkParams(l.b_to_a))
      std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  fastpath::setLogLevel(fastpath::LogLevel::kError);
  g_backend = new HostsBackend(MultiNodeBackend::defaultPorts(2), /*max_nodes=*/8);
  fastpath::ctrl::DispatchOptions o;
  o.node_name = "fuzz";
  g_dispatcher = new Dispatcher(*g_backend, o);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  resetBackend();
  // First byte: bit 0 root (else an operator, uid 1000), bit 1 --attachable "v*,eth0".
  const bool root = data[0] & 1;
  g_backend->setAttachable(data[0] & 2 ? std::vector<std::string>{"v*", "eth0"}
                                       : std::vector<std::string>{});
  const fastpath::AttachPolicy policy(data[0] & 2 ? std::vector<std::string>{"v*", "eth0"}
                                                  : std::vector<std::string>{},
                                      {});
  ++data;
  --size;
  Session s = operatorSession(*g_dispatcher, root);
  if (!s.hello) std::abort();
  FrameDecoder dec(64 * 1024);
  dec.append(reinterpret_cast<const char*>(data), size);
  for (int i = 0; i < 32; ++i) {
    v1::Request req;
    if (dec.next(&req) != FrameDecoder::State::kFrame) break;
    auto out = g_dispatcher->handle(s, req);
    if (out.fd >= 0) ::close(out.fd);
    if (!out.message.has_reply() || out.message.reply().id() != req.id()) std::abort();
    const auto& rep = out.message.reply();
    if (rep.has_error()) {
      const auto& e = rep.error();
      if (e.message().empty() || e.message().find(e.field()) == std::string::npos) std::abort();
    } else if (req.has_attach_interface()) {
      // Attached: the policy allowed it (hosts' veths are never named "fh-" by inputs
      // that the imagined facts refuse, so the owned list does not matter here).
      fastpath::InterfaceFacts f;
      f.ifname = req.attach_interface().ifname();
      f.loopback = f.ifname == "lo";
      f.bond_member = f.ifname.rfind("bond-m", 0) == 0;
      f.xdp_prog_id = f.ifname.rfind("xdp", 0) == 0 ? 7 : 0;
      f.default_route = f.ifname == "eth0";
      if (f.loopback || f.bond_member || f.xdp_prog_id) std::abort();
      if (f.default_route && !policy.names(f.ifname)) std::abort();
      if (!root && !policy.matches(f.ifname) && f.ifname.rfind("fh-", 0) != 0) std::abort();
    } else if (req.has_create_host()) {
      // Created: none of its addresses is its node's own.
      auto be = g_backend->node(req.create_host().node());
      if (!be) std::abort();
      for (const auto& h : g_backend->hosts())
        if (h.spec.name == req.create_host().name())
          for (const auto& a : h.spec.addresses)
            for (const auto& r : (*be)->controlRules())
              if (r.kind == fastpath::ControlRule::Kind::kLocalAddress && r.address == a.address)
                std::abort();
    }
    checkInvariants();
  }
  g_dispatcher->disconnected(s);
  return 0;
}
