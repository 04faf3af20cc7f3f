// SPDX-License-Identifier: GPL-2.0-only
// Reading a topology file's `media:` section: radio media, their PHY and their pairs.
#include <utility>

#include "daemon/topology_reader.h"

namespace fastpath {
namespace topology_detail {

/// `{name: air, ports: [r1, {node: r2, port: wlan0}], up: B, phy: {data_rate_kbps: 11000,
/// ...}, pairs: [{from: r1, to: r2, rx_dbm: -60, symmetric: true}]}`; the members, PHY and
/// pairs are checked when the daemon creates the medium (validateMediumPhy, ...Pair).
void Reader::medium(const YAML::Node& n) {
  TopologyMedium med;
  med.line = lineOf(n);
  const std::string what = label(n, "medium", topology.media.size());
  forEachKey(n, what, {"name", "ports", "up", "phy", "pairs"}, {"name", "ports"},
             [&](const std::string& key, const YAML::Node& v) {
               if (key == "name") {
                 scalar(v, what + ": name", &med.spec.name);
               } else if (key == "ports") {
                 forEachItem(v, what + ": ports", [&](const YAML::Node& p) {
                   PortSpec e;
                   int line = 0;
                   end(p, what + ": port " + std::to_string(med.spec.ports.size()), &e, &line);
                   med.spec.ports.push_back(std::move(e));
                 });
               } else if (key == "up") {
                 if (!v.IsScalar() || !YAML::convert<bool>::decode(v, med.spec.up))
                   p_->add(lineOf(v), what + ": up must be true or false");
               } else if (key == "phy") {
                 mediumPhy(v, what + ": phy", &med.spec.phy);
               } else {
                 forEachItem(v, what + ": pairs", [&](const YAML::Node& p) {
                   mediumPair(p, what + ": pair " + std::to_string(med.spec.pairs.size()),
                              &med.spec.pairs);
                 });
               }
             });
  for (auto& p : med.spec.ports)
    if (p.port.empty()) p.port = med.spec.name;
  topology.media.push_back(std::move(med));
}

void Reader::mediumPhy(const YAML::Node& v, const std::string& what, MediumPhy* phy) {
  bool cs_given = false;
  forEachKey(v, what,
             {"data_rate_kbps", "basic_rate_kbps", "noise_figure_db", "rx_sensitivity_dbm",
              "cs_threshold_dbm", "capture_margin_db", "preamble_snr_db",
              "preamble_min_rssi_dbm", "retry_limit", "error_model", "seed", "rts_threshold",
              "long_retry_limit", "rts_rate_kbps", "cts_rate_kbps", "ack_rate_kbps",
              "rate_control", "arf_success_threshold", "arf_timer_threshold"},
             {}, [&](const std::string& key, const YAML::Node& x) {
               const std::string w = what + ": " + key;
               uint64_t u = 0;
               if (key == "data_rate_kbps" && number(x, w, 54000, &u)) phy->data_rate_kbps = uint32_t(u);
               if (key == "basic_rate_kbps" && number(x, w, 54000, &u)) phy->basic_rate_kbps = uint32_t(u);
               if (key == "retry_limit" && number(x, w, 32, &u)) phy->retry_limit = uint32_t(u);
               if (key == "seed" && number(x, w, UINT64_MAX, &u)) phy->seed = u;
               if (key == "rts_threshold" && number(x, w, 65535, &u)) phy->rts_threshold = uint32_t(u);
               if (key == "long_retry_limit" && number(x, w, 32, &u)) phy->long_retry_limit = uint32_t(u);
               if (key == "rts_rate_kbps" && number(x, w, 54000, &u)) phy->rts_rate_kbps = uint32_t(u);
               if (key == "cts_rate_kbps" && number(x, w, 54000, &u)) phy->cts_rate_kbps = uint32_t(u);
               if (key == "ack_rate_kbps" && number(x, w, 54000, &u)) phy->ack_rate_kbps = uint32_t(u);
               if (key == "arf_success_threshold" && number(x, w, 65535, &u))
                 phy->arf_success_threshold = uint32_t(u);
               if (key == "arf_timer_threshold" && number(x, w, 65535, &u))
                 phy->arf_timer_threshold = uint32_t(u);
               if (key == "noise_figure_db") real(x, w, &phy->noise_figure_db);
               if (key == "rx_sensitivity_dbm") real(x, w, &phy->rx_sensitivity_dbm);
               if (key == "cs_threshold_dbm") cs_given = real(x, w, &phy->cs_threshold_dbm);
               if (key == "capture_margin_db") real(x, w, &phy->capture_margin_db);
               if (key == "preamble_snr_db") real(x, w, &phy->preamble_snr_db);
               if (key == "preamble_min_rssi_dbm") real(x, w, &phy->preamble_min_rssi_dbm);
               if (key == "error_model") {
                 std::string m;
                 if (scalar(x, w, &m) && m != "nist" && m != "yans")
                   p_->add(lineOf(x), w + " must be nist or yans, not '" + m + "'");
                 phy->error_model = m == "yans" ? WifiErrorModel::kYans : WifiErrorModel::kNist;
               }
               if (key == "rate_control") {
                 std::string m;
                 if (scalar(x, w, &m) && m != "constant" && m != "arf")
                   p_->add(lineOf(x), w + " must be constant or arf, not '" + m + "'");
                 phy->rate_control = m == "arf" ? RateControl::kArf : RateControl::kConstant;
               }
             });
  if (!cs_given) phy->cs_threshold_dbm = phy->rx_sensitivity_dbm;
  if (auto st = validateMediumPhy(*phy); !st) p_->add(lineOf(v), what + ": " + st.error().message);
}

void Reader::mediumPair(const YAML::Node& v, const std::string& what,
                        std::vector<MediumPair>* out) {
  MediumPair p;
  bool symmetric = false;
  forEachKey(v, what, {"from", "to", "rx_dbm", "symmetric"}, {"from", "to", "rx_dbm"},
             [&](const std::string& key, const YAML::Node& x) {
               if (key == "from") scalar(x, what + ": from", &p.from);
               if (key == "to") scalar(x, what + ": to", &p.to);
               if (key == "rx_dbm") real(x, what + ": rx_dbm", &p.rx_power_dbm);
               if (key == "symmetric" &&
                   (!x.IsScalar() || !YAML::convert<bool>::decode(x, symmetric)))
                 p_->add(lineOf(x), what + ": symmetric must be true or false");
             });
  out->push_back(p);
  if (symmetric) out->push_back(MediumPair{p.to, p.from, p.rx_power_dbm, false});
}

}  // namespace topology_detail
}  // namespace fastpath
