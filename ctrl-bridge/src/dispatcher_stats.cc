// SPDX-License-Identifier: GPL-2.0-only
// ResetStats (protocol 1.14): zeroing the daemon's histograms and maxima, for operators,
// like every request that changes the daemon rather than one node's tables.
#include "dispatcher.h"

#include "fastpath/log.h"

namespace fastpath::ctrl {

void Dispatcher::resetStats(Session& s, const v1::Request& req, Outcome& o) {
  const uint64_t id = req.id();
  if (!s.may_change_topology)
    return setError(o, id, v1::PERMISSION_DENIED, "reset_stats",
                    "reset_stats: resetting the statistics needs an operator (root, the "
                    "socket's owner: fastpathd --socket-uid, an allowed uid, or fastpathd's "
                    "own uid); uid " +
                        std::to_string(s.uid) + " is none of them");
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
