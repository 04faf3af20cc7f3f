// SPDX-License-Identifier: GPL-2.0-only
#include "link_params_fq.h"

#include <cstdlib>

namespace fastpath::detail {
namespace {

// A whole decimal number in [lo, hi]; false otherwise.
bool whole(const std::string& w, uint64_t lo, uint64_t hi, uint32_t* out) {
  if (w.empty() || w[0] == '-' || w[0] == '+') return false;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(w.c_str(), &end, 10);
  if (end == w.c_str() || *end || v < lo || v > hi) return false;
  *out = uint32_t(v);
  return true;
}

}  // namespace

bool applyFqCoDelWord(const std::vector<std::string>& a, size_t* i, LinkParams* p,
                      std::string* err) {
  const std::string& k = a[*i];
  if (k == "set-associative" || k == "no-set-associative") {
    p->aqm_fq_set_associative = k == "set-associative";
    return true;
  }
  struct Word {
    const char* name;
    uint32_t LinkParams::*field;
    uint64_t lo, hi;
    const char* example;
  };
  static constexpr Word kWords[] = {
      {"flows", &LinkParams::aqm_fq_flows, 1, 65536, "1024"},
      {"quantum", &LinkParams::aqm_fq_quantum, 1, 65536, "1500"},
      {"drop-batch", &LinkParams::aqm_fq_drop_batch, 1, 65536, "64"},
      {"perturbation", &LinkParams::aqm_fq_perturbation, 0, 0xffffffffull, "0"},
      {"set-ways", &LinkParams::aqm_fq_set_ways, 1, 65536, "8"},
  };
  for (const Word& w : kWords) {
    if (k != w.name) continue;
    if (*i + 1 >= a.size()) {
      *err = k + ": expects a number, e.g. " + w.example;
      return true;
    }
    const std::string& v = a[++*i];
    if (!whole(v, w.lo, w.hi, &(p->*w.field)))
      *err = k + " \"" + v + "\": expected " + std::to_string(w.lo) + " .. " +
             std::to_string(w.hi);
    return true;
  }
  return false;
}

std::string formatFqCoDel(const LinkParams& p, bool all) {
  if (p.aqm != LinkParams::Aqm::kFqCoDel) return {};
  const LinkParams d;
  std::string s;
  auto add = [&](const std::string& w) { s += (s.empty() ? "" : " ") + w; };
  if (all || p.aqm_fq_flows != d.aqm_fq_flows) add("flows " + std::to_string(p.aqm_fq_flows));
  if (all || p.aqm_fq_quantum != d.aqm_fq_quantum)
    add("quantum " + std::to_string(p.aqm_fq_quantum));
  if (all || p.aqm_fq_drop_batch != d.aqm_fq_drop_batch)
    add("drop-batch " + std::to_string(p.aqm_fq_drop_batch));
  if (p.aqm_fq_perturbation) add("perturbation " + std::to_string(p.aqm_fq_perturbation));
  if (p.aqm_fq_set_ways != d.aqm_fq_set_ways)
    add("set-ways " + std::to_string(p.aqm_fq_set_ways));
  if (p.aqm_fq_set_associative) add("set-associative");
  return s;
}

}  // namespace fastpath::detail
