// SPDX-License-Identifier: GPL-2.0-only
// What the daemon's links, segments and emulated interface egresses run on: the link
// queues (pooled, recycled) and the shapers (one per worker and direction), and the one
// place that retires them. Retiring is a hand-off: the control thread marks a queue or
// shaper retired and lists it in the next link table of its worker; the worker empties it
// (frames counted, or moved to the shaper's successor) and sets `drained`; after the epoch
// that retired the table, recycle() takes back what was drained.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "link/link_ports.h"
#include "link/link_queue.h"
#include "link/link_shaper.h"
#include "table/epoch.h"

namespace fastpath {

class LinkResources {
 public:
  explicit LinkResources(EpochDomain& epoch) : epoch_(epoch) {}

  /// An empty queue for one worker's side of a link or segment port.
  LinkQueue* takeQueue();
  /// Hands the queues (index = worker) to their workers to drain.
  void retireQueues(const std::vector<LinkQueue*>& queues);
  /// Hands the shapers (index = worker) to their workers to drain, and forgets them.
  void retireShapers(std::vector<LinkShaper*>& shapers);

  /// One shaper per worker (`workers` of them) for `params`: created, updated in place, or
  /// replaced by a larger one (the worker moves the old one's frames and state over).
  /// Nothing while `shapers` is empty and `params` emulates nothing.
  /// `medium`: a link direction or port egress (kPointToPoint), or a segment (kShared).
  void applyShaping(std::vector<LinkShaper*>& shapers, size_t workers,
                    const std::string& seed_name, const LinkParams& params,
                    LinkShaper::Medium medium = LinkShaper::Medium::kPointToPoint);

  /// What worker `w` must drain: listed in each table published for it.
  void retiredFor(uint32_t w, LinkPortTable& table) const;
  /// After the workers switched tables (epoch synchronized): drained queues become free,
  /// drained shapers are freed after the next epoch.
  void recycle();

  size_t queues() const { return queue_pool_.size(); }
  size_t retiredQueues() const { return retired_queues_.size(); }
  size_t shapers() const { return shapers_.size(); }
  size_t retiredShapers() const { return retired_shapers_.size(); }
  /// Everything freed (the workers are gone).
  void clear();

 private:
  void retireShaper(uint32_t w, LinkShaper* sh);

  EpochDomain& epoch_;
  std::vector<std::unique_ptr<LinkQueue>> queue_pool_;
  std::vector<LinkQueue*> free_queues_;
  std::vector<std::pair<uint32_t, LinkQueue*>> retired_queues_;  ///< (worker, queue)
  std::map<LinkShaper*, std::unique_ptr<LinkShaper>> shapers_;   ///< all, owned
  std::vector<std::pair<uint32_t, LinkShaper*>> retired_shapers_;
};

}  // namespace fastpath
