// SPDX-License-Identifier: GPL-2.0-only
#include "table_backend.h"

#include "fastpath/monotonic_clock.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace fastpath::ctrl::testing {

std::vector<PortInfo> TableBackend::defaultPorts(unsigned n) {
  std::vector<PortInfo> out;
  for (unsigned i = 0; i < n; ++i) {
    PortInfo p;
    p.id = i;
    p.ifname = "fp" + std::to_string(i);
    p.ifindex = static_cast<int>(100 + i);
    p.mac.bytes = {0x02, 0, 0, 0, 0, static_cast<uint8_t>(i + 1)};
    p.up = true;
    p.xdp_mode = "native";
    p.xsk_mode = "copy";
    out.push_back(p);
  }
  return out;
}

TableBackend::TableBackend(std::vector<PortInfo> ports, size_t max_v4, size_t max_v6)
    : SingleNodeTopology(static_cast<NodeControl&>(*this)),
      ports_(std::move(ports)), fib_(fastpath::testing::createFib(max_v4, max_v6)) {
  epoch_.since_unix_ns = realtimeNowNs();
  if (auto st = pushPorts(); !st)
    throw std::runtime_error("TableBackend: setPorts: " + st.error().message);
}

Status TableBackend::pushPorts() {
  std::vector<PortConfig> cfg;
  for (const auto& p : ports_) cfg.push_back(PortConfig{p.id, p.mac, p.mtu, p.up});
  return fib_->setPorts(cfg);
}

Status TableBackend::addPort(const PortInfo& port) {
  for (const auto& p : ports_)
    if (p.id == port.id) return makeError(-EEXIST, "port id " + std::to_string(port.id) + " taken");
  ports_.push_back(port);
  if (auto st = pushPorts(); !st) {
    ports_.pop_back();
    return st;
  }
  return {};
}

Status TableBackend::removePort(PortId port) {
  RouteBatch withdraw;
  withdraw.ignore_missing = true;
  for (const auto& r : fib_->routes())
    if (r.port == port) withdraw.remove.push_back(r.prefix);
  if (!withdraw.remove.empty())
    if (auto st = fib_->applyRoutes(withdraw); !st) return st;
  for (const auto& n : fib_->neighbours())
    if (n.port == port) (void)fib_->deleteNeighbour(n.ip, n.port);
  auto before = ports_;
  ports_.erase(
      std::remove_if(ports_.begin(), ports_.end(), [&](const PortInfo& p) { return p.id == port; }),
      ports_.end());
  if (auto st = pushPorts(); !st) {
    ports_ = before;
    return st;
  }
  if (auto it = channels_.find(port); it != channels_.end()) {
    ::close(it->second.first);
    ::close(it->second.second);
    channels_.erase(it);
  }
  return {};
}

Status TableBackend::setPortUp(PortId port, bool up) {
  for (auto& p : ports_)
    if (p.id == port) {
      p.up = up;
      return pushPorts();
    }
  return makeError(-ENOENT, "no port " + std::to_string(port));
}

TableBackend::~TableBackend() {
  for (auto& [port, ends] : channels_) {
    ::close(ends.first);
    ::close(ends.second);
  }
}

Status TableBackend::applyRoutes(const RouteBatch& batch) { return fib_->applyRoutes(batch); }
std::vector<Route> TableBackend::routes() const { return fib_->routes(); }
Status TableBackend::addNeighbour(const Neighbour& n) { return fib_->addNeighbour(n); }
Status TableBackend::deleteNeighbour(const IpAddress& ip, PortId port) {
  return fib_->deleteNeighbour(ip, port);
}
std::vector<Neighbour> TableBackend::neighbours() const { return fib_->neighbours(); }

Status TableBackend::setControlRules(const std::vector<ControlRule>& rules) {
  rules_ = rules;
  return {};
}
std::vector<ControlRule> TableBackend::controlRules() const { return rules_; }
std::vector<PortInfo> TableBackend::ports() const { return ports_; }

Result<PortId> TableBackend::portByName(const std::string& ifname) const {
  for (const auto& p : ports_)
    if (p.ifname == ifname) return p.id;
  return makeError(-ENOENT, "no port named '" + ifname + "'");
}

std::vector<CounterSet> TableBackend::stats() const {
  auto c = fib_->counters();
  CounterSet s;
  s.scope = "table";
  s.counters = {{"batches_applied", c.batches_applied},
                {"batches_rejected", c.batches_rejected},
                {"route_updates", c.route_updates},
                {"routes_v4", c.routes_v4},
                {"routes_v6", c.routes_v6},
                {"neighbours", c.neighbours}};
  std::vector<CounterSet> out{s};
  for (const auto& p : ports_) out.push_back(CounterSet{"port " + p.ifname, {{"rx_packets", 0}}});
  return out;
}

Result<StatsEpoch> TableBackend::resetStats() {
  epoch_.since_unix_ns = realtimeNowNs();
  ++epoch_.resets;
  return epoch_;
}

Result<int> TableBackend::controlChannelFd(PortId port) {
  bool known = false;
  for (const auto& p : ports_) known |= p.id == port;
  if (!known) return makeError(-ENOENT, "no port " + std::to_string(port));
  auto it = channels_.find(port);
  if (it == channels_.end()) {
    int sv[2];
    if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
      return makeError(-errno, std::string("socketpair: ") + std::strerror(errno));
    it = channels_.emplace(port, std::make_pair(sv[0], sv[1])).first;
  }
  int fd = ::fcntl(it->second.second, F_DUPFD_CLOEXEC, 0);
  if (fd < 0) return makeError(-errno, std::string("dup: ") + std::strerror(errno));
  return fd;
}

Status TableBackend::setPortParams(PortId port, const LinkParams&) {
  return singleNodeRefusal("emulate the egress of port " + std::to_string(port));
}

void TableBackend::setEventSink(std::function<void(const FastPathEvent&)> sink) {
  sink_ = std::move(sink);
}

void TableBackend::emit(const FastPathEvent& e) {
  if (sink_) sink_(e);
}

int TableBackend::daemonEnd(PortId port) const {
  auto it = channels_.find(port);
  return it == channels_.end() ? -1 : it->second.first;
}

}  // namespace fastpath::ctrl::testing
