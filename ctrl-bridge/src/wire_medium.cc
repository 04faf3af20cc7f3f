// SPDX-License-Identifier: GPL-2.0-only
// Radio media on the wire: validation of what a client sends, encoding both ways, decoding
// of what a server sends.
#include "wire_medium.h"

#include <cstring>

#include "reply_decode.h"
#include "wire_validate.h"

namespace fastpath::ctrl {

namespace {

/// validateMediumPhy's message starts with the field's name; the wire error adds the path.
WireError phyError(const Error& e, const std::string& field) {
  const std::string& m = e.message;
  const auto colon = m.find(':');
  const std::string sub = colon == std::string::npos ? "" : "." + m.substr(0, colon);
  return WireError{v1::INVALID_ARGUMENT, field + sub, field + "." + m};
}

}  // namespace

WireResult<MediumPhy> mediumPhyFromWire(const v1::MediumPhy& in, const std::string& field) {
  if (in.error_model() != v1::MediumPhy::ERROR_MODEL_NIST &&
      in.error_model() != v1::MediumPhy::ERROR_MODEL_YANS)
    return wireError(v1::INVALID_ARGUMENT, field + ".error_model",
                     std::to_string(in.error_model()) + " is no error model (0 NIST, 1 YANS)");
  if (in.rate_control() != v1::MediumPhy::RATE_CONTROL_CONSTANT &&
      in.rate_control() != v1::MediumPhy::RATE_CONTROL_ARF)
    return wireError(v1::INVALID_ARGUMENT, field + ".rate_control",
                     std::to_string(in.rate_control()) +
                         " is no rate control (0 constant, 1 ARF)");
  const MediumPhy phy = mediumPhyFromReply(in);
  if (auto st = validateMediumPhy(phy); !st) return phyError(st.error(), field);
  return phy;
}

WireResult<MediumPair> mediumPairFromWire(const v1::MediumPair& in, const std::string& field) {
  MediumPair p;
  if (auto st = nameFromWire(in.from(), field + ".from", "node"); !st) return st.error();
  if (auto st = nameFromWire(in.to(), field + ".to", "node"); !st) return st.error();
  p.from = canonicalNode(in.from());
  p.to = canonicalNode(in.to());
  p.rx_power_dbm = in.rx_power_dbm();
  p.remove = in.remove();
  if (p.from == p.to)
    return wireError(v1::INVALID_ARGUMENT, field + ".to", "'" + p.to + "' is the sender itself");
  if (!p.remove && !(p.rx_power_dbm >= -200 && p.rx_power_dbm <= 100))
    return wireError(v1::INVALID_ARGUMENT, field + ".rx_power_dbm",
                     std::to_string(p.rx_power_dbm) + " is outside -200 .. 100 dBm");
  return p;
}

WireResult<MediumSpec> mediumSpecFromWire(const v1::CreateMedium& in, const std::string& field) {
  if (auto st = nameFromWire(in.name(), field + ".name", "medium"); !st) return st.error();
  MediumSpec spec;
  spec.name = in.name();
  if (in.ports_size() == 0 || size_t(in.ports_size()) > kMaxMediumPorts)
    return wireError(v1::INVALID_ARGUMENT, field + ".ports",
                     std::to_string(in.ports_size()) + " ports; a medium has 1 to " +
                         std::to_string(kMaxMediumPorts));
  for (int i = 0; i < in.ports_size(); ++i) {
    const auto& w = in.ports(i);
    const std::string f = elementField(field, "ports", size_t(i));
    v1::LinkEnd end;
    end.set_node(w.node());
    end.set_port(w.port());
    end.set_mac(w.mac());
    end.set_mtu(w.mtu());
    auto e = linkEndFromWire(end, f, in.name());
    if (!e) return e.error();
    e->node = canonicalNode(e->node);
    for (const auto& other : spec.ports) {
      if (other.node == e->node)
        return wireError(v1::INVALID_ARGUMENT, f + ".node",
                         "node '" + e->node + "' is on the medium already; one port per node");
      if (!e->mac.isZero() && other.mac == e->mac)
        return wireError(v1::INVALID_ARGUMENT, f + ".mac",
                         e->mac.toString() + " is another port's MAC too");
    }
    spec.ports.push_back(*e);
  }
  auto phy = mediumPhyFromWire(in.phy(), field + ".phy");
  if (!phy) return phy.error();
  spec.phy = *phy;
  std::vector<std::string> members;
  for (const auto& p : spec.ports) members.push_back(p.node);
  for (int i = 0; i < in.pairs_size(); ++i) {
    const std::string f = elementField(field, "pairs", size_t(i));
    auto p = mediumPairFromWire(in.pairs(i), f);
    if (!p) return p.error();
    if (auto st = validateMediumPair(*p, members); !st)
      return WireError{codeForErrno(st.error().code), f, f + "." + st.error().message};
    spec.pairs.push_back(std::move(*p));
  }
  spec.up = in.has_up() ? in.up() : true;
  return spec;
}

WireResult<MediumUpdate> mediumUpdateFromWire(const v1::UpdateMedium& in,
                                              const std::string& field) {
  if (auto st = nameFromWire(in.name(), field + ".name", "medium"); !st) return st.error();
  if (size_t(in.pairs_size()) > kMaxMediumPairsPerUpdate)
    return wireError(v1::RESOURCE_EXHAUSTED, field + ".pairs",
                     std::to_string(in.pairs_size()) + " pairs; at most " +
                         std::to_string(kMaxMediumPairsPerUpdate) + " per update");
  MediumUpdate u;
  u.replace_all = in.replace_all();
  u.pairs.reserve(size_t(in.pairs_size()));
  for (int i = 0; i < in.pairs_size(); ++i) {
    auto p = mediumPairFromWire(in.pairs(i), elementField(field, "pairs", size_t(i)));
    if (!p) return p.error();
    u.pairs.push_back(std::move(*p));
  }
  return u;
}

void toWire(const MediumPhy& in, v1::MediumPhy* out) {
  out->set_data_rate_kbps(in.data_rate_kbps);
  out->set_basic_rate_kbps(in.basic_rate_kbps);
  out->set_noise_figure_db(in.noise_figure_db);
  out->set_rx_sensitivity_dbm(in.rx_sensitivity_dbm);
  out->set_cs_threshold_dbm(in.cs_threshold_dbm);
  out->set_capture_margin_db(in.capture_margin_db);
  out->set_preamble_snr_db(in.preamble_snr_db);
  out->set_preamble_min_rssi_dbm(in.preamble_min_rssi_dbm);
  out->set_retry_limit(in.retry_limit);
  out->set_error_model(in.error_model == WifiErrorModel::kYans ? v1::MediumPhy::ERROR_MODEL_YANS
                                                               : v1::MediumPhy::ERROR_MODEL_NIST);
  out->set_seed(in.seed);
  out->set_rts_threshold(in.rts_threshold);
  out->set_long_retry_limit(in.long_retry_limit);
  out->set_rts_rate_kbps(in.rts_rate_kbps);
  out->set_cts_rate_kbps(in.cts_rate_kbps);
  out->set_ack_rate_kbps(in.ack_rate_kbps);
  out->set_rate_control(in.rate_control == RateControl::kArf ? v1::MediumPhy::RATE_CONTROL_ARF
                                                             : v1::MediumPhy::RATE_CONTROL_CONSTANT);
  out->set_arf_success_threshold(in.arf_success_threshold);
  out->set_arf_timer_threshold(in.arf_timer_threshold);
}

void toWire(const MediumPair& in, v1::MediumPair* out) {
  out->set_from(in.from);
  out->set_to(in.to);
  out->set_rx_power_dbm(in.rx_power_dbm);
  if (in.remove) out->set_remove(true);
}

void toWire(const MediumSpec& in, v1::CreateMedium* out) {
  out->set_name(in.name);
  for (const auto& p : in.ports) {
    auto* w = out->add_ports();
    w->set_node(p.node);
    w->set_port(p.port);
    if (!p.mac.isZero()) w->set_mac(reinterpret_cast<const char*>(p.mac.bytes.data()), 6);
    w->set_mtu(p.mtu);
  }
  toWire(in.phy, out->mutable_phy());
  out->mutable_pairs()->Reserve(int(in.pairs.size()));
  for (const auto& p : in.pairs) toWire(p, out->add_pairs());
  out->set_up(in.up);
}

void toWire(const std::string& name, const MediumUpdate& in, v1::UpdateMedium* out) {
  out->set_name(name);
  out->set_replace_all(in.replace_all);
  out->mutable_pairs()->Reserve(int(in.pairs.size()));
  for (const auto& p : in.pairs) toWire(p, out->add_pairs());
}

void toWire(const MediumInfo& in, v1::Medium* out) {
  out->set_name(in.name);
  out->set_up(in.up);
  toWire(in.phy, out->mutable_phy());
  for (const auto& p : in.ports) {
    auto* w = out->add_ports();
    w->set_node(p.node);
    w->set_port(p.port);
    w->set_id(p.id);
    w->set_mac(reinterpret_cast<const char*>(p.mac.bytes.data()), 6);
    w->set_mtu(p.mtu);
    w->set_tx_packets(p.tx_packets);
    w->set_tx_bytes(p.tx_bytes);
    w->set_rx_packets(p.rx_packets);
    w->set_rx_bytes(p.rx_bytes);
    w->set_retries(p.retries);
    w->set_retry_drops(p.retry_drops);
    w->set_collisions(p.collisions);
    w->set_tx_airtime_ns(p.tx_airtime_ns);
    w->set_busy_ns(p.busy_ns);
    w->set_late_frames(p.late_frames);
    w->set_lateness_max_ns(p.lateness_max_ns);
    w->set_expired_drops(p.expired_drops);
    w->set_acks_lost(p.acks_lost);
    w->set_duplicates(p.duplicates);
    w->set_acks_sent(p.acks_sent);
    w->set_acks_unsent(p.acks_unsent);
  }
  for (const auto& p : in.pairs) {
    auto* w = out->add_pairs();
    w->set_from(p.from);
    w->set_to(p.to);
    w->set_rx_power_dbm(p.rx_power_dbm);
    w->set_snr_db(p.snr_db);
    w->set_expected_delivery(p.expected_delivery);
    w->set_attempts(p.attempts);
    w->set_delivered(p.delivered);
    w->set_error_drops(p.error_drops);
    w->set_collision_drops(p.collision_drops);
  }
  out->set_elapsed_ns(in.elapsed_ns);
  out->set_updates(in.updates);
}

// Unset fields are ns-3's defaults (MediumPhy's); the server checks the values.
MediumPhy mediumPhyFromReply(const v1::MediumPhy& in) {
  MediumPhy phy;
  if (in.data_rate_kbps()) phy.data_rate_kbps = in.data_rate_kbps();
  if (in.basic_rate_kbps()) phy.basic_rate_kbps = in.basic_rate_kbps();
  if (in.has_noise_figure_db()) phy.noise_figure_db = in.noise_figure_db();
  if (in.has_rx_sensitivity_dbm()) phy.rx_sensitivity_dbm = in.rx_sensitivity_dbm();
  phy.cs_threshold_dbm = in.has_cs_threshold_dbm() ? in.cs_threshold_dbm()
                                                    : phy.rx_sensitivity_dbm;
  if (in.has_capture_margin_db()) phy.capture_margin_db = in.capture_margin_db();
  if (in.has_preamble_snr_db()) phy.preamble_snr_db = in.preamble_snr_db();
  if (in.has_preamble_min_rssi_dbm()) phy.preamble_min_rssi_dbm = in.preamble_min_rssi_dbm();
  if (in.retry_limit()) phy.retry_limit = in.retry_limit();
  phy.error_model = in.error_model() == v1::MediumPhy::ERROR_MODEL_YANS ? WifiErrorModel::kYans
                                                                        : WifiErrorModel::kNist;
  phy.seed = in.seed();
  if (in.has_rts_threshold()) phy.rts_threshold = in.rts_threshold();
  if (in.long_retry_limit()) phy.long_retry_limit = in.long_retry_limit();
  phy.rts_rate_kbps = in.rts_rate_kbps();
  phy.cts_rate_kbps = in.cts_rate_kbps();
  phy.ack_rate_kbps = in.ack_rate_kbps();
  phy.rate_control =
      in.rate_control() == v1::MediumPhy::RATE_CONTROL_ARF ? RateControl::kArf : RateControl::kConstant;
  if (in.arf_success_threshold()) phy.arf_success_threshold = in.arf_success_threshold();
  if (in.arf_timer_threshold()) phy.arf_timer_threshold = in.arf_timer_threshold();
  return phy;
}

MediumInfo mediumFromReply(const v1::Medium& in) {
  MediumInfo m;
  m.name = in.name();
  m.up = in.up();
  m.phy = mediumPhyFromReply(in.phy());
  for (const auto& w : in.ports()) {
    MediumInfo::Port p;
    memberPortFromReply(w, &p);
    p.retries = w.retries();
    p.retry_drops = w.retry_drops();
    p.collisions = w.collisions();
    p.tx_airtime_ns = w.tx_airtime_ns();
    p.busy_ns = w.busy_ns();
    p.late_frames = w.late_frames();
    p.lateness_max_ns = w.lateness_max_ns();
    p.expired_drops = w.expired_drops();
    p.acks_lost = w.acks_lost();
    p.duplicates = w.duplicates();
    p.acks_sent = w.acks_sent();
    p.acks_unsent = w.acks_unsent();
    m.ports.push_back(std::move(p));
  }
  for (const auto& w : in.pairs()) {
    MediumInfo::Pair p;
    p.from = w.from();
    p.to = w.to();
    p.rx_power_dbm = w.rx_power_dbm();
    p.snr_db = w.snr_db();
    p.expected_delivery = w.expected_delivery();
    p.attempts = w.attempts();
    p.delivered = w.delivered();
    p.error_drops = w.error_drops();
    p.collision_drops = w.collision_drops();
    m.pairs.push_back(std::move(p));
  }
  m.elapsed_ns = in.elapsed_ns();
  m.updates = in.updates();
  return m;
}

}  // namespace fastpath::ctrl
