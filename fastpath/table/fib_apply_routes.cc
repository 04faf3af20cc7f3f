// SPDX-License-Identifier: GPL-2.0-only
// FibManager's route batches, all-or-nothing: everything that can be refused (a bad prefix,
// an unknown port, a duplicate, a missing route, no room) is refused before the first
// change, so that applying cannot fail half-way.
#include <cerrno>
#include <set>
#include <unordered_set>

#include "fastpath/log.h"
#include "table/fib_internal.h"

namespace fastpath {

namespace {

// Empty when `p` is a valid prefix; otherwise what is wrong with it, naming `field`.
std::string prefixProblem(const IpPrefix& p, const std::string& field) {
  const unsigned max = maxLen(p.address.family);
  if (p.length > max)
    return field + ": prefix length " + std::to_string(p.length) + " exceeds " +
           std::to_string(max) + " for " + (max == 32 ? "IPv4" : "IPv6");
  if (p.hostBitsSet())
    return field + ": " + p.toString() + " has host bits set (did you mean " +
           p.normalised().toString() + "?)";
  return {};
}

}  // namespace

Status FibManager::applyRoutes(const RouteBatch& batch) {
  Impl& m = *impl_;
  Status st = m.validateBatch(batch);
  if (st.ok() && !batch.replace_all) st = m.checkRoom(batch);
  if (st.ok()) st = batch.replace_all ? m.replaceAll(batch.add) : m.applyIncremental(batch);
  if (!st.ok()) {
    ++m.counters.batches_rejected;
    return st;
  }
  ++m.counters.batches_applied;
  ++m.counters.versions_published;
  m.reclaim();
  return {};
}

Status FibManager::Impl::validateBatch(const RouteBatch& batch) const {
  std::unordered_map<PrefixKey, size_t, PrefixKeyHash> in_add;
  in_add.reserve(batch.add.size());
  size_t new_v4 = 0, new_v6 = 0;
  for (size_t i = 0; i < batch.add.size(); ++i) {
    const Route& r = batch.add[i];
    const std::string f = "add[" + std::to_string(i) + "]";
    if (auto e = prefixProblem(r.prefix, f + ".prefix"); !e.empty()) return makeError(-EINVAL, e);
    if (!ports.count(r.port))
      return makeError(-EINVAL, f + ".port: unknown port " + std::to_string(r.port) +
                                    " (known: " + portList(ports) + ")");
    if (!r.next_hop.isUnspecified() && r.next_hop.family != r.prefix.address.family)
      return makeError(-EINVAL, f + ".next_hop: " + r.next_hop.toString() +
                                    " is not in the family of " + r.prefix.toString());
    if (!r.next_hop.isUnspecified() && isLocal(r.next_hop))
      return makeError(-EINVAL, f + ".next_hop: " + r.next_hop.toString() +
                                    " is one of this node's own addresses");
    auto [it, fresh] = in_add.emplace(keyOf(r.prefix), i);
    if (!fresh)
      return makeError(-EINVAL, f + ".prefix: " + r.prefix.toString() + " duplicates add[" +
                                    std::to_string(it->second) + "]");
    if (batch.replace_all || !user.count(keyOf(r.prefix)))
      (r.prefix.address.family == Family::kIpv4 ? new_v4 : new_v6) += 1;
  }
  if (batch.replace_all && !batch.remove.empty())
    return makeError(-EINVAL,
                     "remove: must be empty with replace_all (add is the whole new table)");
  std::unordered_set<PrefixKey, PrefixKeyHash> in_remove;
  size_t gone_v4 = 0, gone_v6 = 0;
  for (size_t i = 0; i < batch.remove.size(); ++i) {
    const IpPrefix& p = batch.remove[i];
    const std::string f = "remove[" + std::to_string(i) + "]";
    if (auto e = prefixProblem(p, f); !e.empty()) return makeError(-EINVAL, e);
    const PrefixKey k = keyOf(p);
    if (auto a = in_add.find(k); a != in_add.end())
      return makeError(-EINVAL, f + ": " + p.toString() + " is also in add[" +
                                    std::to_string(a->second) +
                                    "]; one batch cannot add and remove a prefix");
    if (!in_remove.insert(k).second)
      return makeError(-EINVAL, f + ": " + p.toString() + " listed twice");
    if (!user.count(k)) {
      if (batch.ignore_missing) continue;
      return makeError(-ENOENT, f + ": no route " + p.toString() + " (set ignore_missing to skip)");
    }
    (p.address.family == Family::kIpv4 ? gone_v4 : gone_v6) += 1;
  }
  const size_t base_v4 = batch.replace_all ? 0 : user_v4 - gone_v4;
  const size_t base_v6 = batch.replace_all ? 0 : user_v6 - gone_v6;
  if (base_v4 + new_v4 > max_v4_routes)
    return makeError(-EINVAL, "add: " + std::to_string(base_v4 + new_v4) +
                                  " IPv4 routes exceed the table size " +
                                  std::to_string(max_v4_routes) + "; raise max_v4_routes");
  if (base_v6 + new_v6 > max_v6_routes)
    return makeError(-EINVAL, "add: " + std::to_string(base_v6 + new_v6) +
                                  " IPv6 routes exceed the table size " +
                                  std::to_string(max_v6_routes) + "; raise max_v6_routes");
  return {};
}

Status FibManager::Impl::checkRoom(const RouteBatch& batch) const {
  std::vector<std::pair<uint32_t, uint8_t>> p4;
  std::vector<std::pair<Lpm6::Address, uint8_t>> p6;
  auto want = [&](const PrefixKey& k) {
    if (k.family == Family::kIpv4)
      p4.emplace_back(__builtin_bswap32(v4(k.bytes)), k.length);
    else
      p6.emplace_back(k.bytes, k.length);
  };
  for (const Route& r : batch.add) want(keyOf(r.prefix));
  for (const auto& [n, mac] : neighbours)
    want(PrefixKey{n.family, static_cast<uint8_t>(maxLen(n.family)), n.ip});
  const LpmStats s4 = lpm4->stats(), s6 = lpm6->stats();
  const uint32_t need4 = lpm4->groupsNeeded(p4), need6 = lpm6->groupsNeeded(p6);
  if (need4 > s4.groups_free || need6 > s6.groups_free)
    return makeError(-EINVAL, "add: the batch may need " + std::to_string(need4) + " IPv4 / " +
                                  std::to_string(need6) + " IPv6 LPM groups but only " +
                                  std::to_string(s4.groups_free) + " / " +
                                  std::to_string(s6.groups_free) +
                                  " are free; split the batch or use replace_all");
  // Next hops the batch may create: its distinct new keys, plus one per neighbour (a host
  // route it may gain).
  std::set<NhKey> fresh_nh;
  for (const Route& r : batch.add) {
    const NhKey k = keyForRoute(r);
    if (!nh_index.count(k)) fresh_nh.insert(k);
  }
  const size_t room = free_nh.size() + (kMaxNextHops - nh.size());
  if (room < fresh_nh.size() + neighbours.size())
    return makeError(-EINVAL, "add: the batch may need " +
                                  std::to_string(fresh_nh.size() + neighbours.size()) +
                                  " new next hops but only " + std::to_string(room) + " of " +
                                  std::to_string(kMaxNextHops) + " are free; split the batch");
  return {};
}

Status FibManager::Impl::applyIncremental(const RouteBatch& batch) {
  std::vector<PrefixKey> changed;
  changed.reserve(batch.add.size() + batch.remove.size());
  for (const IpPrefix& p : batch.remove) {
    const PrefixKey k = keyOf(p);
    if (!user.count(k)) continue;  // ignore_missing
    userErase(k);
    changed.push_back(k);
    if (auto st = refresh(k); !st.ok()) return st;
  }
  for (const Route& r : batch.add) {
    userInsert(r);
    changed.push_back(keyOf(r.prefix));
    if (auto st = refresh(changed.back()); !st.ok()) {
      pr_err("fib: applying a validated batch failed: %s", st.error().message.c_str());
      return st;  // room was checked: not expected
    }
  }
  // Neighbours under a changed prefix may gain or lose their host route.
  if (!neighbours.empty()) return syncHostRoutesIn(changed);
  return {};
}

// Builds complete new LPM tables next to the live ones, then swaps the pointers workers
// read. The live tables are untouched until the swap, so a failure changes nothing.
Status FibManager::Impl::replaceAll(const std::vector<Route>& routes) {
  auto t4 = newLpm4();
  if (!t4.ok()) return t4.error();
  auto t6 = newLpm6();
  if (!t6.ok()) return t6.error();
  std::unique_ptr<Lpm4> old4 = std::move(lpm4);
  std::unique_ptr<Lpm6> old6 = std::move(lpm6);
  auto old_user = std::move(user);
  auto old_host = std::move(host_routes);
  const size_t old_v4 = user_v4, old_v6 = user_v6;
  uint32_t old_per_len[2][129];
  std::memcpy(old_per_len, user_per_len, sizeof old_per_len);

  lpm4 = std::move(t4).value();
  lpm6 = std::move(t6).value();
  user.clear();
  host_routes.clear();
  user_v4 = user_v6 = 0;
  std::memset(user_per_len, 0, sizeof user_per_len);
  user.reserve(routes.size());
  lpm4->reserve(routes.size() + neighbours.size() + local.size());
  lpm6->reserve(std::min<size_t>(routes.size(), max_v6_routes) + neighbours.size());

  auto unrefAll = [this](const Lpm4& a, const Lpm6& b) {
    a.forEachRule([&](uint32_t, uint8_t, uint32_t idx) { unref(idx); });
    b.forEachRule([&](const Lpm6::Address&, uint8_t, uint32_t idx) { unref(idx); });
  };
  Status st;
  for (const Route& r : routes) userInsert(r);
  for (const auto& [k, r] : user) {
    st = refresh(k);
    if (!st.ok()) break;
  }
  if (st.ok()) {
    for (const auto& k : local) {
      PrefixKey p;
      p.family = static_cast<Family>(k[0]);
      p.length = static_cast<uint8_t>(maxLen(p.family));
      std::copy(k.begin() + 1, k.end(), p.bytes.begin());
      st = refresh(p);
      if (!st.ok()) break;
    }
  }
  if (st.ok()) st = syncHostRoutes();
  if (!st.ok()) {
    // Roll back: drop the half-built tables (never published), restore the old state.
    unrefAll(*lpm4, *lpm6);
    lpm4 = std::move(old4);
    lpm6 = std::move(old6);
    user = std::move(old_user);
    host_routes = std::move(old_host);
    user_v4 = old_v4;
    user_v6 = old_v6;
    std::memcpy(user_per_len, old_per_len, sizeof old_per_len);
    return st;
  }
  self.view_.v4_.store(lpm4.get(), std::memory_order_release);
  self.view_.v6_.store(lpm6.get(), std::memory_order_release);
  unrefAll(*old4, *old6);
  retired_lpm4.push_back(std::move(old4));
  retired_lpm6.push_back(std::move(old6));
  return {};
}

}  // namespace fastpath
