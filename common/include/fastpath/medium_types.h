// SPDX-License-Identifier: GPL-2.0-only
// Radio media: an ad hoc Wi-Fi channel joining nodes of the daemon (ns-3's YansWifiChannel
// with the ad hoc MAC). Each member node has a port; per ordered pair of members the
// received power at the receiver, kept sparse (pairs below both thresholds are absent).
// Plain structs, C++17-clean: fastpathd, ctrl-bridge, fpctl and the ns-3 module use them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fastpath/control_types.h"
#include "fastpath/result.h"

namespace fastpath {

/// A medium has 1 .. kMaxMediumPorts members; one update carries at most
/// kMaxMediumPairsPerUpdate pair changes (a full 1024-member mesh is ~10^6 pairs).
inline constexpr size_t kMaxMediumPorts = 1024;
inline constexpr size_t kMaxMediumPairsPerUpdate = size_t(1) << 20;

/// Which of ns-3's error-rate models decides OFDM frames (DSSS rates always use ns-3's
/// DsssErrorRateModel, as both of ns-3's models do).
enum class WifiErrorModel : uint8_t { kNist, kYans };

/// How a member picks the rate of a unicast data frame. kConstant: data_rate_kbps (ns-3's
/// ConstantRateWifiManager). kArf: per destination, as ns-3's ArfWifiManager does, over the
/// rates of the medium's family up to data_rate_kbps, starting at the lowest.
enum class RateControl : uint8_t { kConstant, kArf };

/// The PHY and MAC of every member (one ns-3 YansWifiPhy + AdhocWifiMac configuration).
/// Rates are in kbit/s: 802.11b DSSS/CCK 1000, 2000, 5500, 11000; OFDM (802.11a/g)
/// 6000, 9000, 12000, 18000, 24000, 36000, 48000, 54000. Both rates of one medium use the
/// same family (DSSS or OFDM), as one ns-3 WifiStandard does.
struct MediumPhy {
  uint32_t data_rate_kbps = 11000;  ///< unicast data (ns-3's DataMode)
  uint32_t basic_rate_kbps = 1000;  ///< broadcast (ns-3's NonUnicastMode)
  double noise_figure_db = 7;       ///< YansWifiPhy RxNoiseFigure
  double rx_sensitivity_dbm = -101;  ///< below: the frame is not detected (RxSensitivity)
  /// A member senses the medium busy while a transmission at least this strong reaches it,
  /// or while the energy of all transmissions reaching it together is at least this
  /// (carrier sense, separate from decoding). ns-3 3.37 senses a frame it does not decode
  /// from CcaSensitivity (-82 dBm), which FastPathWifiHelper sets; the default (the
  /// sensitivity) senses every frame that reaches a member.
  double cs_threshold_dbm = -101;
  /// A frame this much stronger than the one being received takes the receiver over
  /// (ns-3's SimpleFrameCaptureModel Margin); < 0: no capture (ns-3's default PHY).
  double capture_margin_db = -1;
  /// ns-3's ThresholdPreambleDetectionModel (on by default in ns-3 3.37's helpers): a frame
  /// is detected only with at least this SNR and this received power.
  double preamble_snr_db = 4;
  double preamble_min_rssi_dbm = -82;
  uint32_t retry_limit = 7;         ///< transmissions of a unicast frame (ns-3's MaxSsrc)
  WifiErrorModel error_model = WifiErrorModel::kNist;
  uint64_t seed = 0;                ///< 0: derived from the medium's name
  /// Unicast frames longer than this (802.11 bytes: MAC header and FCS included) go after
  /// an RTS/CTS exchange (ns-3's RtsCtsThreshold; 65535: never). Their RTS is tried up to
  /// retry_limit times, the frame itself up to long_retry_limit times (MaxSlrc).
  uint32_t rts_threshold = 65535;
  uint32_t long_retry_limit = 4;
  /// The control frames' rates (0: basic_rate_kbps): the RTS (ns-3's ControlMode), the CTS
  /// answering it and the ACK answering a data frame (ns-3's control answer modes).
  uint32_t rts_rate_kbps = 0;
  uint32_t cts_rate_kbps = 0;
  uint32_t ack_rate_kbps = 0;
  /// Rate adaptation of unicast data (with kArf, ack_rate_kbps is the ACK of the top rate;
  /// a lower rate's ACK is the highest mandatory rate at or below it, as ns-3 answers).
  RateControl rate_control = RateControl::kConstant;
  uint32_t arf_success_threshold = 10;  ///< ArfWifiManager SuccessThreshold
  uint32_t arf_timer_threshold = 15;    ///< ArfWifiManager TimerThreshold

  uint32_t rtsRate() const { return rts_rate_kbps ? rts_rate_kbps : basic_rate_kbps; }
  uint32_t ctsRate() const { return cts_rate_kbps ? cts_rate_kbps : basic_rate_kbps; }
  uint32_t ackRate() const { return ack_rate_kbps ? ack_rate_kbps : basic_rate_kbps; }

  bool operator==(const MediumPhy& o) const {
    return data_rate_kbps == o.data_rate_kbps && basic_rate_kbps == o.basic_rate_kbps &&
           noise_figure_db == o.noise_figure_db && rx_sensitivity_dbm == o.rx_sensitivity_dbm &&
           cs_threshold_dbm == o.cs_threshold_dbm && capture_margin_db == o.capture_margin_db &&
           preamble_snr_db == o.preamble_snr_db &&
           preamble_min_rssi_dbm == o.preamble_min_rssi_dbm &&
           retry_limit == o.retry_limit && error_model == o.error_model && seed == o.seed &&
           rts_threshold == o.rts_threshold && long_retry_limit == o.long_retry_limit &&
           rts_rate_kbps == o.rts_rate_kbps && cts_rate_kbps == o.cts_rate_kbps &&
           ack_rate_kbps == o.ack_rate_kbps && rate_control == o.rate_control &&
           arf_success_threshold == o.arf_success_threshold &&
           arf_timer_threshold == o.arf_timer_threshold;
  }
};

/// One ordered pair: what `to` receives when `from` transmits. A pair below both the
/// detection and the carrier-sense threshold (or with `remove`) is absent.
struct MediumPair {
  std::string from;  ///< member node
  std::string to;    ///< member node
  double rx_power_dbm = -200;
  bool remove = false;  ///< updates only: the pair goes (same as a power below the thresholds)
};

/// One batch of pair changes, applied at once: every frame sees all of it or none of it.
struct MediumUpdate {
  std::vector<MediumPair> pairs;
  bool replace_all = false;  ///< `pairs` become the whole set (absent pairs go)
};

struct MediumSpec {
  std::string name;
  std::vector<PortSpec> ports;  ///< one per member node (name, MAC, MTU as a segment port's)
  bool up = true;
  MediumPhy phy;
  std::vector<MediumPair> pairs;  ///< initial pairs
};

struct MediumInfo {
  std::string name;
  bool up = true;
  MediumPhy phy;
  struct Port {
    std::string node;
    std::string port;
    PortId id = 0;
    MacAddress mac;
    uint32_t mtu = 1500;
    uint64_t tx_packets = 0, tx_bytes = 0;  ///< frames sent on the medium by this member
    uint64_t rx_packets = 0, rx_bytes = 0;  ///< frames it received
    uint64_t retries = 0;        ///< unicast retransmissions it made
    uint64_t retry_drops = 0;    ///< unicast frames it gave up on after retry_limit tries
    uint64_t collisions = 0;     ///< frames lost at this member because another overlapped
    uint64_t tx_airtime_ns = 0;  ///< time its transmissions held the air (with ACKs)
    uint64_t busy_ns = 0;        ///< time it sensed the medium busy (others' frames)
    uint64_t late_frames = 0;    ///< frames released later than their due time
    uint64_t lateness_max_ns = 0;
    uint64_t expired_drops = 0;  ///< frames dropped unsent after 500 ms queued (MaxDelay)
    uint64_t acks_lost = 0;      ///< its frames that arrived but whose ACK it did not decode
    uint64_t duplicates = 0;     ///< copies it received again after its ACK was lost
    uint64_t acks_sent = 0;      ///< ACKs it sent as a unicast frame's destination
    uint64_t acks_unsent = 0;    ///< ACKs it owed but could not send (it was transmitting)
  };
  std::vector<Port> ports;
  struct Pair {
    std::string from, to;
    double rx_power_dbm = 0;   ///< configured
    double snr_db = 0;         ///< configured, over the receiver's noise floor
    double expected_delivery = 0;  ///< configured: one try of a 1000-byte frame at the pair's rate
    uint64_t attempts = 0;     ///< frames (tries) `to` could decode from `from`
    uint64_t delivered = 0;    ///< of those, received
    uint64_t error_drops = 0;  ///< lost to the error model (no interference)
    uint64_t collision_drops = 0;  ///< lost to interference or half duplex
  };
  std::vector<Pair> pairs;
  uint64_t elapsed_ns = 0;  ///< since the medium was created (busy share = busy_ns / this)
  uint64_t updates = 0;     ///< pair batches applied
};

/// The one rule for a medium's PHY (topology files and the IPC both call it): known rates
/// of one family, thresholds and noise figure in range, retry limit 1 .. 32. The error
/// names the field ("data_rate_kbps: 7000 is no 802.11 rate ...").
Status validateMediumPhy(const MediumPhy& phy);
/// Whether the rate (kbit/s) is DSSS/CCK (802.11b) or OFDM; false for unknown rates.
/// The rates of `kbps`'s family up to and including it, lowest first (ARF's rate set);
/// empty for an unknown rate.
std::vector<uint32_t> ratesUpTo(uint32_t kbps);
bool isDsssRate(uint32_t kbps);
bool isOfdmRate(uint32_t kbps);
/// A pair's rule: two different members (`members`), a finite power in -200 .. 100 dBm.
Status validateMediumPair(const MediumPair& pair, const std::vector<std::string>& members);

}  // namespace fastpath
