// SPDX-License-Identifier: GPL-2.0-only
// The client library's connection (Client::Impl): the socket, its framing, the Hello and
// subscribe exchanges, and the one request/reply path every Client call goes through.
// Internal to ctrl-bridge.
#pragma once

#include <deque>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "fastpath/ctrl/client.h"
#include "fastpath/ctrl/protocol.h"
#include "framing.h"
#include "wire_error.h"

namespace fastpath::ctrl {

/// Whether an error means the connection is gone (and a reconnect may help).
bool isConnectionLoss(int code);

/// What a call needs the server to speak beyond protocol 1.0: an older server would ignore
/// the new fields or not know the request, so such a call is refused here with -ENOSYS.
struct Feature {
  uint32_t minor = 0;           ///< protocol 1.minor
  const char* needs = nullptr;  ///< "segments need 1.5", said when the server is older
};
inline constexpr Feature kAnyVersion{};
inline constexpr Feature kLinkEmulation{4, "link emulation needs 1.4"};
inline constexpr Feature kSegments{5, "segments need 1.5"};
inline constexpr Feature kHosts{5, "interfaces attached at run time and hosts need 1.5"};
inline constexpr Feature kRadioMedia{6, "radio media need 1.6"};
inline constexpr Feature kCapture{6, "packet capture needs 1.6"};
inline constexpr Feature kMultiHost{7, "runs over several hosts need 1.7"};
inline constexpr Feature kStatsReset{14, "resetting the statistics needs 1.14"};

/// One call: the feature it needs and its name in the protocol, for the -ENOSYS message.
struct CallInfo {
  Feature feature;
  const char* name = "";
};

/// -ENOSYS naming the call when the server (`info`) is older than `call` needs.
Status requireFeature(const ServerInfo& info, const CallInfo& call);

/// The first protocol minor whose servers know a link direction's queue discipline
/// (LinkParams::aqm).
inline constexpr uint32_t kLinkAqmMinor = 9;
/// -EPROTONOSUPPORT naming both versions when `params` has a queue discipline and the
/// server (`info`) is older than 1.9: it would drop the field unseen and shape the link
/// with a plain drop-tail queue. Not -ENOSYS: a caller that falls back to an unshaped
/// link on a server without link emulation must not lose the queue discipline that way.
/// RED (aqm red) needs 1.12: an older server refuses its unknown kind; refused here first,
/// naming both versions.
Status requireAqm(const ServerInfo& info, const char* call, const LinkParams& params);
/// The first protocol minor whose servers know RED (LinkAqm.AQM_RED).
inline constexpr uint32_t kLinkRedMinor = 12;

/// The first protocol minor whose servers answer a resent request from its first reply
/// (Hello.session_id).
inline constexpr uint32_t kAtMostOnceMinor = 15;

/// The first protocol minor whose servers set one end of a link (SetLinkState.node).
inline constexpr uint32_t kLinkEndStateMinor = 10;
/// -EPROTONOSUPPORT naming both versions when `node` names one end and the server is older
/// than 1.10: it would drop the field unseen and set the whole link.
Status requireLinkEndState(const ServerInfo& info, const std::string& node);

/// The first protocol minor whose servers declare VXLAN wires (MultiHostWire.vxlan).
inline constexpr uint32_t kWireVxlanMinor = 11;
/// FqCoDel as a link's queue discipline (LinkAqm AQM_FQ_CODEL and its fq_ fields).
inline constexpr uint32_t kFqCoDelMinor = 12;
/// -EPROTONOSUPPORT naming both versions when `declaration` has a VXLAN wire and the server
/// is older than 1.11: it would drop the field unseen and make the wire 802.1Q.
Status requireWireVxlan(const ServerInfo& info, const MultiHostDeclaration& declaration);

namespace detail {
template <typename T>
struct AsResult {
  using type = Result<T>;
};
template <typename T>
struct AsResult<Result<T>> {
  using type = Result<T>;
};
}  // namespace detail

/// A list field of a reply, each element decoded with `decode`.
template <typename List, typename Decode>
auto decodeAll(const List& list, Decode decode) {
  std::vector<std::decay_t<decltype(decode(*list.begin()))>> out;
  out.reserve(std::size_t(list.size()));
  for (const auto& e : list) out.push_back(decode(e));
  return out;
}

struct Client::Impl {
  std::string path;
  ClientOptions opt;
  int fd = -1;
  FrameDecoder dec;
  std::deque<int> fds;  // descriptors received via SCM_RIGHTS, in arrival order
  std::deque<FastPathEvent> events;
  std::deque<CaptureBatch> captures;  // batches of captured frames, in arrival order
  uint64_t next_id = 1;
  /// Hello.session_id (1.15): random, the same on every connection; 0 without
  /// auto_reconnect (a client that never resends promises nothing).
  uint64_t session_id = 0;
  /// The ids the call in retrying() sent so far; a retry resends with them, in order, so
  /// that fastpathd can answer what it carried out already instead of doing it again.
  bool in_call = false;
  std::vector<uint64_t> call_ids;
  std::deque<uint64_t> resend_ids;
  uint64_t next_txn = 1;
  ServerInfo info;
  bool subscribed = false;
  Subscription subscription;
  bool in_reconnect = false;

  Impl(std::string p, ClientOptions o);
  ~Impl();

  void closeFd();
  Status connectSocket();
  Status sendRequest(const v1::Request& req);
  /// Reads more bytes (and any passed descriptors), waiting up to `timeout_ms`.
  /// Returns 0 on timeout, 1 when data arrived, or an error.
  Result<int> readMore(int timeout_ms);
  /// Next complete server message; waits up to timeout_ms (<0 forever). Empty = timeout.
  Result<std::optional<v1::ServerMessage>> readMessage(int timeout_ms);
  void bufferEvent(const v1::Event& e);
  void bufferCapture(v1::CaptureFrames& w);  // client_capture.cc
  /// One request, one reply; events that arrive meanwhile are buffered.
  Result<v1::Reply> callOnce(v1::Request& req);
  Status doHello(const std::string& node_name, const std::string& node);
  Status doSubscribe(const Subscription& what);

  /// The id of the next request: the next one to resend, else a new one.
  uint64_t nextRequestId();

  /// Runs `op`; on connection loss (and auto_reconnect) reconnects and runs it once more,
  /// its requests with the ids they had (a call inside `op` is part of it).
  template <typename F>
  auto retrying(Client& self, F op) -> decltype(op()) {
    if (in_call) return op();
    in_call = true;
    call_ids.clear();
    auto r = op();
    in_call = false;
    if (r.ok() || !opt.auto_reconnect || in_reconnect || !isConnectionLoss(r.error().code))
      return r;
    // The reconnect's own requests (Hello, subscribe, on_reconnect's replay) get new ids.
    std::vector<uint64_t> sent = std::move(call_ids);
    if (auto st = self.reconnect(); !st) return st.error();
    resend_ids.assign(sent.begin(), sent.end());
    in_call = true;
    auto again = op();
    in_call = false;
    resend_ids.clear();
    return again;
  }

  /// The request/reply path of every call with one request: checks the server speaks
  /// what `call` needs, lets `build` fill the request, sends it and hands the reply to
  /// `decode` (which returns the value, or a Result when the reply may be unusable).
  template <typename Build, typename Decode>
  auto query(Client& self, const CallInfo& call, Build build, Decode decode) ->
      typename detail::AsResult<std::invoke_result_t<Decode, const v1::Reply&>>::type {
    using R = typename detail::AsResult<std::invoke_result_t<Decode, const v1::Reply&>>::type;
    return retrying(self, [&]() -> R {
      if (auto st = requireFeature(info, call); !st) return st.error();
      v1::Request req;
      build(req);
      auto rep = callOnce(req);
      if (!rep) return rep.error();
      return decode(rep.value());
    });
  }

  /// query() for a call whose reply carries nothing but success.
  template <typename Build>
  Status command(Client& self, const CallInfo& call, Build build) {
    return retrying(self, [&]() -> Status {
      if (auto st = requireFeature(info, call); !st) return st;
      v1::Request req;
      build(req);
      auto rep = callOnce(req);
      if (!rep) return rep.error();
      return {};
    });
  }
};

}  // namespace fastpath::ctrl
