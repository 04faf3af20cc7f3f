// SPDX-License-Identifier: GPL-2.0-only
// Interface ports attached at run time and hosts (protocol 1.5): operators only, like
// every request that changes the daemon's topology.
#include "dispatcher.h"

#include <net/if.h>

#include "fastpath/log.h"
#include "wire_encode.h"
#include "wire_error.h"
#include "wire_validate.h"

namespace fastpath::ctrl {

namespace {

void hostToWire(const HostInfo& h, v1::Host* out) {
  out->set_name(h.spec.name);
  out->set_netns(h.netns);
  out->set_node(h.spec.node);
  out->set_port(h.port);
  out->set_port_id(h.port_id);
  out->set_mac(std::string(reinterpret_cast<const char*>(h.mac.bytes.data()), 6));
  for (const auto& a : h.spec.addresses) {
    auto* w = out->add_addresses();
    toWire(a.address, w->mutable_address());
    w->set_length(a.length);
  }
  for (const auto& g : h.spec.gateways) toWire(g, out->add_gateways());
  out->set_mtu(h.spec.mtu);
}

WireStatus ifnameFromWire(const std::string& name, const std::string& field) {
  bool ok = !name.empty() && name.size() < IFNAMSIZ;
  for (char c : name)
    if (c == '/' || c == ':' || c == ' ' || c == '\0' || static_cast<unsigned char>(c) < 0x21)
      ok = false;
  if (!ok)
    return WireError{v1::INVALID_ARGUMENT, field,
                     field + ": \"" + name + "\" is no interface name (1 to 15 characters, "
                     "no '/', ':' or white space)"};
  return {};
}

}  // namespace

void Dispatcher::hostsAndInterfaces(Session& s, const v1::Request& req, Outcome& o) {
  const uint64_t id = req.id();
  v1::Reply* rep = o.message.mutable_reply();
  auto denied = [&](const char* field) {
    setOperatorNeeded(o, id, field, "attaching interfaces and creating hosts", s.uid);
  };
  switch (req.body_case()) {
    case v1::Request::kGetHosts: {
      auto* list = rep->mutable_hosts();
      for (const auto& h : topology_.hosts()) hostToWire(h, list->add_hosts());
      return;
    }
    case v1::Request::kAttachInterface:
    case v1::Request::kDetachInterface: {
      const bool attach = req.body_case() == v1::Request::kAttachInterface;
      const char* what = attach ? "attach_interface" : "detach_interface";
      if (!s.may_change_topology) return denied(what);
      const std::string& node = attach ? req.attach_interface().node()
                                       : req.detach_interface().node();
      const std::string& ifname = attach ? req.attach_interface().ifname()
                                         : req.detach_interface().ifname();
      if (auto st = nameFromWire(node, std::string(what) + ".node", "node"); !st)
        return setError(o, id, st.error());
      if (auto st = ifnameFromWire(ifname, std::string(what) + ".ifname"); !st)
        return setError(o, id, st.error());
      if (attach) {
        if (auto st = topology_.mayAttachInterface(ifname, s.uid == 0); !st) {
          const std::string field = std::string(what) + ".ifname";
          return setError(o, id, codeForErrno(st.error().code), field,
                          field + ": " + st.error().message);
        }
        auto port = topology_.attachInterface(node, ifname);
        if (!port) return setBackendError(o, id, what, port.error());
        toWire(*port, rep->mutable_attached()->add_ports());
        pr_info("ctrl: %s attached interface %s to node %s (port %u)", s.who.c_str(),
                ifname.c_str(), node.c_str(), port->id);
      } else {
        if (auto st = topology_.detachInterface(node, ifname); !st)
          return setBackendError(o, id, what, st.error());
        pr_info("ctrl: %s detached interface %s from node %s", s.who.c_str(), ifname.c_str(),
                node.c_str());
      }
      return;
    }
    case v1::Request::kCreateHost: {
      if (!s.may_change_topology) return denied("create_host");
      const auto& r = req.create_host();
      if (auto st = nameFromWire(r.node(), "create_host.node", "node"); !st)
        return setError(o, id, st.error());
      auto be = topology_.node(r.node());
      if (!be)
        return setError(o, id, codeForErrno(be.error().code), "create_host.node",
                        "create_host.node: " + be.error().message);
      auto checked = hostSpecFromWire(r, "create_host", topology_.hosts(), (*be)->controlRules());
      if (!checked) return setError(o, id, checked.error());
      const HostSpec& spec = *checked;
      auto h = topology_.createHost(spec);
      if (!h) return setBackendError(o, id, "create_host", h.error());
      hostToWire(*h, rep->mutable_hosts()->add_hosts());
      pr_info("ctrl: %s created host %s (namespace %s, node %s, port %s)", s.who.c_str(),
              spec.name.c_str(), h->netns.c_str(), spec.node.c_str(), h->port.c_str());
      return;
    }
    case v1::Request::kDeleteHost: {
      if (!s.may_change_topology) return denied("delete_host");
      const std::string& name = req.delete_host().name();
      if (auto st = nameFromWire(name, "delete_host.name", "host"); !st)
        return setError(o, id, st.error());
      if (auto st = topology_.deleteHost(name); !st)
        return setBackendError(o, id, "delete_host", st.error());
      pr_info("ctrl: %s deleted host %s", s.who.c_str(), name.c_str());
      return;
    }
    default: return;
  }
}

}  // namespace fastpath::ctrl
