// SPDX-License-Identifier: GPL-2.0-only
#include "daemon/link_resources.h"

#include <functional>

namespace fastpath {
namespace {

constexpr uint32_t kLinkQueueFrames = 1024;

}  // namespace

LinkQueue* LinkResources::takeQueue() {
  if (!free_queues_.empty()) {
    LinkQueue* q = free_queues_.back();
    free_queues_.pop_back();
    return q;
  }
  queue_pool_.push_back(std::make_unique<LinkQueue>(kLinkQueueFrames));
  return queue_pool_.back().get();
}

void LinkResources::retireQueues(const std::vector<LinkQueue*>& queues) {
  for (size_t w = 0; w < queues.size(); ++w) {
    queues[w]->retire();
    retired_queues_.push_back({uint32_t(w), queues[w]});
  }
}

void LinkResources::retireShaper(uint32_t w, LinkShaper* sh) {
  sh->retire();
  retired_shapers_.push_back({w, sh});
}

void LinkResources::retireShapers(std::vector<LinkShaper*>& shapers) {
  for (size_t w = 0; w < shapers.size(); ++w) retireShaper(uint32_t(w), shapers[w]);
  shapers.clear();
}

void LinkResources::applyShaping(std::vector<LinkShaper*>& shapers, size_t workers,
                                 const std::string& seed_name, const LinkParams& p,
                                 LinkShaper::Medium medium) {
  if (shapers.empty() && !p.shapes()) return;  // nothing to emulate: frames pass at once
  const uint32_t need = LinkShaper::capacityFor(p);
  for (size_t w = 0; w < workers; ++w) {
    LinkShaper* old = w < shapers.size() ? shapers[w] : nullptr;
    // A shaper switched to FqCoDel is replaced by a successor built here with the
    // discipline's pool and flow table, as one that needs more room is: built by the worker
    // at the link's next frame, they held that frame a millisecond or more past its time.
    const bool fq_switched_on = old && p.aqm == LinkParams::Aqm::kFqCoDel &&
                                old->params().aqm != LinkParams::Aqm::kFqCoDel;
    if (old && old->capacity() >= need && !fq_switched_on) {
      const LinkParams* prev = old->setParams(p);
      epoch_.retire([prev] { delete prev; });
      continue;
    }
    // The stream of each (link direction or port, worker) has its own seed unless one is
    // given.
    const uint64_t seed = std::hash<std::string>{}(seed_name + "/" + std::to_string(w)) | 1;
    auto sh = std::make_unique<LinkShaper>(p, seed, need, medium);
    LinkShaper* raw = sh.get();
    shapers_[raw] = std::move(sh);
    if (old) {
      // More room or FqCoDel needed: the worker moves the old one's frames and state over.
      old->successor = raw;
      retireShaper(uint32_t(w), old);
      shapers[w] = raw;
    } else {
      shapers.push_back(raw);
    }
  }
}

void LinkResources::retiredFor(uint32_t w, LinkPortTable& t) const {
  for (const auto& [rw, q] : retired_queues_)
    if (rw == w) t.retired.push_back(q);
  for (const auto& [rw, sh] : retired_shapers_)
    if (rw == w) t.retired_shapers.push_back(sh);
}

void LinkResources::recycle() {
  // Queues of deleted links the workers have drained are reusable.
  for (auto it = retired_queues_.begin(); it != retired_queues_.end();) {
    LinkQueue* q = it->second;
    if (!q->drained()) {
      ++it;
      continue;
    }
    q->reset();
    free_queues_.push_back(q);
    it = retired_queues_.erase(it);
  }
  // Shapers the workers drained (or moved into their successor) go; the table that named
  // them is retired with this epoch, so free them after the next one.
  for (auto it = retired_shapers_.begin(); it != retired_shapers_.end();) {
    LinkShaper* sh = it->second;
    if (!sh->drained()) {
      ++it;
      continue;
    }
    auto owned = shapers_.find(sh);
    if (owned != shapers_.end()) {
      LinkShaper* raw = owned->second.release();
      shapers_.erase(owned);
      epoch_.retire([raw] { delete raw; });
    }
    it = retired_shapers_.erase(it);
  }
}

void LinkResources::clear() {
  retired_queues_.clear();
  retired_shapers_.clear();
  shapers_.clear();
  free_queues_.clear();
  queue_pool_.clear();
}

}  // namespace fastpath
