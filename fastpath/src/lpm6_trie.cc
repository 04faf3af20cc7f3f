// SPDX-License-Identifier: GPL-2.0-only
// STUB (API published early for the AF_XDP worker); implementation follows.
#include <cerrno>

#include "fastpath/lpm6.h"

namespace fastpath {

Lpm6Trie::Lpm6Trie(const LpmConfig& config) : config_(config) {}
Lpm6Trie::~Lpm6Trie() = default;
size_t Lpm6Trie::RuleKeyHash::operator()(const RuleKey& k) const noexcept { return k.depth; }
Result<std::unique_ptr<Lpm6Trie>> Lpm6Trie::create(const LpmConfig&) {
  return makeError(-ENOSYS, "lpm6: not implemented yet");
}
Status Lpm6Trie::add(const uint8_t*, uint8_t, uint32_t) { return makeError(-ENOSYS, "lpm6: stub"); }
Status Lpm6Trie::remove(const uint8_t*, uint8_t) { return makeError(-ENOSYS, "lpm6: stub"); }
std::optional<uint32_t> Lpm6Trie::find(const uint8_t*, uint8_t) const { return std::nullopt; }
void Lpm6Trie::forEachRule(const std::function<void(const Address&, uint8_t, uint32_t)>&) const {}
void Lpm6Trie::releaseRetired() {}
uint32_t Lpm6Trie::groupsNeeded(const std::vector<std::pair<Address, uint8_t>>&) const { return 0; }
LpmStats Lpm6Trie::stats() const { return {}; }

}  // namespace fastpath
