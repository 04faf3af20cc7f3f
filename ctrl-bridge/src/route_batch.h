// SPDX-License-Identifier: GPL-2.0-only
// One route transaction from the wire, possibly sent in chunks (RouteBatch.transaction_id),
// validated as a whole before anything is applied: every route and prefix, duplicates
// inside the transaction, its size limit, emptiness. Internal to ctrl-bridge.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fastpath/control_backend.h"
#include "wire_validate.h"

namespace fastpath::ctrl {

class BatchBuilder {
 public:
  BatchBuilder(PortDirectory ports, std::size_t max_routes, std::string field = "apply_routes");
  /// Validates and appends one chunk. On error the builder must be discarded.
  WireStatus addChunk(const v1::RouteBatch& chunk);
  /// Final checks; moves the batch out.
  WireResult<RouteBatch> finish();
  std::size_t size() const { return batch_.add.size() + batch_.remove.size(); }

 private:
  /// Family, length and address bytes of a prefix, then its index in add/remove.
  /// Duplicates are found by sorting these at finish(): no per-entry allocation, which
  /// matters for million-route transactions.
  struct Key {
    std::array<uint8_t, 18> k;
    uint32_t index;
  };
  static Key keyOf(const IpPrefix& p, std::size_t index);
  PortDirectory ports_;
  std::size_t max_routes_;
  std::string field_;
  RouteBatch batch_;
  bool first_ = true;
  std::vector<Key> add_keys_;
  std::vector<Key> remove_keys_;
};

}  // namespace fastpath::ctrl
