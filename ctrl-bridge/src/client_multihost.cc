// SPDX-License-Identifier: GPL-2.0-only
// The Client calls for a run over several hosts (protocol 1.7; VXLAN wires 1.11): what goes into each
// request and what comes out of its reply.
#include <cerrno>

#include "client_connection.h"
#include "wire_multihost.h"

namespace fastpath::ctrl {

Result<MultiHostInfo> Client::declareMultiHost(const MultiHostDeclaration& declaration) {
  if (auto st = requireWireVxlan(serverInfo(), declaration); !st) return st.error();
  return impl_->query(
      *this, {kMultiHost, "multi_host_declare"},
      [&](v1::Request& q) { toWire(declaration, q.mutable_multi_host_declare()); },
      [](const v1::Reply& r) -> Result<MultiHostInfo> { return multiHostFromReply(r.multi_host()); });
}

Result<CrossLinkInfo> Client::createCrossLink(const CrossLinkSpec& spec) {
  return impl_->query(
      *this, {kMultiHost, "multi_host_create_link"},
      [&](v1::Request& q) { toWire(spec, q.mutable_multi_host_create_link()); },
      [](const v1::Reply& r) -> Result<CrossLinkInfo> {
        auto info = multiHostFromReply(r.multi_host());
        if (info.links.size() != 1)
          return makeError(-EPROTO, "multi_host_create_link: the reply has no link");
        return info.links[0];
      });
}

Status Client::deleteCrossLink(const std::string& name) {
  return impl_->command(*this, {kMultiHost, "multi_host_delete_link"}, [&](v1::Request& q) {
    q.mutable_multi_host_delete_link()->set_name(name);
  });
}

Result<MultiHostInfo> Client::multiHost() {
  return impl_->query(
      *this, {kMultiHost, "get_multi_host"}, [](v1::Request& q) { q.mutable_get_multi_host(); },
      [](const v1::Reply& r) -> Result<MultiHostInfo> { return multiHostFromReply(r.multi_host()); });
}

}  // namespace fastpath::ctrl
