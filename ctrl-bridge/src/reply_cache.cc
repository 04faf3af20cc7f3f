// SPDX-License-Identifier: GPL-2.0-only
// At-most-once replies per session and connection (reply_cache.h).
#include "reply_cache.h"

#include <algorithm>

namespace fastpath::ctrl {

bool changesState(const v1::Request& req) {
  switch (req.body_case()) {
    case v1::Request::kApplyRoutes:
      // A chunk before the last only fills the connection's open transaction, which a
      // disconnect discards: the resend must carry it out again.
      return req.apply_routes().transaction_id() == 0 || req.apply_routes().final_chunk();
    case v1::Request::kAddNeighbour:
    case v1::Request::kDeleteNeighbour:
    case v1::Request::kSetControlRules:
    case v1::Request::kCreateNode:
    case v1::Request::kDeleteNode:
    case v1::Request::kCreateLink:
    case v1::Request::kDeleteLink:
    case v1::Request::kSetLinkState:
    case v1::Request::kSetLinkParams:
    case v1::Request::kCreateSegment:
    case v1::Request::kDeleteSegment:
    case v1::Request::kSetSegmentState:
    case v1::Request::kSetSegmentParams:
    case v1::Request::kAttachInterface:
    case v1::Request::kDetachInterface:
    case v1::Request::kCreateHost:
    case v1::Request::kDeleteHost:
    case v1::Request::kCreateMedium:
    case v1::Request::kDeleteMedium:
    case v1::Request::kUpdateMedium:
    case v1::Request::kMultiHostDeclare:
    case v1::Request::kMultiHostCreateLink:
    case v1::Request::kMultiHostDeleteLink:
    case v1::Request::kCreateBridge:
    case v1::Request::kDeleteBridge:
    case v1::Request::kResetStats: return true;
    default: return false;
  }
}

void ReplyCache::remember(const Key& key, uint64_t conn, uint64_t id,
                          const v1::ServerMessage& reply) {
  auto found = sessions_.find(key);
  if (found == sessions_.end()) {
    if (sessions_.size() >= limits_.sessions) evictOneSession();
    found = sessions_.emplace(key, std::vector<Slot>{}).first;
  }
  auto& slots = found->second;
  auto it = std::find_if(slots.begin(), slots.end(), [&](const Slot& s) { return s.conn == conn; });
  if (it == slots.end()) {
    if (slots.size() >= std::max<std::size_t>(1, limits_.connections_per_session)) {
      // The oldest closed connection's reply goes; with every slot live, the oldest slot.
      auto victim = slots.begin();
      for (auto s = slots.begin(); s != slots.end(); ++s)
        if (!s->open && (victim->open || s->closed_at < victim->closed_at)) victim = s;
      slots.erase(victim);
    }
    slots.push_back(Slot{conn, 0, {}, true, {}});
    it = std::prev(slots.end());
  }
  it->id = id;
  it->reply = reply;
}

void ReplyCache::closed(const Key& key, uint64_t conn, Clock::time_point now) {
  expire(now);
  auto found = sessions_.find(key);
  if (found == sessions_.end()) return;
  for (auto& s : found->second)
    if (s.conn == conn && s.open) {
      s.open = false;
      s.closed_at = now;
    }
}

const v1::ServerMessage* ReplyCache::find(const Key& key, uint64_t conn, uint64_t id) const {
  auto found = sessions_.find(key);
  if (found == sessions_.end()) return nullptr;
  for (const auto& s : found->second)
    if (s.conn != conn && s.id == id) return &s.reply;
  return nullptr;
}

void ReplyCache::expire(Clock::time_point now) {
  for (auto it = sessions_.begin(); it != sessions_.end();) {
    auto& slots = it->second;
    slots.erase(std::remove_if(slots.begin(), slots.end(),
                               [&](const Slot& s) {
                                 return !s.open && now - s.closed_at >= limits_.retain;
                               }),
                slots.end());
    it = slots.empty() ? sessions_.erase(it) : std::next(it);
  }
}

void ReplyCache::evictOneSession() {
  auto victim = sessions_.end();
  Clock::time_point victim_newest{};
  for (auto it = sessions_.begin(); it != sessions_.end(); ++it) {
    bool live = false;
    Clock::time_point newest{};
    for (const auto& s : it->second) {
      live |= s.open;
      newest = std::max(newest, s.closed_at);
    }
    if (live) continue;
    if (victim == sessions_.end() || newest < victim_newest) {
      victim = it;
      victim_newest = newest;
    }
  }
  // Every session has a live connection: the server's connection limit bounds them.
  if (victim != sessions_.end()) sessions_.erase(victim);
}

}  // namespace fastpath::ctrl
