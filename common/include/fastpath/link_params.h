// SPDX-License-Identifier: GPL-2.0-only
// What an emulated link does to the frames sent over it, per direction: rate with a
// per-frame overhead, propagation delay and jitter, a drop-tail queue, loss (Bernoulli or
// Gilbert-Elliott), duplication and corruption, all from a seeded random stream so a run
// repeats exactly. Values are written as tc writes them ("10mbit", "5ms", "1%"): parsed
// and printed here, shared by fastpathd, the control socket and fpctl.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fastpath/result.h"

namespace fastpath {

struct LinkParams {
  enum class Jitter : uint8_t { kUniform, kNormal, kParetoNormal };
  /// An active queue management discipline in front of the link (ns-3's queue disc on the
  /// sending device), besides the device queue of `limit_packets`.
  enum class Aqm : uint8_t {
    kNone,   ///< the device queue only (drop-tail)
    kCoDel,   ///< CoDel (RFC 8289), as ns-3's CoDelQueueDisc
    kCobalt,  ///< COBALT (CoDel + BLUE), as ns-3's CobaltQueueDisc
    kRed = 3,  ///< RED (and ARED, Feng's adaptive RED, NLRED), as ns-3's RedQueueDisc
    kFqCoDel = 4,  ///< flow queues with CoDel each, as ns-3's FqCoDelQueueDisc (fq_codel.h)
  };
  /// RED's settings, as ns-3's RedQueueDisc attributes name them (aqm_limit_* is its
  /// MaxSize, whose unit is the thresholds'; aqm_ecn its UseEcn). Defaults are ns-3's.
  struct Red {
    double min_th = 5, max_th = 15;  ///< MinTh, MaxTh (both 0: set from the link, as ARED)
    /// QW, the average's weight; 0, -1, -2: set from the link (ns-3's three rules).
    double qw = 0.002;
    double l_interm = 50;            ///< LInterm: the drop probability at MaxTh is 1/LInterm
    bool gentle = true;              ///< Gentle: probability rises to 1 over MaxTh .. 2 MaxTh
    uint32_t mean_pkt_size = 500;    ///< MeanPktSize (bytes)
    bool wait = true;                ///< Wait: spread drops out (the count's rule)
    bool hard_drop = true;           ///< UseHardDrop: above the forced threshold, drop
    bool ns1_compat = false;         ///< NS1 compatibility: a forced drop resets the count
    bool ared = false;               ///< ARED: thresholds and weight set from the link
    bool adapt_max_p = false;        ///< AdaptMaxP: the maximum probability follows
    uint64_t interval_ns = 500000000;  ///< Interval between two max-p adaptations
    uint64_t target_ns = 5000000;      ///< TargetDelay (the automatic MinTh)
    double alpha = 0.01, beta = 0.9;   ///< ARED's increment and decrease factor
    double top = 0.5, bottom = 0;      ///< ARED's bounds of the maximum probability (0: auto)
    uint64_t last_set_ns = 0;          ///< LastSet: when max-p last changed (ns-3's start value)
    uint64_t rtt_ns = 100000000;       ///< Rtt: the RTT the automatic Bottom assumes
    bool feng = false;                 ///< FengAdaptive
    double feng_alpha = 3, feng_beta = 2;  ///< FengAlpha (divisor), FengBeta (factor)
    bool nonlinear = false;            ///< NLRED: the probability rises quadratically
    uint64_t link_bps = 1500000;       ///< LinkBandwidth (the automatic settings' rate)
    uint64_t link_delay_ns = 20000000; ///< LinkDelay
    bool operator==(const Red& o) const;  // (the ns-3 module builds as C++17)
  };
  /// Bits per second; 0: no rate limit (a frame occupies the link for no time).
  uint64_t rate_bps = 0;
  /// Bytes added to every frame's length for the rate, after `mpu_bytes` (tc's size table:
  /// may be negative). The frames carried are Ethernet frames without FCS: -12 for ns-3's
  /// PointToPointNetDevice (its PPP header of 2 bytes replaces Ethernet's 14), 4 for its
  /// CsmaNetDevice (FCS), 24 for a real Ethernet (preamble 8, inter-frame gap 12, FCS 4).
  int32_t overhead_bytes = 0;
  /// Minimum frame length counted for the rate (tc's mpu): 60 for Ethernet, whose frames
  /// are padded to 60 bytes before the FCS; 0: none.
  uint32_t mpu_bytes = 0;
  uint64_t delay_ns = 0;
  uint64_t jitter_ns = 0;
  Jitter jitter_dist = Jitter::kUniform;
  /// Jitter may reorder frames (otherwise a frame never overtakes the one before it).
  bool reorder = false;
  /// Drop-tail queue where frames wait for the link (ns-3's DropTailQueue: 100 packets).
  /// Only a rate makes frames wait. 0 bytes: no byte limit.
  uint32_t limit_packets = 100;
  uint64_t limit_bytes = 0;
  /// Bernoulli loss probability, 0..1.
  double loss = 0;
  /// Gilbert-Elliott loss (replaces `loss` when set): p = P(good -> bad), r = P(bad ->
  /// good), loss_bad = 1 - h, loss_good = 1 - k per frame in each state (netem's gemodel).
  bool gilbert_elliott = false;
  double ge_p = 0, ge_r = 1, ge_loss_bad = 1, ge_loss_good = 0;
  double duplicate = 0;  ///< probability a frame is sent twice
  double corrupt = 0;    ///< probability one random bit of a frame is flipped
  /// Random stream seed; 0: derived from the link's name and direction (repeatable).
  uint64_t seed = 0;

  /// The queue discipline frames pass before the device queue (`limit_packets` is then the
  /// device queue's limit, as ns-3's TxQueue behind a queue disc). Its defaults are those
  /// of ns-3's CoDelQueueDisc.
  Aqm aqm = Aqm::kNone;
  /// The discipline's own limit, in packets or (when `aqm_limit_packets` is 0) in bytes.
  uint32_t aqm_limit_packets = 0;
  uint64_t aqm_limit_bytes = 1500000;
  uint64_t aqm_target_ns = 5000000;     ///< CoDel's target sojourn time
  uint64_t aqm_interval_ns = 100000000; ///< CoDel's interval
  uint32_t aqm_min_bytes = 1500;        ///< no drop while fewer bytes wait (CoDel's MinBytes)
  bool aqm_ecn = false;                 ///< mark ECN-capable frames (CE) instead of dropping
  /// Mark ECN-capable frames whose sojourn exceeds this (CoDel's CeThreshold); 0: never.
  uint64_t aqm_ce_threshold_ns = 0;
  /// COBALT's BLUE: its drop probability's step up (queue full, or a frame waited beyond
  /// `aqm_blue_threshold_ns`) and down (a dequeue found the queue empty).
  double aqm_blue_increment = 1.0 / 256;
  double aqm_blue_decrement = 1.0 / 4096;
  uint64_t aqm_blue_threshold_ns = 400000000;
  /// FqCoDel: the flow queues a frame's 5-tuple hash is taken modulo (ns-3's Flows), the
  /// bytes each flow may send per round (Quantum: ns-3 takes the device's MTU), the most
  /// frames dropped from the fattest flow when over the limit (DropBatchSize), the hash's
  /// salt (Perturbation), and set-associative hashing with `aqm_fq_set_ways` queues a set
  /// (EnableSetAssociativeHash, SetWays).
  uint32_t aqm_fq_flows = 1024;
  uint32_t aqm_fq_quantum = 1500;
  uint32_t aqm_fq_drop_batch = 64;
  uint32_t aqm_fq_perturbation = 0;
  bool aqm_fq_set_associative = false;
  uint32_t aqm_fq_set_ways = 8;
  Red red;  ///< RED's settings (aqm red)

  /// Anything besides passing frames on at once.
  bool shapes() const {
    return rate_bps || delay_ns || jitter_ns || loss > 0 || gilbert_elliott || duplicate > 0 ||
           corrupt > 0;
  }
  bool operator==(const LinkParams& o) const;
};

/// Per-frame overhead range: a frame may count up to 64 bytes less than it carries.
inline constexpr int32_t kMinLinkOverhead = -64;
inline constexpr int32_t kMaxLinkOverhead = 1024;
inline constexpr uint32_t kMaxLinkMpu = 1024;

/// The bytes a frame of `len` bytes keeps the link busy for: max(len, mpu) + overhead, never
/// below 0. The one formula of the link's size per frame: fastpathd's shaper and the ns-3
/// device that paces its transmit queue to it both use it.
inline uint64_t linkFrameBytes(uint32_t len, int32_t overhead, uint32_t mpu) {
  const int64_t n = int64_t(len > mpu ? len : mpu) + overhead;
  return n > 0 ? uint64_t(n) : 0;
}
inline uint64_t linkFrameBytes(uint32_t len, const LinkParams& p) {
  return linkFrameBytes(len, p.overhead_bytes, p.mpu_bytes);
}

/// The largest seed: 2^63-1. A seed with the top bit set is refused because that is what a
/// negative number becomes on its way to an unsigned field (-5 -> 2^64-5).
inline constexpr uint64_t kMaxLinkSeed = 0x7fffffffffffffffull;

/// Checks every value; the message names the field and the allowed range. Nothing absurd:
/// rate 1 kbit/s .. 1 Tbit/s (or 0 = unlimited), delay and jitter up to 60 s,
/// probabilities 0..1, queue limit 1 .. 1,000,000 packets.
Status validateLinkParams(const LinkParams& p);

/// tc's units. Rates: bit kbit mbit gbit tbit, bps kbps mbps gbps (bytes per second), and
/// the IEC forms kibit/mibit...; times: s sec ms msec us usec ns nsec (bare number: us, as
/// tc); sizes: b kb mb gb (bytes, kb = 1024); percentages: "1%", "0.5%" or a fraction
/// "0.01" (loss, duplicate, corrupt). Errors say what was expected.
Result<uint64_t> parseRate(const std::string& text);
Result<uint64_t> parseTime(const std::string& text);
Result<uint64_t> parseSize(const std::string& text);
Result<double> parseProbability(const std::string& text);
Result<LinkParams::Jitter> parseJitterDistribution(const std::string& text);
Result<LinkParams::Aqm> parseAqm(const std::string& text);  ///< "none", "codel", "cobalt", "red", "fq_codel"
const char* aqmName(LinkParams::Aqm a);
/// A seed: decimal (or 0x hex) digits, 0 .. kMaxLinkSeed; no sign, no spaces.
Result<uint64_t> parseSeed(const std::string& text);

/// Exact, in the largest unit that keeps it short: parse(format(x)) == x.
std::string formatRate(uint64_t bps);     ///< "10mbit", "1.5gbit", "unlimited"
std::string formatTime(uint64_t ns);      ///< "5ms", "100us", "250ns"
std::string formatProbability(double p);  ///< "1%", "0.5%"
const char* jitterDistributionName(LinkParams::Jitter j);

/// Applies "key value" pairs as fpctl and the topology file take them ("rate 10mbit delay
/// 5ms jitter 1ms loss 1% limit 100"): keys rate overhead mpu delay jitter distribution reorder
/// limit limit-bytes loss gemodel(p r [1-h [1-k]]) duplicate corrupt seed, and the queue
/// discipline's: aqm (none, codel, cobalt) aqm-limit aqm-limit-bytes target interval
/// min-bytes ecn/no-ecn ce-threshold, and COBALT's blue-increment blue-decrement
/// blue-threshold, and FqCoDel's flows quantum drop-batch perturbation set-ways
/// set-associative/no-set-associative. `args[i]` is
/// one word. Only named fields change; the result is validated whole.
Status applyLinkParamWords(const std::vector<std::string>& args, LinkParams* p);

/// `text` cut at every character of `separators`, empty words dropped: "rate 10mbit  delay
/// 5ms" -> {"rate", "10mbit", "delay", "5ms"} with separators " ". How a line of text becomes
/// the words applyLinkParamWords (or fastpathd's --route and file options) read.
std::vector<std::string> splitWords(std::string_view text, std::string_view separators);

/// Which words formatLinkParams writes.
enum class LinkParamsWords {
  kAll,      ///< rate, delay and limit always, the rest when set: "rate unlimited delay 0ms limit 100"
  kChanged,  ///< only what differs from LinkParams{}: "" for a link that passes frames at once
};

/// The parameters as the words applyLinkParamWords reads ("rate 10mbit delay 5ms limit 100
/// loss 1%"), exactly: applying them to LinkParams{} gives `p` back (Gilbert-Elliott's
/// values only while it is on, `loss` only while it is off). The one formatter of link
/// parameters: fastpathd's logs, fpctl and the ns-3 plan writer all use it.
std::string formatLinkParams(const LinkParams& p, LinkParamsWords which = LinkParamsWords::kAll);

}  // namespace fastpath
