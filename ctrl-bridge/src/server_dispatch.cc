// SPDX-License-Identifier: GPL-2.0-only
// The control server's requests and events: requests to the dispatcher (with the
// server's own bound on queued descriptors and its counters in get_stats), and backend
// events to the connections subscribed to their node.
#include "server_impl.h"

#include "fastpath/log.h"
#include "wire_encode.h"

namespace fastpath::ctrl {

void ControlServer::Impl::onEvent(const FastPathEvent& e) {
  // Data-plane events only (kEventsDropped is the server's own, per client).
  if (e.kind == FastPathEvent::Kind::kEventsDropped) return;
  v1::ServerMessage m;
  toWire(e, m.mutable_event());
  for (auto& [fd, c] : conns) {
    // Only subscribers of the event's node (or of all nodes) get it.
    if (c->dead || c->closing || !c->session.wants(e)) continue;
    // A client that is not reading gets no more events, only their count later: a
    // flood of route misses must not grow its queue (or the daemon's memory).
    if (c->queued_cost >= opt.max_event_queue_bytes ||
        total_cost >= opt.max_total_send_queue_bytes / 2) {
      ++c->events_dropped;
      ++ctr.events_dropped;
      continue;
    }
    ++ctr.events_sent;
    enqueue(*c, m);
  }
}

void ControlServer::Impl::handle(Conn& c, const v1::Request& req) {
  if (req.body_case() == v1::Request::kOpenControlChannel && c.session.hello &&
      (c.queued_fds >= opt.max_queued_fds_per_client || total_fds >= opt.max_queued_fds)) {
    // Every reply holds a duplicated descriptor until the client reads it: bounded, so
    // that clients can never exhaust the daemon's descriptors.
    ++ctr.refused_fds;
    ++ctr.errors;
    pr_warn_ratelimited(
        "ctrl: %s: %zu control channels queued and not read (%zu in all); "
        "refusing more",
        c.who().c_str(), c.queued_fds, total_fds);
    enqueue(c, Dispatcher::errorMessage(req.id(), v1::RESOURCE_EXHAUSTED, "open_control_channel",
                                        "open_control_channel: " + std::to_string(c.queued_fds) +
                                            " control channels are queued for this connection (" +
                                            std::to_string(total_fds) +
                                            " for all) and not read yet; read the "
                                            "replies first"));
    return;
  }
  auto out = dispatcher.handle(c.session, req);
  if (req.body_case() == v1::Request::kGetStats && !out.message.reply().has_error())
    toWire(serverCounterSet(), out.message.mutable_reply()->mutable_stats()->add_sets());
  const auto& rep = out.message.reply();
  if (rep.has_error())
    pr_debug("ctrl: %s: request %llu: %s", c.who().c_str(),
             static_cast<unsigned long long>(rep.id()), rep.error().message().c_str());
  enqueue(c, out.message, out.fd);
  if (out.close_after && !c.dead) startClosing(c);
}

CounterSet ControlServer::Impl::serverCounterSet() const {
  CounterSet s;
  s.scope = "control-server";
  s.counters = {
      {"clients", conns.size()},
      {"accepted", ctr.accepted},
      {"refused_credentials", ctr.refused_credentials},
      {"refused_too_many", ctr.refused_too_many},
      {"accept_errors", ctr.accept_errors},
      {"closed_no_hello", ctr.closed_no_hello},
      {"closed_stalled", ctr.closed_stalled},
      {"refused_fds", ctr.refused_fds},
      {"events_dropped", ctr.events_dropped},
      {"queued_fds", total_fds},
      {"queued_bytes", total_cost},
      {"requests", dispatcher.counters().requests},
      {"errors", dispatcher.counters().errors + ctr.errors},
      {"malformed_frames", ctr.malformed_frames},
      {"oversize_frames", ctr.oversize_frames},
      {"send_queue_overflows", ctr.send_queue_overflows},
      {"events_sent", ctr.events_sent},
      {"transactions_aborted", dispatcher.counters().transactions_aborted},
      {"requests_replayed", dispatcher.counters().replayed},
      {"leases_expired", dispatcher.leases().counters().expired},
      {"leases_cancelled", dispatcher.leases().counters().cancelled},
      {"lease_routes_withdrawn", dispatcher.leases().counters().routes_withdrawn},
      {"lease_neighbours_withdrawn", dispatcher.leases().counters().neighbours_withdrawn}};
  return s;
}

}  // namespace fastpath::ctrl
