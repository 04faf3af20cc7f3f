// SPDX-License-Identifier: GPL-2.0-only
// A run over several hosts (protocol 1.7): its state for everyone; declaring this host and
// its wires, making and deleting cross-host link ends for operators, like every request
// that changes the daemon's topology.
#include "dispatcher.h"

#include "fastpath/log.h"
#include "wire_multihost.h"
#include "wire_validate.h"

namespace fastpath::ctrl {

void Dispatcher::multiHost(Session& s, const v1::Request& req, Outcome& o) {
  const uint64_t id = req.id();
  v1::Reply* rep = o.message.mutable_reply();
  auto denied = [&](const char* field) {
    setOperatorNeeded(o, id, field, "declaring hosts and making cross-host links", s.uid);
  };
  switch (req.body_case()) {
    case v1::Request::kGetMultiHost:
      toWire(topology_.multiHost(), rep->mutable_multi_host());
      return;
    case v1::Request::kMultiHostDeclare: {
      if (!s.may_change_topology) return denied("multi_host_declare");
      auto d = multiHostDeclarationFromWire(req.multi_host_declare(), "multi_host_declare");
      if (!d) return setError(o, id, d.error());
      auto info = topology_.declareMultiHost(*d);
      if (!info) return setBackendError(o, id, "multi_host_declare", info.error());
      toWire(*info, rep->mutable_multi_host());
      pr_info("ctrl: %s declared host %s with %zu wire(s)", s.who.c_str(), d->host.c_str(),
              d->wires.size());
      return;
    }
    case v1::Request::kMultiHostCreateLink: {
      if (!s.may_change_topology) return denied("multi_host_create_link");
      auto spec = crossLinkSpecFromWire(req.multi_host_create_link(), "multi_host_create_link");
      if (!spec) return setError(o, id, spec.error());
      auto made = topology_.createCrossLink(*spec);
      if (!made) return setBackendError(o, id, "multi_host_create_link", made.error());
      MultiHostInfo one;
      one.host = topology_.multiHost().host;
      one.links.push_back(*made);
      toWire(one, rep->mutable_multi_host());
      pr_info("ctrl: %s created cross-host link %s", s.who.c_str(), spec->name.c_str());
      return;
    }
    case v1::Request::kMultiHostDeleteLink: {
      if (!s.may_change_topology) return denied("multi_host_delete_link");
      const std::string& name = req.multi_host_delete_link().name();
      if (auto st = nameFromWire(name, "multi_host_delete_link.name", "link"); !st)
        return setError(o, id, st.error());
      if (auto st = topology_.deleteCrossLink(name); !st)
        return setBackendError(o, id, "multi_host_delete_link", st.error());
      pr_info("ctrl: %s deleted cross-host link %s", s.who.c_str(), name.c_str());
      return;
    }
    default:
      return;
  }
}

}  // namespace fastpath::ctrl
