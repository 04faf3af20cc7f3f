// SPDX-License-Identifier: GPL-2.0-only
// STUB (API published early for the AF_XDP worker); implementation follows.
#include <cerrno>

#include "fastpath/fib.h"

namespace fastpath {

struct FibManager::Impl {};

FibManager::FibManager(size_t, size_t) : impl_(std::make_unique<Impl>()) {}
FibManager::~FibManager() = default;
Status FibManager::setPorts(const std::vector<PortConfig>&) { return makeError(-ENOSYS, "fib: stub"); }
std::vector<PortConfig> FibManager::ports() const { return {}; }
Status FibManager::setLocalAddresses(const std::vector<IpAddress>&) { return makeError(-ENOSYS, "fib: stub"); }
Status FibManager::applyRoutes(const RouteBatch&) { return makeError(-ENOSYS, "fib: stub"); }
std::vector<Route> FibManager::routes() const { return {}; }
Status FibManager::addNeighbour(const Neighbour&) { return makeError(-ENOSYS, "fib: stub"); }
Status FibManager::deleteNeighbour(const IpAddress&, PortId) { return makeError(-ENOSYS, "fib: stub"); }
std::vector<Neighbour> FibManager::neighbours() const { return {}; }
FibManager::Counters FibManager::counters() const { return {}; }

}  // namespace fastpath
