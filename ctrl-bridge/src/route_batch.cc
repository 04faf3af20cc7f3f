// SPDX-License-Identifier: GPL-2.0-only
#include "route_batch.h"

#include <algorithm>
#include <cstring>

namespace fastpath::ctrl {

BatchBuilder::Key BatchBuilder::keyOf(const IpPrefix& p, std::size_t index) {
  Key k{};
  k.k[0] = static_cast<uint8_t>(p.address.family);
  k.k[1] = p.length;
  std::memcpy(k.k.data() + 2, p.address.bytes.data(), 16);
  k.index = static_cast<uint32_t>(index);
  return k;
}

BatchBuilder::BatchBuilder(PortDirectory ports, std::size_t max_routes, std::string field)
    : ports_(std::move(ports)), max_routes_(max_routes), field_(std::move(field)) {}

WireStatus BatchBuilder::addChunk(const v1::RouteBatch& chunk) {
  if (first_) {
    batch_.replace_all = chunk.replace_all();
    batch_.ignore_missing = chunk.ignore_missing();
    first_ = false;
  }
  std::size_t incoming = static_cast<std::size_t>(chunk.add_size()) + chunk.remove_size();
  if (size() + incoming > max_routes_)
    return wireError(v1::RESOURCE_EXHAUSTED, field_,
                     "batch of " + std::to_string(size() + incoming) +
                         " entries exceeds the limit of " + std::to_string(max_routes_) +
                         "; split it into several transactions");
  if (batch_.replace_all && chunk.remove_size() > 0)
    return wireError(v1::INVALID_ARGUMENT, field_ + ".remove",
                     "must be empty with replace_all (the new table is `add`)");
  batch_.add.reserve(batch_.add.size() + chunk.add_size());
  add_keys_.reserve(add_keys_.size() + chunk.add_size());
  for (int i = 0; i < chunk.add_size(); ++i) {
    std::size_t gi = batch_.add.size();
    auto r = routeFromWire(chunk.add(i), elementField(field_, "add", gi), ports_);
    if (!r) return r.error();
    add_keys_.push_back(keyOf(r->prefix, gi));
    batch_.add.push_back(*r);
  }
  for (int i = 0; i < chunk.remove_size(); ++i) {
    std::size_t gi = batch_.remove.size();
    auto p = prefixFromWire(chunk.remove(i), elementField(field_, "remove", gi));
    if (!p) return p.error();
    remove_keys_.push_back(keyOf(*p, gi));
    batch_.remove.push_back(*p);
  }
  return {};
}

namespace {

template <typename K>
bool keyLess(const K& a, const K& b) {
  int c = std::memcmp(a.k.data(), b.k.data(), a.k.size());
  return c != 0 ? c < 0 : a.index < b.index;
}

template <typename K>
bool keyEq(const K& a, const K& b) {
  return std::memcmp(a.k.data(), b.k.data(), a.k.size()) == 0;
}

}  // namespace

WireResult<RouteBatch> BatchBuilder::finish() {
  if (!batch_.replace_all && batch_.add.empty() && batch_.remove.empty())
    return wireError(v1::INVALID_ARGUMENT, field_,
                     "empty batch (nothing to add or remove; use replace_all to clear the table)");
  // Duplicates: sort by (prefix, index); report the smallest index that repeats an
  // earlier entry, naming that earlier entry.
  std::sort(add_keys_.begin(), add_keys_.end(), keyLess<Key>);
  std::sort(remove_keys_.begin(), remove_keys_.end(), keyLess<Key>);
  auto firstDuplicate = [](const std::vector<Key>& keys, uint32_t* dup, uint32_t* orig) {
    bool found = false;
    for (std::size_t i = 1; i < keys.size(); ++i) {
      if (!keyEq(keys[i], keys[i - 1])) continue;
      std::size_t first = i - 1;
      while (first > 0 && keyEq(keys[first - 1], keys[i])) --first;
      if (!found || keys[i].index < *dup) {
        *dup = keys[i].index;
        *orig = keys[first].index;
        found = true;
      }
    }
    return found;
  };
  uint32_t dup = 0, orig = 0;
  if (firstDuplicate(add_keys_, &dup, &orig))
    return wireError(
        v1::INVALID_ARGUMENT, elementField(field_, "add", dup) + ".prefix",
        batch_.add[dup].prefix.toString() + " duplicates " + elementField(field_, "add", orig));
  if (firstDuplicate(remove_keys_, &dup, &orig))
    return wireError(v1::INVALID_ARGUMENT, elementField(field_, "remove", dup),
                     "duplicate delete of " + batch_.remove[dup].toString() + " (also " +
                         elementField(field_, "remove", orig) + ")");
  // A prefix both added and removed: ambiguous, refuse it.
  std::size_t a = 0, r = 0;
  bool both = false;
  uint32_t ai = 0, ri = 0;
  while (a < add_keys_.size() && r < remove_keys_.size()) {
    int c = std::memcmp(add_keys_[a].k.data(), remove_keys_[r].k.data(), 18);
    if (c < 0) {
      ++a;
    } else if (c > 0) {
      ++r;
    } else {
      if (!both || remove_keys_[r].index < ri) {
        ri = remove_keys_[r].index;
        ai = add_keys_[a].index;
        both = true;
      }
      ++a;
      ++r;
    }
  }
  if (both)
    return wireError(
        v1::INVALID_ARGUMENT, elementField(field_, "remove", ri),
        batch_.remove[ri].toString() + " is also added by " + elementField(field_, "add", ai));
  return std::move(batch_);
}

}  // namespace fastpath::ctrl
