// SPDX-License-Identifier: GPL-2.0-only
#include "multi_node_backend.h"

#include <cerrno>

namespace fastpath::ctrl::testing {

namespace {
// Tables of the nodes a test creates: small, so that a test (or the fuzzer) may make many.
constexpr std::size_t kNodeV4Routes = 1 << 12;
constexpr std::size_t kNodeV6Routes = 1 << 10;
}  // namespace

MultiNodeBackend::MultiNodeBackend(std::vector<PortInfo> default_ports, std::size_t max_nodes)
    : TableBackend(
          [&] {
            for (auto& p : default_ports) p.node = kDefaultNodeName;
            return default_ports;
          }(),
          kNodeV4Routes, kNodeV6Routes),
      max_nodes_(max_nodes) {}

MultiNodeBackend::~MultiNodeBackend() = default;

bool MultiNodeBackend::isDefault(const std::string& name) {
  return name.empty() || name == kDefaultNodeName;
}

std::vector<PortInfo> MultiNodeBackend::interfacePorts(const std::string& prefix, PortId first,
                                                       unsigned n) {
  std::vector<PortInfo> out;
  for (unsigned i = 0; i < n; ++i) {
    PortInfo p;
    p.id = first + i;
    p.ifname = prefix + std::to_string(i);
    p.ifindex = static_cast<int>(200 + first + i);
    p.mac.bytes = {
        0x02, 0x10, 0, 0, static_cast<uint8_t>(first >> 8), static_cast<uint8_t>(first + i)};
    p.up = true;
    p.xdp_mode = "native";
    p.xsk_mode = "copy";
    out.push_back(p);
  }
  return out;
}

TableBackend* MultiNodeBackend::tableOf(const std::string& node) {
  if (isDefault(node)) return this;
  auto it = nodes_.find(node);
  return it == nodes_.end() ? nullptr : it->second.table.get();
}

TableBackend* MultiNodeBackend::table(const std::string& node) { return tableOf(node); }

Result<NodeControl*> MultiNodeBackend::node(const std::string& name) {
  if (TableBackend* t = tableOf(name)) return static_cast<NodeControl*>(t);
  return makeError(-ENOENT, "node \"" + name + "\": no such node");
}

Status MultiNodeBackend::addNode(const std::string& name, std::vector<PortInfo> interface_ports,
                                 const std::string& host) {
  if (auto st = createNode(NodeSpec{name, host}); !st) return st;
  Node& n = nodes_.at(name);
  for (auto& p : interface_ports) {
    p.node = name;
    if (auto st = n.table->addPort(p); !st) return st;
    n.has_interfaces = true;
  }
  return {};
}

Status MultiNodeBackend::createNode(const NodeSpec& spec) {
  if (isDefault(spec.name) || nodes_.count(spec.name))
    return makeError(-EEXIST, "node \"" + spec.name + "\" exists");
  if (nodes_.size() + 1 >= max_nodes_)
    return makeError(-ENOSPC, "node \"" + spec.name + "\": " + std::to_string(max_nodes_) +
                                  " nodes already (the limit)");
  Node n;
  n.info.name = spec.name;
  n.info.host = spec.host.empty() ? "local" : spec.host;
  n.info.id = next_node_id_++;
  n.info.worker = n.info.id % 2;
  n.table = std::make_unique<TableBackend>(std::vector<PortInfo>{}, kNodeV4Routes, kNodeV6Routes);
  nodes_.emplace(spec.name, std::move(n));
  return {};
}

Status MultiNodeBackend::deleteNode(const std::string& name) {
  if (isDefault(name)) return makeError(-EBUSY, "the default node cannot be deleted");
  auto it = nodes_.find(name);
  if (it == nodes_.end()) return makeError(-ENOENT, "node \"" + name + "\": no such node");
  if (it->second.has_interfaces)
    return makeError(-EBUSY, "node \"" + name + "\" still has interface ports");
  std::vector<std::string> gone;
  for (const auto& [lname, l] : links_)
    if (l.a.node == name || l.b.node == name) gone.push_back(lname);
  for (const auto& l : gone) (void)deleteLink(l);
  nodes_.erase(it);
  return {};
}

std::vector<NodeInfo> MultiNodeBackend::nodes() const {
  std::vector<NodeInfo> out;
  NodeInfo d;
  d.name = kDefaultNodeName;
  for (const auto& p : TableBackend::ports()) d.ports.push_back(p.id);
  d.routes = TableBackend::routes().size();
  d.neighbours = TableBackend::neighbours().size();
  out.push_back(d);
  for (const auto& [name, n] : nodes_) {
    NodeInfo i = n.info;
    for (const auto& p : n.table->ports()) i.ports.push_back(p.id);
    i.routes = n.table->routes().size();
    i.neighbours = n.table->neighbours().size();
    out.push_back(i);
  }
  return out;
}

Status MultiNodeBackend::addLinkPort(const std::string& node, const std::string& link,
                                     LinkInfo::End& end) {
  TableBackend* t = tableOf(node);
  if (!t) return makeError(-ENOENT, "node \"" + node + "\": no such node");
  for (const auto& p : t->ports())
    if (p.ifname == end.port)
      return makeError(-EEXIST, "node \"" + node + "\" has a port named '" + end.port + "'");
  PortInfo p;
  p.id = next_port_++;
  p.ifname = end.port;
  if (end.mac.isZero()) {
    uint32_t m = next_mac_++;
    end.mac.bytes = {0x02,
                     0xfe,
                     0,
                     static_cast<uint8_t>(m >> 16),
                     static_cast<uint8_t>(m >> 8),
                     static_cast<uint8_t>(m)};
  }
  p.mac = end.mac;
  p.mtu = end.mtu;
  p.up = true;
  p.node = isDefault(node) ? kDefaultNodeName : node;
  p.link = link;
  if (auto st = t->addPort(p); !st) return st;
  end.id = p.id;
  return {};
}

Status MultiNodeBackend::createLink(const LinkSpec& spec) {
  if (links_.count(spec.name)) return makeError(-EEXIST, "link \"" + spec.name + "\" exists");
  for (const LinkParams* p : {&spec.a_to_b, &spec.b_to_a})
    if (auto st = validateLinkParams(*p); !st)
      return makeError(st.error().code, "link " + spec.name + ": " + st.error().message);
  LinkInfo l;
  l.name = spec.name;
  l.up = spec.up;
  l.a_to_b = spec.a_to_b;
  l.b_to_a = spec.b_to_a;
  l.a = LinkInfo::End{spec.a.node, spec.a.port, 0, spec.a.mac, spec.a.mtu};
  l.b = LinkInfo::End{spec.b.node, spec.b.port, 0, spec.b.mac, spec.b.mtu};
  if (auto st = addLinkPort(l.a.node, l.name, l.a); !st) return st;
  if (auto st = addLinkPort(l.b.node, l.name, l.b); !st) {
    (void)tableOf(l.a.node)->removePort(l.a.id);
    return st;
  }
  if (!l.up) {
    (void)tableOf(l.a.node)->setPortUp(l.a.id, false);
    (void)tableOf(l.b.node)->setPortUp(l.b.id, false);
  }
  links_.emplace(l.name, l);
  return {};
}

Status MultiNodeBackend::deleteLink(const std::string& name) {
  auto it = links_.find(name);
  if (it == links_.end()) return makeError(-ENOENT, "link \"" + name + "\": no such link");
  for (const auto* end : {&it->second.a, &it->second.b})
    if (TableBackend* t = tableOf(end->node)) (void)t->removePort(end->id);
  links_.erase(it);
  return {};
}

void MultiNodeBackend::linkEvents(const LinkInfo& l, bool up) {
  for (const auto* end : {&l.a, &l.b}) {
    FastPathEvent e;
    e.kind = up ? FastPathEvent::Kind::kPortUp : FastPathEvent::Kind::kPortDown;
    e.port = end->id;
    e.node = isDefault(end->node) ? kDefaultNodeName : end->node;
    emit(e);
  }
}

Status MultiNodeBackend::setLinkState(const std::string& name, bool up, const std::string& node) {
  auto it = links_.find(name);
  if (it == links_.end()) return makeError(-ENOENT, "link \"" + name + "\": no such link");
  LinkInfo& l = it->second;
  if (!node.empty()) {  // one end: its own state, its node's event
    for (auto* end : {&l.a, &l.b}) {
      if (end->node != node) continue;
      if (end->down == !up) return {};
      end->down = !up;
      if (!l.up) return {};
      if (auto st = tableOf(end->node)->setPortUp(end->id, up); !st) return st;
      FastPathEvent e;
      e.kind = up ? FastPathEvent::Kind::kPortUp : FastPathEvent::Kind::kPortDown;
      e.port = end->id;
      e.node = isDefault(end->node) ? kDefaultNodeName : end->node;
      emit(e);
      return {};
    }
    return makeError(-ENOENT, "link \"" + name + "\": node " + node + " has no end on it");
  }
  if (l.up == up) return {};
  for (const auto* end : {&l.a, &l.b})
    if (auto st = tableOf(end->node)->setPortUp(end->id, up); !st) return st;
  l.up = up;
  linkEvents(l, up);
  return {};
}

Status MultiNodeBackend::setLinkParams(const std::string& name, LinkDirection direction,
                                       const LinkParams& params) {
  auto it = links_.find(name);
  if (it == links_.end()) return makeError(-ENOENT, "link \"" + name + "\": no such link");
  if (auto st = validateLinkParams(params); !st)
    return makeError(st.error().code, "link " + name + ": " + st.error().message +
                                          "; the link keeps its parameters");
  if (direction != LinkDirection::kBToA) it->second.a_to_b = params;
  if (direction != LinkDirection::kAToB) it->second.b_to_a = params;
  return {};
}

bool MultiNodeBackend::setLinkStats(const std::string& name, const LinkDirectionStats& a_to_b,
                                    const LinkDirectionStats& b_to_a) {
  auto it = links_.find(name);
  if (it == links_.end()) return false;
  it->second.a_to_b_stats = a_to_b;
  it->second.b_to_a_stats = b_to_a;
  return true;
}

std::vector<CounterSet> MultiNodeBackend::stats() const {
  auto out = TableBackend::stats();
  out.insert(out.end(), extra_stats_.begin(), extra_stats_.end());
  return out;
}

std::vector<LinkInfo> MultiNodeBackend::links() const {
  std::vector<LinkInfo> out;
  for (const auto& [name, l] : links_) out.push_back(l);
  return out;
}

void MultiNodeBackend::resetTopology() {
  links_.clear();
  nodes_.clear();
  extra_stats_.clear();
  // Link ports of the default node go with their links.
  std::vector<PortId> link_ports;
  for (const auto& p : TableBackend::ports())
    if (!p.link.empty()) link_ports.push_back(p.id);
  for (PortId p : link_ports) (void)removePort(p);
  next_node_id_ = 1;
  next_port_ = 1000;
  next_mac_ = 1;
}

bool MultiNodeBackend::keepDefaultAndR1() {
  for (const auto& l : links()) (void)deleteLink(l.name);
  for (const auto& n : nodes())
    if (n.name != kDefaultNodeName && n.name != "r1") (void)deleteNode(n.name);
  return table("r1") || addNode("r1", interfacePorts("r1-eth", 10));
}

}  // namespace fastpath::ctrl::testing
