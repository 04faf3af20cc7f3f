// SPDX-License-Identifier: GPL-2.0-only
#include "worker/lateness_warning.h"

namespace fastpath {

std::string latenessWarning(const LatenessReport& r) {
  const uint64_t on_arrival = r.on_arrival < r.late ? r.on_arrival : r.late;
  const uint64_t in_release = r.late - on_arrival;
  const std::string us = std::to_string(r.warn_ns / 1000) + " us";
  const std::string tail = " (lateness p99 " + std::to_string(r.p99_ns / 1000) + " us, max " +
                           std::to_string(r.max_ns / 1000) + " us; this host's clock offset: " +
                           r.clock + ")";
  const std::string senders =
      std::to_string(on_arrival) + " frame(s) from timed ns-3 clients were already more than " +
      us + " past their arrival time when worker " + std::to_string(r.worker) +
      " took them: the ns-3 process that sent them runs behind real time (its simulator's "
      "lag: FastPathRealtimeLag), not the worker";
  if (!in_release) return senders + " (in the last second)" + tail;
  std::string s = "worker " + std::to_string(r.worker) + " fell behind real time: " +
                  std::to_string(in_release) + " emulated frame(s) it took in time left more than " +
                  us + " after their arrival time in the last second" + tail +
                  "; the link emulation is not faithful — give the worker a CPU of its own "
                  "(--cores) or emulate less";
  if (on_arrival) s += "; besides, " + senders;
  return s;
}

}  // namespace fastpath
