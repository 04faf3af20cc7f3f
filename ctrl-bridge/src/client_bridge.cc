// SPDX-License-Identifier: GPL-2.0-only
// The Client calls for bridges (protocol 1.11). A fastpathd older than 1.11 does not know
// the requests and answers UNIMPLEMENTED: the call then says so naming both versions.
#include "client_connection.h"
#include "fastpath/ctrl/protocol.h"
#include "wire_bridge.h"

namespace fastpath::ctrl {

namespace {

/// -EPROTONOSUPPORT naming both versions for a server older than 1.11 that did not know
/// `call`; any other error as it came.
Error olderServerSays(const Client& c, const char* call, const Error& e) {
  const ServerInfo& info = c.serverInfo();
  if (e.code != -ENOSYS ||
      (info.major == kProtocolMajor && info.minor >= kBridgeMinor) || info.major > kProtocolMajor)
    return e;
  return makeError(-EPROTONOSUPPORT,
                   std::string(call) + ": bridges need protocol " +
                       std::to_string(kProtocolMajor) + "." + std::to_string(kBridgeMinor) +
                       " (this client speaks " + std::to_string(kProtocolMajor) + "." +
                       std::to_string(kProtocolMinor) + "); fastpathd speaks " +
                       std::to_string(info.major) + "." + std::to_string(info.minor) +
                       " and has no bridges (upgrade fastpathd)");
}

}  // namespace

Status Client::createBridge(const BridgeSpec& spec) {
  auto st = impl_->command(*this, {kAnyVersion, "create_bridge"},
                           [&](v1::Request& q) { toWire(spec, q.mutable_create_bridge()); });
  if (!st) return olderServerSays(*this, "create_bridge", st.error());
  return st;
}

Status Client::deleteBridge(const std::string& name) {
  auto st = impl_->command(*this, {kAnyVersion, "delete_bridge"},
                           [&](v1::Request& q) { q.mutable_delete_bridge()->set_name(name); });
  if (!st) return olderServerSays(*this, "delete_bridge", st.error());
  return st;
}

Result<std::vector<BridgeInfo>> Client::bridges() {
  auto r = impl_->query(
      *this, {kAnyVersion, "get_bridges"}, [](v1::Request& q) { q.mutable_get_bridges(); },
      [](const v1::Reply& r) { return decodeAll(r.bridges().bridges(), bridgeFromReply); });
  if (!r) return olderServerSays(*this, "get_bridges", r.error());
  return r;
}

}  // namespace fastpath::ctrl
