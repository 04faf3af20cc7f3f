// SPDX-License-Identifier: GPL-2.0-only
// Bridges (protocol 1.11): listing them for everyone; creating and deleting them for
// operators, like every request that changes the daemon's topology.
#include "dispatcher.h"

#include "fastpath/log.h"
#include "wire_bridge.h"
#include "wire_validate.h"

namespace fastpath::ctrl {

void Dispatcher::bridges(Session& s, const v1::Request& req, Outcome& o) {
  const uint64_t id = req.id();
  v1::Reply* rep = o.message.mutable_reply();
  auto denied = [&](const char* field) {
    setOperatorNeeded(o, id, field, "creating and deleting bridges", s.uid);
  };
  switch (req.body_case()) {
    case v1::Request::kGetBridges: {
      auto* list = rep->mutable_bridges();
      for (const auto& b : topology_.bridges()) toWire(b, list->add_bridges());
      return;
    }
    case v1::Request::kCreateBridge: {
      if (!s.may_change_topology) return denied("create_bridge");
      auto spec = bridgeSpecFromWire(req.create_bridge(), "create_bridge");
      if (!spec) return setError(o, id, spec.error());
      if (auto st = topology_.createBridge(*spec); !st)
        return setBackendError(o, id, "create_bridge", st.error());
      pr_info("ctrl: %s created bridge %s on node %s (%zu ports)", s.who.c_str(),
              spec->name.c_str(), spec->node.c_str(), spec->ports.size());
      return;
    }
    case v1::Request::kDeleteBridge: {
      if (!s.may_change_topology) return denied("delete_bridge");
      const std::string& name = req.delete_bridge().name();
      if (auto st = nameFromWire(name, "delete_bridge.name", "bridge"); !st)
        return setError(o, id, st.error());
      if (auto st = topology_.deleteBridge(name); !st)
        return setBackendError(o, id, "delete_bridge", st.error());
      pr_info("ctrl: %s deleted bridge %s", s.who.c_str(), name.c_str());
      return;
    }
    default: return;
  }
}

}  // namespace fastpath::ctrl
