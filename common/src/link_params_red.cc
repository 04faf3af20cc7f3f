// SPDX-License-Identifier: GPL-2.0-only
#include "link_params_red.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>

namespace fastpath {
namespace {

constexpr uint64_t kMaxTimeNs = 60ull * 1000000000ull;

Error bad(const std::string& m) { return makeError(-EINVAL, m); }

/// The shortest text that reads back to the same double.
std::string num(double v) {
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

bool readDouble(const std::string& s, double* v) {
  char* end = nullptr;
  *v = std::strtod(s.c_str(), &end);
  return end != s.c_str() && !*end && std::isfinite(*v);
}

}  // namespace

bool LinkParams::Red::operator==(const Red& o) const {
  return min_th == o.min_th && max_th == o.max_th && qw == o.qw && l_interm == o.l_interm &&
         gentle == o.gentle && mean_pkt_size == o.mean_pkt_size && wait == o.wait &&
         hard_drop == o.hard_drop && ns1_compat == o.ns1_compat && ared == o.ared &&
         adapt_max_p == o.adapt_max_p && interval_ns == o.interval_ns &&
         target_ns == o.target_ns && alpha == o.alpha && beta == o.beta && top == o.top &&
         bottom == o.bottom && last_set_ns == o.last_set_ns && rtt_ns == o.rtt_ns &&
         feng == o.feng && feng_alpha == o.feng_alpha && feng_beta == o.feng_beta &&
         nonlinear == o.nonlinear && link_bps == o.link_bps && link_delay_ns == o.link_delay_ns;
}

std::vector<std::string> redProblems(const LinkParams::Red& r) {
  std::vector<std::string> e;
  const bool automatic = r.min_th == 0 && r.max_th == 0;
  if (!(r.min_th >= 0 && r.max_th >= 0 && r.min_th <= r.max_th && r.max_th <= 1e9))
    e.push_back("red-min " + num(r.min_th) + " and red-max " + num(r.max_th) +
                ": need 0 <= red-min <= red-max <= 1e9 (both 0: set from the link)");
  if (!(r.qw == 0 || r.qw == -1 || r.qw == -2 || (r.qw > 0 && r.qw <= 1)))
    e.push_back("red-qw " + num(r.qw) + ": use a weight in (0, 1], or 0, -1, -2 (from the link)");
  if (!(r.l_interm >= 1 && r.l_interm <= 1e9))
    e.push_back("red-linterm " + num(r.l_interm) + " is outside 1 .. 1e9");
  if (r.mean_pkt_size < 1 || r.mean_pkt_size > 65535)
    e.push_back("red-mean-size " + std::to_string(r.mean_pkt_size) + " is outside 1 .. 65535");
  if (!r.interval_ns || r.interval_ns > kMaxTimeNs)
    e.push_back("red-interval " + formatTime(r.interval_ns) + " is outside 1ns .. 60s");
  if (r.target_ns > kMaxTimeNs) e.push_back("red-target " + formatTime(r.target_ns) + " is more than 60s");
  if (r.last_set_ns > kMaxTimeNs) e.push_back("red-last-set is more than 60s");
  if (r.rtt_ns > kMaxTimeNs) e.push_back("red-rtt is more than 60s");
  auto prob = [&](const char* n, double v) {
    if (!(v >= 0 && v <= 1)) e.push_back(std::string(n) + " " + num(v) + " is outside 0 .. 1");
  };
  prob("red-alpha", r.alpha);
  prob("red-beta", r.beta);
  prob("red-top", r.top);
  prob("red-bottom", r.bottom);
  if (!(r.feng_alpha >= 1 && r.feng_alpha <= 1e6))
    e.push_back("feng-alpha " + num(r.feng_alpha) + " is outside 1 .. 1e6");
  if (!(r.feng_beta >= 1 && r.feng_beta <= 1e6))
    e.push_back("feng-beta " + num(r.feng_beta) + " is outside 1 .. 1e6");
  if ((r.ared || r.adapt_max_p) && r.feng)
    e.push_back("ared/adapt-max-p and feng adapt the maximum probability both: choose one");
  // The automatic settings need the link's rate (ns-3: packets per second from it).
  if ((automatic || r.ared || r.qw <= 0) && r.link_bps == 0)
    e.push_back("red-link-rate 0: the automatic thresholds and weight need the link's rate");
  if (r.link_bps > 1000000000000ull) e.push_back("red-link-rate is more than 1tbit");
  if (r.link_delay_ns > kMaxTimeNs) e.push_back("red-link-delay is more than 60s");
  return e;
}

Result<size_t> applyRedWord(const std::vector<std::string>& a, size_t i, LinkParams::Red* r) {
  const std::string& k = a[i];
  // Flags: one word.
  struct Flag {
    const char* word;
    bool LinkParams::Red::*field;
    bool value;
  };
  static const Flag flags[] = {
      {"red-gentle", &LinkParams::Red::gentle, true},
      {"red-no-gentle", &LinkParams::Red::gentle, false},
      {"red-wait", &LinkParams::Red::wait, true},
      {"red-no-wait", &LinkParams::Red::wait, false},
      {"red-hard-drop", &LinkParams::Red::hard_drop, true},
      {"red-no-hard-drop", &LinkParams::Red::hard_drop, false},
      {"red-ns1", &LinkParams::Red::ns1_compat, true},
      {"ared", &LinkParams::Red::ared, true},
      {"adapt-max-p", &LinkParams::Red::adapt_max_p, true},
      {"feng", &LinkParams::Red::feng, true},
      {"nlred", &LinkParams::Red::nonlinear, true},
  };
  for (const Flag& f : flags)
    if (k == f.word) {
      r->*f.field = f.value;
      return size_t(1);
    }
  struct Number {
    const char* word;
    double LinkParams::Red::*field;
  };
  static const Number numbers[] = {
      {"red-min", &LinkParams::Red::min_th},     {"red-max", &LinkParams::Red::max_th},
      {"red-qw", &LinkParams::Red::qw},          {"red-linterm", &LinkParams::Red::l_interm},
      {"red-alpha", &LinkParams::Red::alpha},    {"red-beta", &LinkParams::Red::beta},
      {"red-top", &LinkParams::Red::top},        {"red-bottom", &LinkParams::Red::bottom},
      {"feng-alpha", &LinkParams::Red::feng_alpha}, {"feng-beta", &LinkParams::Red::feng_beta},
  };
  struct Time {
    const char* word;
    uint64_t LinkParams::Red::*field;
  };
  static const Time times[] = {
      {"red-interval", &LinkParams::Red::interval_ns}, {"red-target", &LinkParams::Red::target_ns},
      {"red-last-set", &LinkParams::Red::last_set_ns}, {"red-rtt", &LinkParams::Red::rtt_ns},
      {"red-link-delay", &LinkParams::Red::link_delay_ns},
  };
  const bool valued = k == "red-mean-size" || k == "red-link-rate";
  bool known = valued;
  for (const Number& n : numbers) known |= k == n.word;
  for (const Time& t : times) known |= k == t.word;
  if (!known) return size_t(0);
  if (i + 1 >= a.size()) return bad(k + ": expects a value");
  const std::string& v = a[i + 1];
  for (const Number& n : numbers)
    if (k == n.word) {
      double d;
      if (!readDouble(v, &d)) return bad(k + " \"" + v + "\": expected a number, e.g. 0.002");
      r->*n.field = d;
      return size_t(2);
    }
  for (const Time& t : times)
    if (k == t.word) {
      auto ns = parseTime(v);
      if (!ns) return ns.error();
      r->*t.field = *ns;
      return size_t(2);
    }
  if (k == "red-link-rate") {
    auto bps = parseRate(v);
    if (!bps) return bps.error();
    r->link_bps = *bps;
    return size_t(2);
  }
  char* end = nullptr;
  const long long n = std::strtoll(v.c_str(), &end, 10);
  if (end == v.c_str() || *end || n < 1 || n > 65535)
    return bad("red-mean-size \"" + v + "\": expected 1 .. 65535 bytes");
  r->mean_pkt_size = uint32_t(n);
  return size_t(2);
}

std::string formatRedWords(const LinkParams::Red& r, bool all) {
  const LinkParams::Red d;
  std::string s;
  auto add = [&](const std::string& w) { s += (s.empty() ? "" : " ") + w; };
  if (all || r.min_th != d.min_th) add("red-min " + num(r.min_th));
  if (all || r.max_th != d.max_th) add("red-max " + num(r.max_th));
  if (all || r.qw != d.qw) add("red-qw " + num(r.qw));
  if (all || r.l_interm != d.l_interm) add("red-linterm " + num(r.l_interm));
  if (all || r.gentle != d.gentle) add(r.gentle ? "red-gentle" : "red-no-gentle");
  if (all || r.mean_pkt_size != d.mean_pkt_size)
    add("red-mean-size " + std::to_string(r.mean_pkt_size));
  if (all || r.wait != d.wait) add(r.wait ? "red-wait" : "red-no-wait");
  if (all || r.hard_drop != d.hard_drop) add(r.hard_drop ? "red-hard-drop" : "red-no-hard-drop");
  if (r.ns1_compat) add("red-ns1");
  if (r.ared) add("ared");
  if (r.adapt_max_p) add("adapt-max-p");
  if (r.feng) add("feng");
  if (r.nonlinear) add("nlred");
  const bool adaptive = r.ared || r.adapt_max_p;
  if (all || r.interval_ns != d.interval_ns) add("red-interval " + formatTime(r.interval_ns));
  if (all || r.target_ns != d.target_ns) add("red-target " + formatTime(r.target_ns));
  if (all || adaptive || r.alpha != d.alpha) add("red-alpha " + num(r.alpha));
  if (all || adaptive || r.beta != d.beta) add("red-beta " + num(r.beta));
  if (all || r.top != d.top) add("red-top " + num(r.top));
  if (all || r.bottom != d.bottom) add("red-bottom " + num(r.bottom));
  if (r.last_set_ns != d.last_set_ns) add("red-last-set " + formatTime(r.last_set_ns));
  if (r.rtt_ns != d.rtt_ns) add("red-rtt " + formatTime(r.rtt_ns));
  if (all || r.feng || r.feng_alpha != d.feng_alpha) add("feng-alpha " + num(r.feng_alpha));
  if (all || r.feng || r.feng_beta != d.feng_beta) add("feng-beta " + num(r.feng_beta));
  if (all || r.link_bps != d.link_bps) add("red-link-rate " + formatRate(r.link_bps));
  if (all || r.link_delay_ns != d.link_delay_ns)
    add("red-link-delay " + formatTime(r.link_delay_ns));
  return s;
}

}  // namespace fastpath
