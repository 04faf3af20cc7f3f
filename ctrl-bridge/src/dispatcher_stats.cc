// SPDX-License-Identifier: GPL-2.0-only
// ResetStats (protocol 1.14): zeroing the daemon's histograms and maxima, for operators,
// like every request that changes the daemon rather than one node's tables.
#include "dispatcher.h"

#include "fastpath/log.h"

namespace fastpath::ctrl {

void Dispatcher::resetStats(Session& s, const v1::Request& req, Outcome& o) {
  const uint64_t id = req.id();
  if (!s.may_change_topology)
    return setOperatorNeeded(o, id, "reset_stats", "resetting the statistics", s.uid);
  auto epoch = topology_.resetStats();
  if (!epoch) return setBackendError(o, id, "reset_stats", epoch.error());
  auto* r = o.message.mutable_reply()->mutable_stats_reset();
  r->set_histograms_since_unix_ns(epoch->since_unix_ns);
  r->set_histogram_resets(epoch->resets);
  r->set_workers(epoch->workers);
  pr_info("ctrl: %s reset the histograms and maxima (%u workers)", s.who.c_str(),
          epoch->workers);
}

}  // namespace fastpath::ctrl
