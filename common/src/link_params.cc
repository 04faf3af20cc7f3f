// SPDX-License-Identifier: GPL-2.0-only
#include "fastpath/link_params.h"

#include "link_params_fq.h"
#include "link_params_red.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace fastpath {
namespace {

constexpr uint64_t kMaxTimeNs = 60ull * 1000000000ull;
constexpr uint64_t kMinRate = 1000, kMaxRate = 1000000000000000ull;  // 1 kbit/s .. 1 Pbit/s

Error bad(const std::string& m) { return makeError(-EINVAL, m); }

// Splits "10mbit" into 10 and "mbit"; false when there is no number.
bool splitNumber(const std::string& t, double* v, std::string* unit) {
  if (t.empty()) return false;
  char* end = nullptr;
  errno = 0;
  *v = std::strtod(t.c_str(), &end);
  if (end == t.c_str() || errno || !std::isfinite(*v)) return false;
  *unit = std::string(end);
  for (auto& c : *unit) c = char(std::tolower(static_cast<unsigned char>(c)));
  return true;
}

// `v` / 10^`places` written exactly, without trailing zeros: decimal(1500000, 6) = "1.5".
std::string decimal(uint64_t v, int places) {
  uint64_t scale = 1;
  for (int i = 0; i < places; ++i) scale *= 10;
  std::string frac = std::to_string(v % scale);
  frac.insert(0, std::size_t(places) - frac.size(), '0');
  while (!frac.empty() && frac.back() == '0') frac.pop_back();
  return std::to_string(v / scale) + (frac.empty() ? "" : "." + frac);
}

std::string trim(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.6g", v);
  return b;
}

}  // namespace

bool LinkParams::operator==(const LinkParams& o) const {
  return rate_bps == o.rate_bps && overhead_bytes == o.overhead_bytes &&
         mpu_bytes == o.mpu_bytes && delay_ns == o.delay_ns &&
         jitter_ns == o.jitter_ns && jitter_dist == o.jitter_dist && reorder == o.reorder &&
         limit_packets == o.limit_packets && limit_bytes == o.limit_bytes && loss == o.loss &&
         gilbert_elliott == o.gilbert_elliott && ge_p == o.ge_p && ge_r == o.ge_r &&
         ge_loss_bad == o.ge_loss_bad && ge_loss_good == o.ge_loss_good &&
         duplicate == o.duplicate && corrupt == o.corrupt && seed == o.seed && aqm == o.aqm &&
         aqm_limit_packets == o.aqm_limit_packets && aqm_limit_bytes == o.aqm_limit_bytes &&
         aqm_target_ns == o.aqm_target_ns && aqm_interval_ns == o.aqm_interval_ns &&
         aqm_min_bytes == o.aqm_min_bytes && aqm_ecn == o.aqm_ecn &&
         aqm_ce_threshold_ns == o.aqm_ce_threshold_ns &&
         aqm_blue_increment == o.aqm_blue_increment &&
         aqm_blue_decrement == o.aqm_blue_decrement &&
         aqm_blue_threshold_ns == o.aqm_blue_threshold_ns && aqm_fq_flows == o.aqm_fq_flows &&
         aqm_fq_quantum == o.aqm_fq_quantum && aqm_fq_drop_batch == o.aqm_fq_drop_batch &&
         aqm_fq_perturbation == o.aqm_fq_perturbation &&
         aqm_fq_set_associative == o.aqm_fq_set_associative &&
         aqm_fq_set_ways == o.aqm_fq_set_ways && red == o.red;
}

Result<uint64_t> parseRate(const std::string& text) {
  double v;
  std::string u;
  if (!splitNumber(text, &v, &u))
    return bad("rate \"" + text + "\": expected a number with a unit, e.g. 10mbit");
  struct Unit {
    const char* name;
    double factor;
  };
  static const Unit units[] = {
      {"bit", 1},      {"kbit", 1e3},        {"mbit", 1e6},         {"gbit", 1e9},
      {"tbit", 1e12},  {"bps", 8},           {"kbps", 8e3},         {"mbps", 8e6},
      {"gbps", 8e9},   {"tbps", 8e12},       {"kibit", 1024.0},     {"mibit", 1048576.0},
      {"gibit", 1073741824.0}, {"kibps", 8192.0}, {"mibps", 8388608.0}, {"gibps", 8589934592.0}};
  for (const auto& un : units)
    if (u == un.name) {
      const double bps = v * un.factor;
      if (bps < 0) return bad("rate \"" + text + "\" is negative");
      if (bps == 0)
        return bad("rate \"" + text + "\": a rate must be more than 0 (leave it out for a link "
                   "without a rate limit)");
      if (bps < double(kMinRate) || bps > double(kMaxRate))
        return bad("rate \"" + text + "\" is outside 1kbit .. 1000tbit");
      return uint64_t(std::llround(bps));
    }
  return bad("rate \"" + text + "\": unknown unit \"" + u +
             "\" (use bit, kbit, mbit, gbit, tbit, or bps, kbps, mbps, gbps for bytes/s)");
}

Result<uint64_t> parseTime(const std::string& text) {
  double v;
  std::string u;
  if (!splitNumber(text, &v, &u))
    return bad("time \"" + text + "\": expected a number with a unit, e.g. 5ms");
  double f;
  if (u == "s" || u == "sec" || u == "secs")
    f = 1e9;
  else if (u == "ms" || u == "msec" || u == "msecs")
    f = 1e6;
  else if (u == "us" || u == "usec" || u == "usecs" || u.empty())
    f = 1e3;  // tc takes a bare number as microseconds
  else if (u == "ns" || u == "nsec" || u == "nsecs")
    f = 1;
  else
    return bad("time \"" + text + "\": unknown unit \"" + u + "\" (use s, ms, us or ns)");
  const double ns = v * f;
  if (ns < 0) return bad("time \"" + text + "\" is negative");
  if (ns > double(kMaxTimeNs)) return bad("time \"" + text + "\" is more than 60s");
  return uint64_t(std::llround(ns));
}

Result<uint64_t> parseSize(const std::string& text) {
  double v;
  std::string u;
  if (!splitNumber(text, &v, &u))
    return bad("size \"" + text + "\": expected a number of bytes, e.g. 64kb");
  double f;
  if (u.empty() || u == "b")
    f = 1;
  else if (u == "k" || u == "kb")
    f = 1024;
  else if (u == "m" || u == "mb")
    f = 1048576;
  else if (u == "g" || u == "gb")
    f = 1073741824;
  else
    return bad("size \"" + text + "\": unknown unit \"" + u + "\" (use b, kb, mb or gb)");
  if (v < 0) return bad("size \"" + text + "\" is negative");
  return uint64_t(std::llround(v * f));
}

Result<double> parseProbability(const std::string& text) {
  double v;
  std::string u;
  if (!splitNumber(text, &v, &u))
    return bad("probability \"" + text + "\": expected a percentage (1%) or a fraction (0.01)");
  if (u == "%")
    v /= 100;
  else if (!u.empty())
    return bad("probability \"" + text + "\": expected a percentage (1%) or a fraction (0.01)");
  if (v < 0 || v > 1) return bad("probability \"" + text + "\" is outside 0% .. 100%");
  return v;
}

Result<LinkParams::Jitter> parseJitterDistribution(const std::string& text) {
  if (text == "uniform") return LinkParams::Jitter::kUniform;
  if (text == "normal") return LinkParams::Jitter::kNormal;
  if (text == "paretonormal" || text == "pareto-normal") return LinkParams::Jitter::kParetoNormal;
  return bad("distribution \"" + text + "\": use uniform, normal or paretonormal");
}

Result<LinkParams::Aqm> parseAqm(const std::string& text) {
  if (text == "none") return LinkParams::Aqm::kNone;
  if (text == "codel") return LinkParams::Aqm::kCoDel;
  if (text == "cobalt") return LinkParams::Aqm::kCobalt;
  if (text == "red") return LinkParams::Aqm::kRed;
  if (text == "fq_codel" || text == "fq-codel") return LinkParams::Aqm::kFqCoDel;
  return bad("aqm \"" + text + "\": use none, codel, cobalt, red or fq_codel");
}

const char* aqmName(LinkParams::Aqm a) {
  switch (a) {
    case LinkParams::Aqm::kNone: return "none";
    case LinkParams::Aqm::kCoDel: return "codel";
    case LinkParams::Aqm::kCobalt: return "cobalt";
    case LinkParams::Aqm::kRed: return "red";
    case LinkParams::Aqm::kFqCoDel: return "fq_codel";
  }
  return "none";
}

const char* jitterDistributionName(LinkParams::Jitter j) {
  switch (j) {
    case LinkParams::Jitter::kUniform: return "uniform";
    case LinkParams::Jitter::kNormal: return "normal";
    case LinkParams::Jitter::kParetoNormal: return "paretonormal";
  }
  return "uniform";
}

std::string formatRate(uint64_t bps) {
  if (!bps) return "unlimited";
  if (bps % 1000000000 == 0) return std::to_string(bps / 1000000000) + "gbit";
  if (bps >= 1000000000) return decimal(bps, 9) + "gbit";
  if (bps % 1000000 == 0) return std::to_string(bps / 1000000) + "mbit";
  if (bps >= 1000000) return decimal(bps, 6) + "mbit";
  if (bps % 1000 == 0) return std::to_string(bps / 1000) + "kbit";
  return std::to_string(bps) + "bit";
}

std::string formatTime(uint64_t ns) {
  if (ns == 0) return "0ms";
  if (ns % 1000000000 == 0) return std::to_string(ns / 1000000000) + "s";
  if (ns >= 1000000) return decimal(ns, 6) + "ms";
  if (ns >= 1000) return decimal(ns, 3) + "us";
  return std::to_string(ns) + "ns";
}

std::string formatProbability(double p) {
  // The shortest percentage that reads back as the same double ("1%", "0.5%"); a value no
  // percentage reproduces (p * 100 / 100 is not always p) is written as the fraction itself.
  char b[40];
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(b, sizeof b, "%.*g", digits, p * 100);
    if (std::strtod(b, nullptr) / 100 == p) return std::string(b) + "%";
  }
  std::snprintf(b, sizeof b, "%.17g", p);
  return b;
}

Result<uint64_t> parseSeed(const std::string& text) {
  // strtoull takes "-5" as 2^64-5 and " 5" as 5: only digits (or 0x and hex digits) here.
  const std::string expected = "seed \"" + text + "\": expected an unsigned number 0 .. " +
                               std::to_string(kMaxLinkSeed);
  if (text.empty() || !std::isdigit(static_cast<unsigned char>(text[0]))) return bad(expected);
  errno = 0;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(text.c_str(), &end, 0);
  if (*end || errno == ERANGE || v > kMaxLinkSeed) return bad(expected);
  return uint64_t(v);
}

Status validateLinkParams(const LinkParams& p) {
  std::string e;
  auto add = [&](const std::string& m) { e += (e.empty() ? "" : "; ") + m; };
  if (p.rate_bps && (p.rate_bps < kMinRate || p.rate_bps > kMaxRate))
    add("rate " + std::to_string(p.rate_bps) + " bit/s is outside 1kbit .. 1000tbit");
  if (p.overhead_bytes < kMinLinkOverhead || p.overhead_bytes > kMaxLinkOverhead)
    add("overhead " + std::to_string(p.overhead_bytes) + " is outside " +
        std::to_string(kMinLinkOverhead) + " .. " + std::to_string(kMaxLinkOverhead) + " bytes");
  if (p.mpu_bytes > kMaxLinkMpu)
    add("mpu " + std::to_string(p.mpu_bytes) + " is more than " + std::to_string(kMaxLinkMpu) +
        " bytes");
  if (p.delay_ns > kMaxTimeNs) add("delay " + formatTime(p.delay_ns) + " is more than 60s");
  if (p.jitter_ns > kMaxTimeNs) add("jitter " + formatTime(p.jitter_ns) + " is more than 60s");
  if (p.limit_packets < 1 || p.limit_packets > 1000000)
    add("limit " + std::to_string(p.limit_packets) + " is outside 1 .. 1000000 packets");
  if (p.limit_bytes > (1ull << 30)) add("limit-bytes is more than 1gb");
  auto prob = [&](const char* name, double v) {
    if (!(v >= 0 && v <= 1)) add(std::string(name) + " " + trim(v * 100) + "% is outside 0% .. 100%");
  };
  if (p.seed > kMaxLinkSeed)
    add("seed " + std::to_string(p.seed) + " is above " + std::to_string(kMaxLinkSeed) +
        " (2^63-1; a negative number sent as unsigned?)");
  prob("loss", p.loss);
  prob("duplicate", p.duplicate);
  prob("corrupt", p.corrupt);
  if (p.gilbert_elliott) {
    prob("gemodel p", p.ge_p);
    prob("gemodel r", p.ge_r);
    prob("gemodel 1-h", p.ge_loss_bad);
    prob("gemodel 1-k", p.ge_loss_good);
  }
  if (p.aqm != LinkParams::Aqm::kNone) {
    if (p.aqm != LinkParams::Aqm::kCoDel && p.aqm != LinkParams::Aqm::kCobalt &&
        p.aqm != LinkParams::Aqm::kRed && p.aqm != LinkParams::Aqm::kFqCoDel)
      add("aqm " + std::to_string(int(p.aqm)) + " is unknown");
    if (p.aqm_limit_packets > 1000000)
      add("aqm-limit " + std::to_string(p.aqm_limit_packets) + " is more than 1000000 packets");
    if (p.aqm_limit_bytes > (1ull << 30)) add("aqm-limit-bytes is more than 1gb");
    if (!p.aqm_limit_packets && !p.aqm_limit_bytes)
      add("aqm needs a limit: aqm-limit (packets) or aqm-limit-bytes");
    if (!p.aqm_target_ns || p.aqm_target_ns > kMaxTimeNs)
      add("target " + formatTime(p.aqm_target_ns) + " is outside 1ns .. 60s");
    if (!p.aqm_interval_ns || p.aqm_interval_ns > kMaxTimeNs)
      add("interval " + formatTime(p.aqm_interval_ns) + " is outside 1ns .. 60s");
    if (p.aqm_ce_threshold_ns > kMaxTimeNs)
      add("ce-threshold " + formatTime(p.aqm_ce_threshold_ns) + " is more than 60s");
    if (p.aqm_min_bytes > (1u << 30)) add("min-bytes is more than 1gb");
    prob("blue-increment", p.aqm_blue_increment);
    prob("blue-decrement", p.aqm_blue_decrement);
    if (p.aqm_blue_threshold_ns > kMaxTimeNs)
      add("blue-threshold " + formatTime(p.aqm_blue_threshold_ns) + " is more than 60s");
    if (p.aqm == LinkParams::Aqm::kRed)
      for (const std::string& m : redProblems(p.red)) add(m);
    detail::validateFqCoDel(p, add);
  }
  if (!e.empty()) return bad(e);
  return {};
}

std::vector<std::string> splitWords(std::string_view text, std::string_view separators) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : text) {
    if (separators.find(c) != std::string_view::npos) {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

Status applyLinkParamWords(const std::vector<std::string>& a, LinkParams* out) {
  LinkParams p = *out;
  auto need = [&](size_t i, const std::string& what) -> Status {
    if (i + 1 >= a.size()) return bad(a[i] + ": expects " + what);
    return {};
  };
  for (size_t i = 0; i < a.size(); ++i) {
    const std::string& k = a[i];
    Status st;
    if (k == "rate") {
      if (!(st = need(i, "a rate, e.g. 10mbit"))) return st;
      if (a[i + 1] == "unlimited") {
        p.rate_bps = 0;
      } else {
        auto v = parseRate(a[i + 1]);
        if (!v) return v.error();
        p.rate_bps = *v;
      }
      ++i;
    } else if (k == "overhead") {
      if (!(st = need(i, "bytes per frame, e.g. 24 or -12"))) return st;
      const std::string& w = a[++i];
      const bool minus = !w.empty() && w[0] == '-';
      auto v = parseSize(minus ? w.substr(1) : w);
      if (!v) return v.error();
      const int64_t n = int64_t(std::min<uint64_t>(*v, 1u << 20));
      p.overhead_bytes = int32_t(minus ? -n : n);
    } else if (k == "mpu") {
      if (!(st = need(i, "a minimum frame size, e.g. 60"))) return st;
      auto v = parseSize(a[++i]);
      if (!v) return v.error();
      p.mpu_bytes = uint32_t(std::min<uint64_t>(*v, 1u << 20));
    } else if (k == "delay" || k == "jitter") {
      if (!(st = need(i, "a time, e.g. 5ms"))) return st;
      auto v = parseTime(a[++i]);
      if (!v) return v.error();
      (k == "delay" ? p.delay_ns : p.jitter_ns) = *v;
    } else if (k == "distribution") {
      if (!(st = need(i, "uniform, normal or paretonormal"))) return st;
      auto v = parseJitterDistribution(a[++i]);
      if (!v) return v.error();
      p.jitter_dist = *v;
    } else if (k == "reorder") {
      p.reorder = true;
    } else if (k == "no-reorder") {
      p.reorder = false;
    } else if (k == "limit") {
      if (!(st = need(i, "a number of packets, e.g. 100"))) return st;
      char* end = nullptr;
      const long long v = std::strtoll(a[i + 1].c_str(), &end, 10);
      if (end == a[i + 1].c_str() || *end || v < 1 || v > 1000000)
        return bad("limit \"" + a[i + 1] + "\": expected 1 .. 1000000 packets");
      p.limit_packets = uint32_t(v);
      ++i;
    } else if (k == "limit-bytes") {
      if (!(st = need(i, "a size, e.g. 64kb"))) return st;
      auto v = parseSize(a[++i]);
      if (!v) return v.error();
      p.limit_bytes = *v;
    } else if (k == "loss" || k == "duplicate" || k == "corrupt") {
      if (!(st = need(i, "a percentage, e.g. 1%"))) return st;
      auto v = parseProbability(a[++i]);
      if (!v) return v.error();
      (k == "loss" ? p.loss : k == "duplicate" ? p.duplicate : p.corrupt) = *v;
      if (k == "loss") {
        // Bernoulli loss replaces Gilbert-Elliott: its values go back to their defaults, so
        // "gemodel ... loss X" reads as "loss X", whatever the order of the words.
        const LinkParams d;
        p.gilbert_elliott = false;
        p.ge_p = d.ge_p;
        p.ge_r = d.ge_r;
        p.ge_loss_bad = d.ge_loss_bad;
        p.ge_loss_good = d.ge_loss_good;
      }
    } else if (k == "gemodel") {
      // netem: gemodel p [r [1-h [1-k]]]
      if (!(st = need(i, "p [r [1-h [1-k]]], e.g. gemodel 1% 10%"))) return st;
      double v[4] = {0, -1, 1, 0};
      size_t n = 0;
      while (n < 4 && i + 1 < a.size()) {
        auto pr = parseProbability(a[i + 1]);
        if (!pr) break;
        v[n++] = *pr;
        ++i;
      }
      if (n == 0) return bad("gemodel: expects p [r [1-h [1-k]]] as percentages");
      p.gilbert_elliott = true;
      p.ge_p = v[0];
      p.ge_r = n >= 2 ? v[1] : 1 - v[0];  // netem: r defaults to 1 - p
      p.ge_loss_bad = v[2];
      p.ge_loss_good = v[3];
      p.loss = 0;
    } else if (k == "seed") {
      if (!(st = need(i, "a number"))) return st;
      auto v = parseSeed(a[i + 1]);
      if (!v) return v.error();
      p.seed = *v;
      ++i;
    } else if (k == "aqm") {
      if (!(st = need(i, "none, codel, cobalt, red or fq_codel"))) return st;
      auto v = parseAqm(a[++i]);
      if (!v) return v.error();
      p.aqm = *v;
    } else if (k == "aqm-limit") {
      if (!(st = need(i, "a number of packets, e.g. 1000"))) return st;
      char* end = nullptr;
      const long long v = std::strtoll(a[i + 1].c_str(), &end, 10);
      if (end == a[i + 1].c_str() || *end || v < 1 || v > 1000000)
        return bad("aqm-limit \"" + a[i + 1] + "\": expected 1 .. 1000000 packets");
      p.aqm_limit_packets = uint32_t(v);  // one unit, as ns-3's MaxSize
      p.aqm_limit_bytes = 0;
      ++i;
    } else if (k == "aqm-limit-bytes") {
      if (!(st = need(i, "a size, e.g. 1500kb"))) return st;
      auto v = parseSize(a[++i]);
      if (!v) return v.error();
      p.aqm_limit_bytes = *v;
      p.aqm_limit_packets = 0;
    } else if (k == "target" || k == "interval" || k == "ce-threshold") {
      if (!(st = need(i, "a time, e.g. 5ms"))) return st;
      auto v = parseTime(a[++i]);
      if (!v) return v.error();
      (k == "target" ? p.aqm_target_ns : k == "interval" ? p.aqm_interval_ns
                                                         : p.aqm_ce_threshold_ns) = *v;
    } else if (k == "blue-increment" || k == "blue-decrement") {
      if (!(st = need(i, "a probability, e.g. 0.4%"))) return st;
      auto v = parseProbability(a[++i]);
      if (!v) return v.error();
      (k == "blue-increment" ? p.aqm_blue_increment : p.aqm_blue_decrement) = *v;
    } else if (k == "blue-threshold") {
      if (!(st = need(i, "a time, e.g. 400ms"))) return st;
      auto v = parseTime(a[++i]);
      if (!v) return v.error();
      p.aqm_blue_threshold_ns = *v;
    } else if (k == "min-bytes") {
      if (!(st = need(i, "a size, e.g. 1500"))) return st;
      auto v = parseSize(a[++i]);
      if (!v) return v.error();
      p.aqm_min_bytes = uint32_t(std::min<uint64_t>(*v, 1ull << 31));
    } else if (auto red = applyRedWord(a, i, &p.red); !red || *red) {
      if (!red) return red.error();
      i += *red - 1;
    } else if (k == "ecn") {
      p.aqm_ecn = true;
    } else if (k == "no-ecn") {
      p.aqm_ecn = false;
    } else if (std::string fq_err; detail::applyFqCoDelWord(a, &i, &p, &fq_err)) {
      if (!fq_err.empty()) return bad(fq_err);
    } else {
      return bad("unknown link parameter \"" + k +
                 "\" (rate overhead delay jitter distribution reorder limit limit-bytes loss "
                 "gemodel duplicate corrupt seed aqm aqm-limit aqm-limit-bytes target interval "
                 "min-bytes ecn no-ecn ce-threshold blue-increment blue-decrement "
                  "blue-threshold flows quantum drop-batch perturbation set-ways "
                  "set-associative no-set-associative " + kRedWords + ")");
    }
  }
  if (auto st = validateLinkParams(p); !st) return st;
  *out = p;
  return {};
}

std::string formatLinkParams(const LinkParams& p, LinkParamsWords which) {
  // Every word is one applyLinkParamWords reads back to the same value: the property
  // test in link_params_test holds the two to that.
  const bool all = which == LinkParamsWords::kAll;
  const LinkParams d;
  std::string s;
  auto add = [&](const std::string& w) { s += (s.empty() ? "" : " ") + w; };
  if (all || p.rate_bps != d.rate_bps) add("rate " + formatRate(p.rate_bps));
  if (p.overhead_bytes) add("overhead " + std::to_string(p.overhead_bytes));
  if (p.mpu_bytes) add("mpu " + std::to_string(p.mpu_bytes));
  if (all || p.delay_ns != d.delay_ns) add("delay " + formatTime(p.delay_ns));
  if (p.jitter_ns) add("jitter " + formatTime(p.jitter_ns));
  if (p.jitter_dist != d.jitter_dist)
    add(std::string("distribution ") + jitterDistributionName(p.jitter_dist));
  if (p.reorder) add("reorder");
  if (all || p.limit_packets != d.limit_packets) add("limit " + std::to_string(p.limit_packets));
  if (p.limit_bytes) add("limit-bytes " + std::to_string(p.limit_bytes));
  if (p.gilbert_elliott)
    add("gemodel " + formatProbability(p.ge_p) + " " + formatProbability(p.ge_r) + " " +
        formatProbability(p.ge_loss_bad) + " " + formatProbability(p.ge_loss_good));
  else if (p.loss > 0)
    add("loss " + formatProbability(p.loss));
  if (p.duplicate > 0) add("duplicate " + formatProbability(p.duplicate));
  if (p.corrupt > 0) add("corrupt " + formatProbability(p.corrupt));
  if (p.seed) add("seed " + std::to_string(p.seed));
  if (p.aqm != d.aqm) {
    // The discipline's values only while one is on; all of them with kAll.
    add(std::string("aqm ") + aqmName(p.aqm));
    if (all || p.aqm_limit_packets != d.aqm_limit_packets || p.aqm_limit_bytes != d.aqm_limit_bytes)
      add(p.aqm_limit_packets ? "aqm-limit " + std::to_string(p.aqm_limit_packets)
                              : "aqm-limit-bytes " + std::to_string(p.aqm_limit_bytes));
    if (all || p.aqm_target_ns != d.aqm_target_ns) add("target " + formatTime(p.aqm_target_ns));
    if (all || p.aqm_interval_ns != d.aqm_interval_ns)
      add("interval " + formatTime(p.aqm_interval_ns));
    if (p.aqm_min_bytes != d.aqm_min_bytes) add("min-bytes " + std::to_string(p.aqm_min_bytes));
    if (p.aqm_ecn) add("ecn");
    if (p.aqm_ce_threshold_ns) add("ce-threshold " + formatTime(p.aqm_ce_threshold_ns));
    if (p.aqm_blue_increment != d.aqm_blue_increment)
      add("blue-increment " + formatProbability(p.aqm_blue_increment));
    if (p.aqm_blue_decrement != d.aqm_blue_decrement)
      add("blue-decrement " + formatProbability(p.aqm_blue_decrement));
    if (p.aqm_blue_threshold_ns != d.aqm_blue_threshold_ns)
      add("blue-threshold " + formatTime(p.aqm_blue_threshold_ns));
    if (p.aqm == LinkParams::Aqm::kRed)
      if (const std::string w = formatRedWords(p.red, all); !w.empty()) add(w);
    if (const std::string fq = detail::formatFqCoDel(p, all); !fq.empty()) add(fq);
  }
  return s;
}

}  // namespace fastpath
