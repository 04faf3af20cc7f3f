// SPDX-License-Identifier: GPL-2.0-only
// fpctl medium: list, show, del — fastpathd's radio media (ad hoc Wi-Fi channels joining
// many nodes): per pair what was configured against what was measured, per member its
// airtime, the share of time it sensed the medium busy, collisions and retries.
#include <cstdio>
#include <string>
#include <vector>

#include "fpctl.h"
#include "json.h"
#include "link_format.h"

namespace fastpath::ctrl::fpctl {
namespace {

const char* kMediumHelp =
    R"(Usage: fpctl medium list [--json]
       fpctl medium show NAME [--json]
       fpctl medium del NAME

  A radio medium is an ad hoc Wi-Fi channel joining nodes of fastpathd (ns-3's
  YansWifiChannel with the ad hoc MAC): each member node has a port; per ordered pair of
  members the power the receiver gets. A frame reaches the members in range, each decides
  as ns-3's PHY does (detection, error rate for its SNR, rate and length, interference);
  unicast is acknowledged and retried; members that sense each other share the air.
  Media come from the topology file (`media:`) or the ns-3 helper (FastPathWifiHelper).

  list   every medium: state, members, pairs, rates
  show   one medium: its rates and rate control (constant, or ARF with its thresholds);
         per member what it sent and received, its airtime, the share of time
         it sensed the medium busy, retries, frames dropped after the last try,
         collisions and late frames; per pair the configured power and SNR, the delivery
         expected of one try of a 1000-byte frame, and what was measured (tries the
         receiver could decode, delivered share, error and collision losses)
  del    deletes a medium and its ports (routes and neighbours through them go too)

  del needs root, the socket's owner (fastpathd --socket-uid) or an allowed uid (exit
  status 4 otherwise); an unknown medium is exit status 1.
)";

double share(uint64_t part, uint64_t whole) { return whole ? double(part) / double(whole) : 0; }

/// The topology file's word for it (media[].phy.rate_control).
const char* rateControlName(RateControl r) { return r == RateControl::kArf ? "arf" : "constant"; }

/// "constant" or "arf (up after 10 successes or 15 tries)": how unicast data picks its rate.
std::string rateControlText(const MediumPhy& phy) {
  if (phy.rate_control != RateControl::kArf) return "constant";
  return "arf (up after " + std::to_string(phy.arf_success_threshold) + " successes or " +
         std::to_string(phy.arf_timer_threshold) + " tries)";
}

void mediumJson(JsonWriter& w, const MediumInfo& m) {
  w.beginObject().key("name").value(m.name).key("up").value(m.up);
  w.key("data_rate_kbps").value(uint64_t(m.phy.data_rate_kbps));
  w.key("basic_rate_kbps").value(uint64_t(m.phy.basic_rate_kbps));
  w.key("rts_threshold").value(uint64_t(m.phy.rts_threshold));
  w.key("rts_rate_kbps").value(uint64_t(m.phy.rtsRate()));
  w.key("cts_rate_kbps").value(uint64_t(m.phy.ctsRate()));
  w.key("ack_rate_kbps").value(uint64_t(m.phy.ackRate()));
  w.key("rate_control").value(rateControlName(m.phy.rate_control));
  w.key("arf_success_threshold").value(uint64_t(m.phy.arf_success_threshold));
  w.key("arf_timer_threshold").value(uint64_t(m.phy.arf_timer_threshold));
  w.key("elapsed_ns").value(m.elapsed_ns).key("updates").value(m.updates);
  w.key("ports").beginArray();
  for (const auto& p : m.ports)
    w.beginObject()
        .key("node").value(p.node)
        .key("port").value(p.port)
        .key("id").value(uint64_t(p.id))
        .key("mac").value(p.mac.toString())
        .key("tx_packets").value(p.tx_packets)
        .key("rx_packets").value(p.rx_packets)
        .key("retries").value(p.retries)
        .key("retry_drops").value(p.retry_drops)
        .key("collisions").value(p.collisions)
        .key("tx_airtime_ns").value(p.tx_airtime_ns)
        .key("busy_ns").value(p.busy_ns)
        .key("busy_share").value(share(p.busy_ns, m.elapsed_ns))
        .key("late_frames").value(p.late_frames)
        .key("lateness_max_ns").value(p.lateness_max_ns)
        .key("expired_drops").value(p.expired_drops)
        .key("acks_lost").value(p.acks_lost)
        .key("duplicates").value(p.duplicates)
        .key("acks_sent").value(p.acks_sent)
        .key("acks_unsent").value(p.acks_unsent)
        .endObject();
  w.endArray().key("pairs").beginArray();
  for (const auto& p : m.pairs)
    w.beginObject()
        .key("from").value(p.from)
        .key("to").value(p.to)
        .key("rx_power_dbm").value(p.rx_power_dbm)
        .key("snr_db").value(p.snr_db)
        .key("expected_delivery").value(p.expected_delivery)
        .key("attempts").value(p.attempts)
        .key("delivered").value(p.delivered)
        .key("measured_delivery").value(share(p.delivered, p.attempts))
        .key("error_drops").value(p.error_drops)
        .key("collision_drops").value(p.collision_drops)
        .endObject();
  w.endArray().endObject();
}

void showText(const MediumInfo& m) {
  std::printf("medium %s: %s, %zu member(s), %zu pair(s), data %.1f Mbit/s, basic %.1f Mbit/s, "
              "rate control %s, %llu update(s)\n",
              m.name.c_str(), m.up ? "up" : "down", m.ports.size(), m.pairs.size(),
              m.phy.data_rate_kbps / 1000.0, m.phy.basic_rate_kbps / 1000.0,
              rateControlText(m.phy).c_str(), (unsigned long long)m.updates);
  std::printf("  %-16s %-12s %-6s %10s %10s %9s %6s %8s %8s %8s %6s %10s %10s\n", "NODE", "PORT",
              "ID", "TX", "RX", "AIRTIME", "BUSY", "RETRIES", "GAVE-UP", "COLLIDED", "LATE",
              "ACKS", "ACK-UNSENT");
  for (const auto& p : m.ports)
    std::printf("  %-16s %-12s %-6u %10llu %10llu %8.3fs %5.1f%% %8llu %8llu %8llu %6llu %10llu "
                "%10llu\n",
                p.node.c_str(), p.port.c_str(), unsigned(p.id), (unsigned long long)p.tx_packets,
                (unsigned long long)p.rx_packets, p.tx_airtime_ns / 1e9,
                100 * share(p.busy_ns, m.elapsed_ns), (unsigned long long)p.retries,
                (unsigned long long)p.retry_drops, (unsigned long long)p.collisions,
                (unsigned long long)p.late_frames, (unsigned long long)p.acks_sent,
                (unsigned long long)p.acks_unsent);
  std::printf("  %-16s %-16s %8s %7s %9s %9s %9s %9s %9s\n", "FROM", "TO", "RX dBm", "SNR dB",
              "EXPECTED", "TRIES", "MEASURED", "ERRORS", "COLLIDED");
  for (const auto& p : m.pairs) {
    char measured[16] = "-";
    if (p.attempts) std::snprintf(measured, sizeof measured, "%.3f", share(p.delivered, p.attempts));
    std::printf("  %-16s %-16s %8.1f %7.1f %9.3f %9llu %9s %9llu %9llu\n", p.from.c_str(),
                p.to.c_str(), p.rx_power_dbm, p.snr_db, p.expected_delivery,
                (unsigned long long)p.attempts, measured, (unsigned long long)p.error_drops,
                (unsigned long long)p.collision_drops);
  }
}

int listOrShow(const Global& g, Session& s, const std::string& cmd,
               const std::vector<std::string>& a) {
  if (int rc = s.connect(false)) return rc;
  auto media = s.client().media(cmd == "show" ? a[0] : "");
  if (!media) return fail(media.error(), true);
  if (g.json) {
    JsonWriter w;
    if (cmd == "show" && !media->empty()) {
      mediumJson(w, media->front());
    } else {
      w.beginArray();
      for (const auto& m : media.value()) mediumJson(w, m);
      w.endArray();
    }
    std::printf("%s\n", w.str().c_str());
    return kExitOk;
  }
  if (cmd == "show") {
    for (const auto& m : media.value()) showText(m);
    return kExitOk;
  }
  std::printf("%-16s %-5s %8s %8s %s\n", "NAME", "STATE", "MEMBERS", "PAIRS", "RATES (kbit/s)");
  for (const auto& m : media.value())
    std::printf("%-16s %-5s %8zu %8zu %u/%u\n", m.name.c_str(), m.up ? "up" : "down",
                m.ports.size(), m.pairs.size(), m.phy.data_rate_kbps, m.phy.basic_rate_kbps);
  return kExitOk;
}

int noAdd(const Global&, Session&, std::vector<std::string>) {
  return usage("medium add: media come from a topology file (media:) or the ns-3 helper",
               kMediumHelp);
}

int noSet(const Global&, Session&, std::vector<std::string>) {
  return usage("medium set: pairs change through the control socket (UpdateMedium)",
               kMediumHelp);
}

}  // namespace

int cmdMedium(const Global& g) {
  return runMediumCommand(g, {"medium", kMediumHelp, listOrShow, noAdd, noSet,
                              &Client::deleteMedium});
}

}  // namespace fastpath::ctrl::fpctl
