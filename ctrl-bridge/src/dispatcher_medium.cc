// SPDX-License-Identifier: GPL-2.0-only
// Radio media (protocol 1.6): listing them for everyone; creating, deleting and updating
// them for operators, like every request that changes the daemon's topology.
#include "dispatcher.h"

#include "fastpath/log.h"
#include "wire_medium.h"
#include "wire_validate.h"

namespace fastpath::ctrl {

void Dispatcher::media(Session& s, const v1::Request& req, Outcome& o) {
  const uint64_t id = req.id();
  v1::Reply* rep = o.message.mutable_reply();
  auto denied = [&](const char* field) {
    setOperatorNeeded(o, id, field, "creating, deleting and updating radio media", s.uid);
  };
  switch (req.body_case()) {
    case v1::Request::kGetMedia: {
      const std::string& name = req.get_media().name();
      if (!name.empty())
        if (auto st = nameFromWire(name, "get_media.name", "medium"); !st)
          return setError(o, id, st.error());
      auto* list = rep->mutable_media();
      for (const auto& m : topology_.media(name)) toWire(m, list->add_media());
      if (!name.empty() && list->media_size() == 0)
        return setError(o, id, v1::NOT_FOUND, "get_media.name",
                        "get_media.name: no medium '" + name + "'");
      return;
    }
    case v1::Request::kCreateMedium: {
      if (!s.may_change_topology) return denied("create_medium");
      auto spec = mediumSpecFromWire(req.create_medium(), "create_medium");
      if (!spec) return setError(o, id, spec.error());
      if (auto st = topology_.createMedium(*spec); !st)
        return setBackendError(o, id, "create_medium", st.error());
      pr_info("ctrl: %s created medium %s (%zu members, %zu pairs)", s.who.c_str(),
              spec->name.c_str(), spec->ports.size(), spec->pairs.size());
      return;
    }
    case v1::Request::kDeleteMedium: {
      if (!s.may_change_topology) return denied("delete_medium");
      const std::string& name = req.delete_medium().name();
      if (auto st = nameFromWire(name, "delete_medium.name", "medium"); !st)
        return setError(o, id, st.error());
      if (auto st = topology_.deleteMedium(name); !st)
        return setBackendError(o, id, "delete_medium", st.error());
      pr_info("ctrl: %s deleted medium %s", s.who.c_str(), name.c_str());
      return;
    }
    case v1::Request::kUpdateMedium: {
      if (!s.may_change_topology) return denied("update_medium");
      auto update = mediumUpdateFromWire(req.update_medium(), "update_medium");
      if (!update) return setError(o, id, update.error());
      // Updates come many times a second while nodes move: no log line for each.
      if (auto st = topology_.updateMedium(req.update_medium().name(), *update); !st)
        return setBackendError(o, id, "update_medium", st.error());
      return;
    }
    default: return;
  }
}

}  // namespace fastpath::ctrl
