// SPDX-License-Identifier: GPL-2.0-only
// The edge between the wire schema (fastpath.v1, protobuf) and fastpath's domain types.
// Everything coming from a client is validated here; errors name the offending field
// ("apply_routes.add[3].prefix.length: 33 > 32 for IPv4"). Internal to ctrl-bridge.
#pragma once

#include <cstddef>
#include <string>
#include <array>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "fastpath/control_backend.h"
#include "fastpath/net_types.h"
#include "fastpath/result.h"
#include "fastpath/v1/fastpath.pb.h"

namespace fastpath::ctrl {

namespace v1 = ::fastpath::v1;

/// A validation failure: the wire error code, the field path and a message that starts
/// with the field path.
struct WireError {
  v1::ErrorCode code = v1::INVALID_ARGUMENT;
  std::string field;
  std::string message;
};


/// Ports known to the backend, snapshotted for one request.
class PortDirectory {
 public:
  PortDirectory() = default;
  explicit PortDirectory(const std::vector<PortInfo>& ports);
  /// Resolves a PortRef; `field` names it in errors.
  bool resolve(const v1::PortRef& ref, const std::string& field, PortId* out,
               WireError* err) const;
  bool hasId(PortId id) const { return ids_.count(id) != 0; }

 private:
  std::unordered_set<PortId> ids_;
  std::unordered_map<std::string, PortId> names_;
};

// ---- validated wire -> domain conversions (server side)
bool addressFromWire(const v1::IpAddress& in, const std::string& field, bool allow_empty,
                     IpAddress* out, WireError* err);
bool prefixFromWire(const v1::Prefix& in, const std::string& field, IpPrefix* out,
                    WireError* err);
bool routeFromWire(const v1::Route& in, const std::string& field, const PortDirectory& ports,
                   Route* out, WireError* err);
bool neighbourFromWire(const v1::Neighbour& in, const std::string& field,
                       const PortDirectory& ports, Neighbour* out, WireError* err);
bool controlRulesFromWire(const v1::SetControlRules& in, const std::string& field,
                          std::vector<ControlRule>* out, WireError* err);
/// Returns the event kinds to deliver (empty input = all).
bool subscriptionFromWire(const v1::Subscribe& in, const std::string& field,
                          std::vector<FastPathEvent::Kind>* out, WireError* err);

/// Accumulates one (possibly chunked) route transaction and validates it as a whole:
/// prefixes, ports, duplicates inside the transaction, size limit, emptiness.
class BatchBuilder {
 public:
  BatchBuilder(PortDirectory ports, std::size_t max_routes, std::string field = "apply_routes");
  /// Validates and appends one chunk. On error the builder must be discarded.
  bool addChunk(const v1::RouteBatch& chunk, WireError* err);
  /// Final checks; moves the batch out.
  bool finish(RouteBatch* out, WireError* err);
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

// ---- domain -> wire (both sides) and lenient wire -> domain (client side, for replies)
void toWire(const IpAddress& in, v1::IpAddress* out);
void toWire(const IpPrefix& in, v1::Prefix* out);
void toWire(const Route& in, v1::Route* out);
void toWire(const Neighbour& in, v1::Neighbour* out);
void toWire(const ControlRule& in, v1::ControlRule* out);
void toWire(const PortInfo& in, v1::Port* out);
void toWire(const CounterSet& in, v1::CounterSet* out);
void toWire(const FastPathEvent& in, v1::Event* out);

IpAddress addressFromReply(const v1::IpAddress& in);
IpPrefix prefixFromReply(const v1::Prefix& in);
Route routeFromReply(const v1::Route& in);
Neighbour neighbourFromReply(const v1::Neighbour& in);
ControlRule controlRuleFromReply(const v1::ControlRule& in);
PortInfo portFromReply(const v1::Port& in);
CounterSet counterSetFromReply(const v1::CounterSet& in);
bool eventFromReply(const v1::Event& in, FastPathEvent* out);

/// Wire error code <-> negative errno used in fastpath::Error.
int errnoForCode(v1::ErrorCode code);
v1::ErrorCode codeForErrno(int negative_errno);

}  // namespace fastpath::ctrl
