// SPDX-License-Identifier: GPL-2.0-only
// The rules of a radio medium's PHY and pairs, called by every entry point (topology files,
// the IPC server, the daemon).
#include "fastpath/medium_types.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <utility>

namespace fastpath {

namespace {
constexpr uint32_t kDsss[] = {1000, 2000, 5500, 11000};
constexpr uint32_t kOfdm[] = {6000, 9000, 12000, 18000, 24000, 36000, 48000, 54000};

Error invalid(const std::string& msg) { return Error{-EINVAL, msg}; }

std::string num(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%g", v);
  return b;
}
}  // namespace

bool isDsssRate(uint32_t kbps) { return std::count(std::begin(kDsss), std::end(kDsss), kbps) > 0; }
bool isOfdmRate(uint32_t kbps) { return std::count(std::begin(kOfdm), std::end(kOfdm), kbps) > 0; }

std::vector<uint32_t> ratesUpTo(uint32_t kbps) {
  std::vector<uint32_t> out;
  if (isDsssRate(kbps)) {
    for (uint32_t r : kDsss)
      if (r <= kbps) out.push_back(r);
  } else if (isOfdmRate(kbps)) {
    for (uint32_t r : kOfdm)
      if (r <= kbps) out.push_back(r);
  }
  return out;
}

Status validateMediumPhy(const MediumPhy& phy) {
  const char* rates = " (802.11b: 1000 2000 5500 11000; OFDM: 6000 9000 12000 18000 24000 "
                      "36000 48000 54000 kbit/s)";
  for (auto [field, r] : {std::pair{"data_rate_kbps", phy.data_rate_kbps},
                          std::pair{"basic_rate_kbps", phy.basic_rate_kbps}})
    if (!isDsssRate(r) && !isOfdmRate(r))
      return invalid(std::string(field) + ": " + std::to_string(r) + " is no 802.11 rate" +
                     rates);
  for (auto [field, r] : {std::pair{"rts_rate_kbps", phy.rts_rate_kbps},
                          std::pair{"cts_rate_kbps", phy.cts_rate_kbps},
                          std::pair{"ack_rate_kbps", phy.ack_rate_kbps}}) {
    if (r == 0) continue;  // the basic rate
    if (!isDsssRate(r) && !isOfdmRate(r))
      return invalid(std::string(field) + ": " + std::to_string(r) + " is no 802.11 rate" +
                     rates + "; 0: the basic rate");
    if (isDsssRate(r) != isDsssRate(phy.data_rate_kbps))
      return invalid(std::string(field) + ": " + std::to_string(r) +
                     " is not of data_rate_kbps's family (" + std::to_string(phy.data_rate_kbps) +
                     "); one medium is DSSS (802.11b) or OFDM");
  }
  if (phy.long_retry_limit < 1 || phy.long_retry_limit > 32)
    return invalid("long_retry_limit: " + std::to_string(phy.long_retry_limit) +
                   " is outside 1 .. 32 transmissions");
  if (isDsssRate(phy.data_rate_kbps) != isDsssRate(phy.basic_rate_kbps))
    return invalid("basic_rate_kbps: " + std::to_string(phy.basic_rate_kbps) +
                   " is not of data_rate_kbps's family (" + std::to_string(phy.data_rate_kbps) +
                   "); one medium is DSSS (802.11b) or OFDM");
  if (!std::isfinite(phy.noise_figure_db) || phy.noise_figure_db < 0 || phy.noise_figure_db > 30)
    return invalid("noise_figure_db: " + num(phy.noise_figure_db) + " is outside 0 .. 30 dB");
  for (auto [field, v] : {std::pair{"rx_sensitivity_dbm", phy.rx_sensitivity_dbm},
                          std::pair{"cs_threshold_dbm", phy.cs_threshold_dbm},
                          std::pair{"preamble_min_rssi_dbm", phy.preamble_min_rssi_dbm}})
    if (!std::isfinite(v) || v < -200 || v > 0)
      return invalid(std::string(field) + ": " + num(v) + " is outside -200 .. 0 dBm");
  if (!std::isfinite(phy.capture_margin_db) || phy.capture_margin_db > 100)
    return invalid("capture_margin_db: " + num(phy.capture_margin_db) +
                   " is above 100 dB (< 0: no capture)");
  if (!std::isfinite(phy.preamble_snr_db) || phy.preamble_snr_db < -100 ||
      phy.preamble_snr_db > 100)
    return invalid("preamble_snr_db: " + num(phy.preamble_snr_db) + " is outside -100 .. 100 dB");
  if (phy.retry_limit < 1 || phy.retry_limit > 32)
    return invalid("retry_limit: " + std::to_string(phy.retry_limit) +
                   " is outside 1 .. 32 transmissions");
  if (phy.rate_control != RateControl::kConstant && phy.rate_control != RateControl::kArf)
    return invalid("rate_control: " + std::to_string(int(phy.rate_control)) +
                   " is unknown (constant or arf)");
  for (auto [field, v] : {std::pair{"arf_success_threshold", phy.arf_success_threshold},
                          std::pair{"arf_timer_threshold", phy.arf_timer_threshold}})
    if (v < 1 || v > 65535)
      return invalid(std::string(field) + ": " + std::to_string(v) + " is outside 1 .. 65535");
  return {};
}

Status validateMediumPair(const MediumPair& pair, const std::vector<std::string>& members) {
  auto member = [&](const std::string& n) {
    return std::find(members.begin(), members.end(), n) != members.end();
  };
  if (!member(pair.from)) return Error{-ENOENT, "from: node '" + pair.from + "' is no member"};
  if (!member(pair.to)) return Error{-ENOENT, "to: node '" + pair.to + "' is no member"};
  if (pair.from == pair.to) return invalid("to: '" + pair.to + "' is the sender itself");
  if (!pair.remove && (!std::isfinite(pair.rx_power_dbm) || pair.rx_power_dbm < -200 ||
                       pair.rx_power_dbm > 100))
    return invalid("rx_power_dbm: " + num(pair.rx_power_dbm) + " is outside -200 .. 100 dBm");
  return {};
}

}  // namespace fastpath
