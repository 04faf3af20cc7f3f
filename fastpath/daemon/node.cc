// SPDX-License-Identifier: GPL-2.0-only
#include "daemon/node.h"

#include <algorithm>
#include <cerrno>

#include "daemon/daemon.h"

namespace fastpath {

Node::Node(Daemon& daemon, uint32_t id, NodeSpec spec, std::unique_ptr<FibManager> fib)
    : daemon_(daemon), id_(id), spec_(std::move(spec)), fib_(std::move(fib)) {}

bool Node::owns(PortId port) const {
  return std::find(ports_.begin(), ports_.end(), port) != ports_.end();
}

void Node::removePort(PortId port) {
  ports_.erase(std::remove(ports_.begin(), ports_.end(), port), ports_.end());
}

Error Node::named(const Error& e) const {
  // The default node keeps the single-node daemon's messages; any other says whose it is.
  if (spec_.name == kDefaultNodeName) return e;
  return Error{e.code, "node " + spec_.name + ": " + e.message};
}

Status Node::checkPort(PortId port) const {
  if (owns(port)) return {};
  return named(makeError(-ENODEV, "no port " + std::to_string(port) + " in this node"));
}

Status Node::setPortUp(PortId port, bool up) {
  std::vector<PortConfig> ports = fib_->ports();
  for (auto& p : ports)
    if (p.id == port) p.up = up;
  return fib_->setPorts(ports);
}

Status Node::applyRoutes(const RouteBatch& batch) {
  if (auto st = fib_->applyRoutes(batch); !st) return named(st.error());
  return {};
}

std::vector<Route> Node::routes() const { return fib_->routes(); }

Status Node::addNeighbour(const Neighbour& n) {
  if (auto st = fib_->addNeighbour(n); !st) return named(st.error());
  return {};
}

Status Node::deleteNeighbour(const IpAddress& ip, PortId port) {
  if (auto st = fib_->deleteNeighbour(ip, port); !st) return named(st.error());
  return {};
}

std::vector<Neighbour> Node::neighbours() const { return fib_->neighbours(); }

Status Node::setControlRules(const std::vector<ControlRule>& rules) {
  if (auto st = daemon_.applyNodeRules(*this, rules); !st) return named(st.error());
  rules_ = rules;
  return {};
}

std::vector<PortInfo> Node::ports() const {
  std::vector<PortInfo> out;
  for (PortId p : ports_) out.push_back(daemon_.portInfo(p));
  return out;
}

Result<PortId> Node::portByName(const std::string& name) const {
  std::string names;
  for (PortId p : ports_) {
    PortInfo info = daemon_.portInfo(p);
    if (info.ifname == name) return p;
    names += (names.empty() ? "" : ", ") + info.ifname;
  }
  return named(makeError(-ENODEV, "no port named " + name + " (" +
                                      (spec_.name == kDefaultNodeName ? "fastpathd" : "the node") +
                                      " serves: " + (names.empty() ? "none" : names) + ")"));
}

std::vector<CounterSet> Node::stats() const {
  std::vector<CounterSet> out;
  for (PortId p : ports_) out.push_back(daemon_.portCounters(p, daemon_.portInfo(p).ifname));
  auto fc = fib_->counters();
  out.push_back(CounterSet{"fib",
                           {{"routes_v4", fc.routes_v4},
                            {"routes_v6", fc.routes_v6},
                            {"next_hops", fc.next_hops},
                            {"neighbours", fc.neighbours},
                            {"batches_applied", fc.batches_applied},
                            {"batches_rejected", fc.batches_rejected},
                            {"route_updates", fc.route_updates},
                            {"sync_timeouts", fc.sync_timeouts}}});
  if (spec_.name == kDefaultNodeName)
    for (auto& cs : daemon_.daemonCounters()) out.push_back(std::move(cs));
  return out;
}

Result<int> Node::controlChannelFd(PortId port) { return controlChannelFd(port, {}); }

Result<int> Node::controlChannelFd(PortId port, const ControlChannelTiming& timing) {
  if (auto st = checkPort(port); !st) return st.error();
  auto fd = daemon_.portChannelFd(port, timing);
  if (!fd) return named(fd.error());
  return *fd;
}

void Node::releaseControlChannel(PortId port) {
  if (owns(port)) daemon_.releasePortChannel(port);
}

Status Node::setPortParams(PortId port, const LinkParams& params) {
  if (auto st = checkPort(port); !st) return st;
  if (auto st = daemon_.applyPortParams(port, params); !st) return named(st.error());
  return {};
}

}  // namespace fastpath
