// SPDX-License-Identifier: GPL-2.0-only
// FibManager: user routes, local addresses and neighbours compiled into LPM rules that
// point at next-hop slots; workers read through FibView. Single control thread. The rules
// a prefix gets, and where each part lives: fib_internal.h.
#include <algorithm>
#include <cerrno>
#include <cstring>

#include "table/fib_internal.h"
#include "table/lpm_memory.h"

namespace fastpath {

namespace {
constexpr size_t kSlotsBytes = size_t{kMaxNextHops} * sizeof(const FwdEntry*);
}  // namespace

void FibManager::Impl::SlotsUnmap::operator()(const FwdEntry** p) const {
  detail::unmapTable(p, kSlotsBytes);
}

Result<std::unique_ptr<FibManager>> FibManager::create(size_t max_v4_routes, size_t max_v6_routes,
                                                       EpochDomain* shared_epoch) {
  std::unique_ptr<FibManager> fib(new FibManager());
  if (shared_epoch) {
    fib->epoch_ = shared_epoch;
  } else {
    fib->own_epoch_ = std::make_unique<EpochDomain>();
    fib->epoch_ = fib->own_epoch_.get();
  }
  auto impl = std::make_unique<Impl>(*fib, max_v4_routes, max_v6_routes);
  auto t4 = impl->newLpm4();
  if (!t4.ok()) return makeError(t4.error().code, "fib: " + t4.error().message);
  auto t6 = impl->newLpm6();
  if (!t6.ok()) return makeError(t6.error().code, "fib: " + t6.error().message);
  impl->lpm4 = std::move(t4).value();
  impl->lpm6 = std::move(t6).value();
  // Zero pages until used: slots are handed out lowest first, so a table with n next hops
  // backs about n * 8 bytes (small pages: one used slot must not back 2 MiB).
  impl->slots.reset(
      static_cast<const FwdEntry**>(detail::mapTable(kSlotsBytes, /*huge_pages=*/false)));
  if (!impl->slots)
    return makeError(-ENOMEM, "fib: cannot map " + std::to_string(kSlotsBytes >> 20) +
                                  " MiB for the next-hop slots; raise the memory limit");
  fib->view_.v4_.store(impl->lpm4.get(), std::memory_order_release);
  fib->view_.v6_.store(impl->lpm6.get(), std::memory_order_release);
  fib->view_.nh_ = impl->slots.get();
  fib->impl_ = std::move(impl);
  return fib;
}

FibManager::FibManager() = default;

FibManager::~FibManager() {
  if (!impl_) return;
  for (auto& r : impl_->nh) delete r.entry;
  for (const FwdEntry* e : impl_->retired_entries) delete e;
}

Result<std::unique_ptr<Lpm4>> FibManager::Impl::newLpm4() const {
  return Lpm4::create(LpmConfig{static_cast<uint32_t>(max_v4_routes + kInternalHostRoutes),
                                static_cast<uint32_t>(std::max<size_t>(1024, max_v4_routes / 4))});
}

Result<std::unique_ptr<Lpm6>> FibManager::Impl::newLpm6() const {
  return Lpm6::create(LpmConfig{static_cast<uint32_t>(max_v6_routes + kInternalHostRoutes),
                                static_cast<uint32_t>(std::max<size_t>(4096, max_v6_routes * 4))});
}

// ---------------------------------------------------------------------- LPM rules

std::optional<uint32_t> FibManager::Impl::installed(const PrefixKey& p) const {
  return p.family == Family::kIpv4 ? lpm4->find(__builtin_bswap32(v4(p.bytes)), p.length)
                                   : lpm6->find(p.bytes.data(), p.length);
}

std::optional<NhKey> FibManager::Impl::desired(const PrefixKey& p) const {
  if (p.length == maxLen(p.family) && isLocal(p.prefix().address)) return NhKey{};
  if (auto it = user.find(p); it != user.end()) return keyForRoute(it->second);
  if (auto it = host_routes.find(p); it != host_routes.end())
    return NhKey{NhKind::kAddr, it->second, p.family, p.bytes};
  return std::nullopt;
}

Status FibManager::Impl::lpmAdd(const PrefixKey& p, uint32_t idx) {
  return p.family == Family::kIpv4 ? lpm4->add(__builtin_bswap32(v4(p.bytes)), p.length, idx)
                                   : lpm6->add(p.bytes.data(), p.length, idx);
}

Status FibManager::Impl::lpmRemove(const PrefixKey& p) {
  return p.family == Family::kIpv4 ? lpm4->remove(__builtin_bswap32(v4(p.bytes)), p.length)
                                   : lpm6->remove(p.bytes.data(), p.length);
}

Status FibManager::Impl::refresh(const PrefixKey& p) {
  const auto want = desired(p);
  const auto have = installed(p);
  if (!want) {
    if (!have) return {};
    if (auto st = lpmRemove(p); !st.ok()) return st;
    unref(*have);
    ++counters.route_updates;
    return {};
  }
  auto idx = nhIndex(*want);
  if (!idx)
    return makeError(-ENOSPC, "fib: next-hop table full (" + std::to_string(kMaxNextHops) +
                                  " next hops) adding " + p.prefix().toString());
  if (have && *have == *idx) return {};
  ref(*idx);  // before unref(have): keeps a shared slot alive
  if (auto st = lpmAdd(p, *idx); !st.ok()) {
    unref(*idx);
    return st;
  }
  if (have) unref(*have);
  ++counters.route_updates;
  return {};
}

void FibManager::Impl::userInsert(const Route& r) {
  const PrefixKey k = keyOf(r.prefix);
  auto [it, inserted] = user.insert_or_assign(k, r);
  (void)it;
  if (!inserted) return;
  const int f = k.family == Family::kIpv4 ? 0 : 1;
  ++user_per_len[f][k.length];
  (f == 0 ? user_v4 : user_v6) += 1;
}

void FibManager::Impl::userErase(const PrefixKey& k) {
  if (user.erase(k) == 0) return;
  const int f = k.family == Family::kIpv4 ? 0 : 1;
  --user_per_len[f][k.length];
  (f == 0 ? user_v4 : user_v6) -= 1;
}

// ---------------------------------------------------------------------- FibManager

Status FibManager::setPorts(const std::vector<PortConfig>& ports) {
  Impl& m = *impl_;
  std::map<PortId, PortConfig> next;
  for (size_t i = 0; i < ports.size(); ++i) {
    const PortConfig& p = ports[i];
    const std::string field = "ports[" + std::to_string(i) + "]";
    if (!next.emplace(p.id, p).second)
      return makeError(-EINVAL, field + ".id: port " + std::to_string(p.id) + " listed twice");
    if (p.mac.isZero() || (p.mac.bytes[0] & 1))
      return makeError(-EINVAL, field + ".mac: " + p.mac.toString() +
                                    " is not a unicast MAC; give the interface's address");
    if (p.mtu < 68 || p.mtu > 65535)
      return makeError(-EINVAL, field + ".mtu: " + std::to_string(p.mtu) + " outside 68..65535");
  }
  for (const auto& [k, r] : m.user)
    if (!next.count(r.port))
      return makeError(-EBUSY, "ports: port " + std::to_string(r.port) + " is used by route " +
                                   r.prefix.toString() + "; remove the route first");
  for (const auto& [n, mac] : m.neighbours)
    if (!next.count(n.port))
      return makeError(
          -EBUSY, "ports: port " + std::to_string(n.port) + " has neighbours; delete them first");
  m.ports.swap(next);
  for (uint32_t idx = 0; idx < m.nh.size(); ++idx)
    if (m.nh[idx].entry && m.nh[idx].refs > 0) m.republish(idx);
  ++m.counters.versions_published;
  m.reclaim();
  return {};
}

std::vector<PortConfig> FibManager::ports() const {
  std::vector<PortConfig> out;
  for (const auto& [id, p] : impl_->ports) out.push_back(p);
  return out;
}

Status FibManager::setLocalAddresses(const std::vector<IpAddress>& addresses) {
  Impl& m = *impl_;
  std::set<std::array<uint8_t, 17>> next;
  for (size_t i = 0; i < addresses.size(); ++i) {
    const IpAddress& a = addresses[i];
    if (a.isUnspecified())
      return makeError(-EINVAL, "addresses[" + std::to_string(i) + "]: unspecified address");
    std::array<uint8_t, 17> k;
    k[0] = static_cast<uint8_t>(a.family);
    std::copy(a.bytes.begin(), a.bytes.end(), k.begin() + 1);
    next.insert(k);
  }
  std::set<std::array<uint8_t, 17>> changed;
  std::set_symmetric_difference(m.local.begin(), m.local.end(), next.begin(), next.end(),
                                std::inserter(changed, changed.end()));
  m.local.swap(next);
  for (const auto& k : changed) {
    PrefixKey p;
    p.family = static_cast<Family>(k[0]);
    p.length = static_cast<uint8_t>(maxLen(p.family));
    std::copy(k.begin() + 1, k.end(), p.bytes.begin());
    if (auto st = m.refresh(p); !st.ok()) return st;
  }
  ++m.counters.versions_published;
  m.reclaim();
  return {};
}

std::vector<Route> FibManager::routes() const {
  std::vector<Route> out;
  out.reserve(impl_->user.size());
  for (const auto& [k, r] : impl_->user) out.push_back(r);
  // Stable, readable order for fpctl and tests: family, address, length.
  std::sort(out.begin(), out.end(),
            [](const Route& a, const Route& b) { return keyOf(a.prefix) < keyOf(b.prefix); });
  return out;
}

FibManager::Counters FibManager::counters() const {
  Counters c = impl_->counters;
  c.routes_v4 = impl_->user_v4;
  c.routes_v6 = impl_->user_v6;
  c.next_hops = impl_->nh_index.size();
  c.neighbours = impl_->neighbours.size();
  c.lpm4 = impl_->lpm4->stats();
  c.lpm6 = impl_->lpm6->stats();
  return c;
}

}  // namespace fastpath
