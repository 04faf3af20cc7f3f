// SPDX-License-Identifier: GPL-2.0-only
// The Client calls of one request each: what goes into the request and what comes out of
// the reply. Sending, waiting, reconnecting and the protocol-version check are
// Client::Impl::query's and command's (client_connection.h).
#include <unistd.h>

#include <cerrno>

#include "client_connection.h"
#include "reply_decode.h"
#include "wire_encode.h"

namespace fastpath::ctrl {

Status Client::addNeighbour(const Neighbour& neighbour, const std::string& node) {
  return impl_->command(*this, {}, [&](v1::Request& q) {
    q.set_node(node);
    toWire(neighbour, q.mutable_add_neighbour());
  });
}

Status Client::deleteNeighbour(const IpAddress& ip, PortId port, const std::string& node) {
  return impl_->command(*this, {}, [&](v1::Request& q) {
    q.set_node(node);
    toWire(ip, q.mutable_delete_neighbour()->mutable_address());
    q.mutable_delete_neighbour()->mutable_port()->set_id(port);
  });
}

Result<std::vector<Neighbour>> Client::neighbours(const std::string& node) {
  return impl_->query(
      *this, {}, [&](v1::Request& q) { q.set_node(node); q.mutable_get_neighbours(); },
      [](const v1::Reply& r) {
        return decodeAll(r.neighbours().neighbours(), neighbourFromReply);
      });
}

Result<std::vector<ControlRule>> Client::controlRules(const std::string& node) {
  return impl_->query(
      *this, {}, [&](v1::Request& q) { q.set_node(node); q.mutable_get_control_rules(); },
      [](const v1::Reply& r) {
        return decodeAll(r.control_rules().rules(), controlRuleFromReply);
      });
}

Status Client::setControlRules(const std::vector<ControlRule>& rules, const std::string& node) {
  return impl_->command(*this, {}, [&](v1::Request& q) {
    q.set_node(node);
    for (const auto& r : rules) toWire(r, q.mutable_set_control_rules()->add_rules());
  });
}

Result<std::vector<PortInfo>> Client::ports(const std::string& node) {
  return impl_->query(
      *this, {}, [&](v1::Request& q) { q.set_node(node); q.mutable_get_ports(); },
      [](const v1::Reply& r) { return decodeAll(r.ports().ports(), portFromReply); });
}

Result<int> Client::openControlChannel(PortId port, const std::string& node,
                                       const ControlChannelTiming& timing) {
  Impl& d = *impl_;
  return d.query(
      *this, {},
      [&](v1::Request& q) {
        for (int f : d.fds) ::close(f);  // strays from earlier (timed-out) requests
        d.fds.clear();
        q.set_node(node);
        auto* open = q.mutable_open_control_channel();
        open->mutable_port()->set_id(port);
        if (timing.timed) {
          open->set_timed(true);
          open->set_lead_ns(timing.lead_ns);
        }
      },
      [&](const v1::Reply& r) -> Result<int> {
        if (d.fds.empty())
          return makeError(-EBADMSG, "fastpathd's control-channel reply carried no descriptor");
        int f = d.fds.front();
        d.fds.pop_front();
        if (timing.timed && !r.control_channel().timed()) {
          ::close(f);
          return makeError(-EPROTONOSUPPORT,
                           "fastpathd did not make the control channel of port " +
                               std::to_string(port) +
                               " timed (it predates protocol 1.8): open it without timing");
        }
        return f;
      });
}

Result<std::vector<CounterSet>> Client::stats(const std::string& node) {
  auto report = statsReport(node);
  if (!report) return report.error();
  return std::move(report->sets);
}

Result<StatsReport> Client::statsReport(const std::string& node) {
  return impl_->query(
      *this, {}, [&](v1::Request& q) { q.set_node(node); q.mutable_get_stats(); },
      [](const v1::Reply& r) -> Result<StatsReport> {
        StatsReport out;
        out.sets = decodeAll(r.stats().sets(), counterSetFromReply);
        out.epoch.since_unix_ns = r.stats().histograms_since_unix_ns();
        out.epoch.resets = r.stats().histogram_resets();
        return out;
      });
}

Result<StatsEpoch> Client::resetStats() {
  return impl_->query(
      *this, {kStatsReset, "reset_stats"}, [](v1::Request& q) { q.mutable_reset_stats(); },
      [](const v1::Reply& r) -> Result<StatsEpoch> {
        StatsEpoch e;
        e.since_unix_ns = r.stats_reset().histograms_since_unix_ns();
        e.resets = r.stats_reset().histogram_resets();
        e.workers = r.stats_reset().workers();
        return e;
      });
}

Status Client::subscribe(const Subscription& what) {
  return impl_->retrying(*this, [&] { return impl_->doSubscribe(what); });
}

// ---- nodes and links ----

Status Client::createNode(const NodeSpec& spec) {
  return impl_->command(*this, {}, [&](v1::Request& q) { toWire(spec, q.mutable_create_node()); });
}

Status Client::deleteNode(const std::string& name) {
  return impl_->command(*this, {},
                        [&](v1::Request& q) { q.mutable_delete_node()->set_name(name); });
}

Result<std::vector<NodeInfo>> Client::nodes() {
  return impl_->query(
      *this, {}, [](v1::Request& q) { q.mutable_get_nodes(); },
      [](const v1::Reply& r) { return decodeAll(r.nodes().nodes(), nodeFromReply); });
}

Status Client::createLink(const LinkSpec& spec) {
  // Only a link with emulation needs 1.4 (an older server would ignore the parameters).
  const bool emulated = !(spec.a_to_b == LinkParams{}) || !(spec.b_to_a == LinkParams{});
  for (const LinkParams* p : {&spec.a_to_b, &spec.b_to_a})
    if (auto st = requireAqm(serverInfo(), "create_link", *p); !st) return st;
  return impl_->command(*this, {emulated ? kLinkEmulation : kAnyVersion, "create_link"},
                        [&](v1::Request& q) { toWire(spec, q.mutable_create_link()); });
}

Status Client::deleteLink(const std::string& name) {
  return impl_->command(*this, {},
                        [&](v1::Request& q) { q.mutable_delete_link()->set_name(name); });
}

Status Client::setLinkState(const std::string& name, bool up, const std::string& node) {
  if (auto st = requireLinkEndState(serverInfo(), node); !st) return st;
  return impl_->command(*this, {}, [&](v1::Request& q) {
    q.mutable_set_link_state()->set_name(name);
    q.mutable_set_link_state()->set_up(up);
    q.mutable_set_link_state()->set_node(node);
  });
}

Status Client::setLinkParams(const std::string& name, LinkDirection direction,
                             const LinkParams& params) {
  if (auto st = requireAqm(serverInfo(), "set_link_params", params); !st) return st;
  return impl_->command(*this, {kLinkEmulation, "set_link_params"}, [&](v1::Request& q) {
    auto* r = q.mutable_set_link_params();
    r->set_name(name);
    r->set_direction(toWire(direction));
    toWire(params, r->mutable_params());
  });
}

Result<std::vector<LinkInfo>> Client::links() {
  return impl_->query(
      *this, {}, [](v1::Request& q) { q.mutable_get_links(); },
      [](const v1::Reply& r) { return decodeAll(r.links().links(), linkFromReply); });
}

// ---- segments ----

Status Client::createSegment(const SegmentSpec& spec) {
  return impl_->command(*this, {kSegments, "create_segment"},
                        [&](v1::Request& q) { toWire(spec, q.mutable_create_segment()); });
}

Status Client::deleteSegment(const std::string& name) {
  return impl_->command(*this, {kSegments, "delete_segment"},
                        [&](v1::Request& q) { q.mutable_delete_segment()->set_name(name); });
}

Status Client::setSegmentState(const std::string& name, bool up, const std::string& node) {
  return impl_->command(*this, {kSegments, "set_segment_state"}, [&](v1::Request& q) {
    auto* r = q.mutable_set_segment_state();
    r->set_name(name);
    r->set_up(up);
    r->set_node(node);
  });
}

Status Client::setSegmentParams(const std::string& name, const LinkParams& params) {
  return impl_->command(*this, {kSegments, "set_segment_params"}, [&](v1::Request& q) {
    q.mutable_set_segment_params()->set_name(name);
    toWire(params, q.mutable_set_segment_params()->mutable_params());
  });
}

Result<std::vector<SegmentInfo>> Client::segments() {
  return impl_->query(
      *this, {kSegments, "get_segments"}, [](v1::Request& q) { q.mutable_get_segments(); },
      [](const v1::Reply& r) { return decodeAll(r.segments().segments(), segmentFromReply); });
}

// ---- interface ports at run time and hosts ----

Result<PortInfo> Client::attachInterface(const std::string& node, const std::string& ifname) {
  return impl_->query(
      *this, {kHosts, "attach_interface"},
      [&](v1::Request& q) {
        q.mutable_attach_interface()->set_node(node);
        q.mutable_attach_interface()->set_ifname(ifname);
      },
      [](const v1::Reply& r) -> Result<PortInfo> {
        if (r.attached().ports_size() != 1)
          return makeError(-EPROTO, "attach_interface: the reply has no port");
        return portFromReply(r.attached().ports(0));
      });
}

Status Client::detachInterface(const std::string& node, const std::string& ifname) {
  return impl_->command(*this, {kHosts, "detach_interface"}, [&](v1::Request& q) {
    q.mutable_detach_interface()->set_node(node);
    q.mutable_detach_interface()->set_ifname(ifname);
  });
}

Result<HostInfo> Client::createHost(const HostSpec& spec) {
  return impl_->query(
      *this, {kHosts, "create_host"},
      [&](v1::Request& q) { toWire(spec, q.mutable_create_host()); },
      [](const v1::Reply& r) -> Result<HostInfo> {
        if (r.hosts().hosts_size() != 1)
          return makeError(-EPROTO, "create_host: the reply has no host");
        return hostFromReply(r.hosts().hosts(0));
      });
}

Status Client::deleteHost(const std::string& name) {
  return impl_->command(*this, {kHosts, "delete_host"},
                        [&](v1::Request& q) { q.mutable_delete_host()->set_name(name); });
}

Result<std::vector<HostInfo>> Client::hosts() {
  return impl_->query(
      *this, {kHosts, "get_hosts"}, [](v1::Request& q) { q.mutable_get_hosts(); },
      [](const v1::Reply& r) { return decodeAll(r.hosts().hosts(), hostFromReply); });
}

}  // namespace fastpath::ctrl
