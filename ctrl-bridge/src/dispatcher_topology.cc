// SPDX-License-Identifier: GPL-2.0-only
// Nodes, links and segments: listing them for everyone, creating, deleting and changing
// them for operators only.
#include "dispatcher.h"

#include <string>

#include "fastpath/link_params.h"
#include "fastpath/log.h"
#include "wire_encode.h"
#include "wire_validate.h"

namespace fastpath::ctrl {

void Dispatcher::topology(Session& s, const v1::Request& req, Outcome& o) {
  const uint64_t id = req.id();
  v1::Reply* rep = o.message.mutable_reply();
  auto denied = [&](const char* field) {
    setOperatorNeeded(o, id, field,
                      "creating, deleting and changing nodes, links and segments", s.uid);
  };
  switch (req.body_case()) {
    case v1::Request::kGetNodes: {
      auto* list = rep->mutable_nodes();
      for (const auto& n : topology_.nodes()) toWire(n, list->add_nodes());
      return;
    }
    case v1::Request::kGetLinks: {
      auto* list = rep->mutable_links();
      for (const auto& l : topology_.links()) toWire(l, list->add_links());
      return;
    }
    case v1::Request::kCreateNode: {
      if (!s.may_change_topology) return denied("create_node");
      auto spec = nodeSpecFromWire(req.create_node(), "create_node");
      if (!spec) return setError(o, id, spec.error());
      if (auto st = topology_.createNode(*spec); !st)
        return setBackendError(o, id, "create_node", st.error());
      pr_info("ctrl: %s created node %s (host %s)", s.who.c_str(), spec->name.c_str(),
              spec->host.c_str());
      return;
    }
    case v1::Request::kDeleteNode: {
      if (!s.may_change_topology) return denied("delete_node");
      const std::string& name = req.delete_node().name();
      if (auto st = nameFromWire(name, "delete_node.name", "node"); !st)
        return setError(o, id, st.error());
      if (canonicalNode(name) == kDefaultNodeName)
        return setError(o, id, v1::INVALID_ARGUMENT, "delete_node.name",
                        "delete_node.name: the default node cannot be deleted");
      if (auto st = topology_.deleteNode(name); !st)
        return setBackendError(o, id, "delete_node", st.error());
      nodeDeleted(name);
      pr_info("ctrl: %s deleted node %s", s.who.c_str(), name.c_str());
      return;
    }
    case v1::Request::kCreateLink: {
      if (!s.may_change_topology) return denied("create_link");
      auto spec = linkSpecFromWire(req.create_link(), "create_link");
      if (!spec) return setError(o, id, spec.error());
      for (const auto* end : {&spec->a, &spec->b}) {
        const char* field = end == &spec->a ? "create_link.a.node" : "create_link.b.node";
        if (auto be = topology_.node(end->node); !be)
          return setError(o, id, codeForErrno(be.error().code), field,
                          std::string(field) + ": " + be.error().message);
      }
      if (auto st = topology_.createLink(*spec); !st)
        return setBackendError(o, id, "create_link", st.error());
      std::string emulated;
      if (spec->a_to_b.shapes()) emulated += "; a-to-b " + formatLinkParams(spec->a_to_b);
      if (spec->b_to_a.shapes()) emulated += "; b-to-a " + formatLinkParams(spec->b_to_a);
      pr_info("ctrl: %s created link %s (%s:%s - %s:%s, %s%s)", s.who.c_str(), spec->name.c_str(),
              spec->a.node.c_str(), spec->a.port.c_str(), spec->b.node.c_str(),
              spec->b.port.c_str(), spec->up ? "up" : "down", emulated.c_str());
      return;
    }
    case v1::Request::kDeleteLink: {
      if (!s.may_change_topology) return denied("delete_link");
      const std::string& name = req.delete_link().name();
      if (auto st = nameFromWire(name, "delete_link.name", "link"); !st)
        return setError(o, id, st.error());
      if (auto st = topology_.deleteLink(name); !st)
        return setBackendError(o, id, "delete_link", st.error());
      pr_info("ctrl: %s deleted link %s", s.who.c_str(), name.c_str());
      return;
    }
    case v1::Request::kSetLinkState: {
      if (!s.may_change_topology) return denied("set_link_state");
      const auto& r = req.set_link_state();
      if (auto st = nameFromWire(r.name(), "set_link_state.name", "link"); !st)
        return setError(o, id, st.error());
      if (!r.node().empty())
        if (auto st = nameFromWire(r.node(), "set_link_state.node", "node"); !st)
          return setError(o, id, st.error());
      if (auto st = topology_.setLinkState(r.name(), r.up(), r.node()); !st)
        return setBackendError(o, id, "set_link_state", st.error());
      pr_info("ctrl: %s set link %s%s%s %s", s.who.c_str(), r.name().c_str(),
              r.node().empty() ? "" : ": node ", r.node().c_str(), r.up() ? "up" : "down");
      return;
    }
    case v1::Request::kSetLinkParams: {
      if (!s.may_change_topology) return denied("set_link_params");
      const auto& r = req.set_link_params();
      if (auto st = nameFromWire(r.name(), "set_link_params.name", "link"); !st)
        return setError(o, id, st.error());
      auto direction = linkDirectionFromWire(r.direction(), "set_link_params.direction");
      if (!direction) return setError(o, id, direction.error());
      if (!r.has_params())
        return setError(o, id, v1::INVALID_ARGUMENT, "set_link_params.params",
                        "set_link_params.params: not set (send an empty LinkParams for a "
                        "direction that passes frames at once)");
      auto params = linkParamsFromWire(r.params(), "set_link_params.params");
      if (!params) return setError(o, id, params.error());
      // The backend validates again; on any error the link keeps its parameters.
      if (auto st = topology_.setLinkParams(r.name(), *direction, *params); !st)
        return setBackendError(o, id, "set_link_params", st.error());
      const char* dir = *direction == LinkDirection::kAToB   ? " a-to-b"
                        : *direction == LinkDirection::kBToA ? " b-to-a"
                                                             : "";
      pr_info("ctrl: %s set link %s%s %s", s.who.c_str(), r.name().c_str(), dir,
              formatLinkParams(*params).c_str());
      return;
    }
    case v1::Request::kGetSegments: {
      auto* list = rep->mutable_segments();
      for (const auto& seg : topology_.segments()) toWire(seg, list->add_segments());
      return;
    }
    case v1::Request::kCreateSegment: {
      if (!s.may_change_topology) return denied("create_segment");
      auto spec = segmentSpecFromWire(req.create_segment(), "create_segment");
      if (!spec) return setError(o, id, spec.error());
      for (size_t i = 0; i < spec->ports.size(); ++i)
        if (auto be = topology_.node(spec->ports[i].node); !be) {
          const std::string field = "create_segment.ports[" + std::to_string(i) + "].node";
          return setError(o, id, codeForErrno(be.error().code), field,
                          field + ": " + be.error().message);
        }
      if (auto st = topology_.createSegment(*spec); !st)
        return setBackendError(o, id, "create_segment", st.error());
      std::string nodes;
      for (const auto& p : spec->ports) nodes += (nodes.empty() ? "" : ", ") + p.node;
      pr_info("ctrl: %s created segment %s (%s; %s)", s.who.c_str(), spec->name.c_str(),
              nodes.c_str(), formatLinkParams(spec->params).c_str());
      return;
    }
    case v1::Request::kDeleteSegment: {
      if (!s.may_change_topology) return denied("delete_segment");
      const std::string& name = req.delete_segment().name();
      if (auto st = nameFromWire(name, "delete_segment.name", "segment"); !st)
        return setError(o, id, st.error());
      if (auto st = topology_.deleteSegment(name); !st)
        return setBackendError(o, id, "delete_segment", st.error());
      pr_info("ctrl: %s deleted segment %s", s.who.c_str(), name.c_str());
      return;
    }
    case v1::Request::kSetSegmentState: {
      if (!s.may_change_topology) return denied("set_segment_state");
      const auto& r = req.set_segment_state();
      if (auto st = nameFromWire(r.name(), "set_segment_state.name", "segment"); !st)
        return setError(o, id, st.error());
      if (!r.node().empty())
        if (auto st = segmentNodeFromWire(r.name(), r.node(), "set_segment_state.node",
                                          topology_.segments());
            !st)
          return setError(o, id, st.error());
      if (auto st = topology_.setSegmentState(r.name(), r.up(), r.node()); !st)
        return setBackendError(o, id, "set_segment_state", st.error());
      pr_info("ctrl: %s set segment %s%s%s %s", s.who.c_str(), r.name().c_str(),
              r.node().empty() ? "" : ": node ", r.node().c_str(), r.up() ? "up" : "down");
      return;
    }
    case v1::Request::kSetSegmentParams: {
      if (!s.may_change_topology) return denied("set_segment_params");
      const auto& r = req.set_segment_params();
      if (auto st = nameFromWire(r.name(), "set_segment_params.name", "segment"); !st)
        return setError(o, id, st.error());
      if (!r.has_params())
        return setError(o, id, v1::INVALID_ARGUMENT, "set_segment_params.params",
                        "set_segment_params.params: not set (send an empty LinkParams for a "
                        "segment without emulation)");
      auto params = linkParamsFromWire(r.params(), "set_segment_params.params");
      if (!params) return setError(o, id, params.error());
      if (auto st = topology_.setSegmentParams(r.name(), *params); !st)
        return setBackendError(o, id, "set_segment_params", st.error());
      pr_info("ctrl: %s set segment %s %s", s.who.c_str(), r.name().c_str(),
              formatLinkParams(*params).c_str());
      return;
    }
    default: return;
  }
}


}  // namespace fastpath::ctrl
