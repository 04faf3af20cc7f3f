// SPDX-License-Identifier: GPL-2.0-only
#include "fidelity_scenarios.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <utility>

namespace fastpath::fidelity {

std::vector<Scenario> allScenarios(double scale) {
  auto n = [scale](double frames) { return uint64_t(std::max(50.0, std::round(frames * scale))); };
  std::vector<Scenario> v;
  // Light load: Poisson arrivals at 1,000 frames/s (no phase lock between sending and the
  // delay), 160-byte frames; the same for the 1,470-byte baseline of the flows scenario.
  for (uint32_t len : {160u, 1470u}) {
    Scenario s;
    s.name = "baseline-" + std::to_string(len);
    s.kind = "baseline";
    s.frame_len = len;
    s.pps = 1000;
    s.frames = n(10000);
    s.pattern = Scenario::Pattern::kPoisson;
    v.push_back(s);
  }
  for (const char* d : {"100us", "1ms", "10ms", "100ms"}) {
    Scenario s;
    s.name = std::string("delay-") + d;
    s.kind = "delay";
    s.words = {"delay", d};
    s.frame_len = 160;
    s.pps = 1000;
    s.frames = n(10000);
    s.pattern = Scenario::Pattern::kPoisson;
    v.push_back(s);
  }
  // Rate: 1,470-byte frames offered at 1.2x the rate (frame + 24 bytes of Ethernet
  // overhead, as configured), delay 1 ms. The drop-tail queue holds 50 ms of the link (at
  // least ns-3's 100 frames), so that a sender descheduled for a few milliseconds on the
  // shared CPU does not leave the link idle: what D receives is then the link's rate.
  for (auto [r, bps] :
       {std::pair{"1mbit", 1e6}, {"10mbit", 1e7}, {"100mbit", 1e8}, {"1gbit", 1e9}}) {
    Scenario s;
    s.name = std::string("rate-") + r;
    s.kind = "rate";
    const uint64_t limit = std::max<uint64_t>(100, uint64_t(0.05 * bps / ((1470 + 24) * 8.0)));
    s.words = {"rate", r, "overhead", "24", "delay", "1ms", "limit", std::to_string(limit)};
    s.frame_len = 1470;
    s.pps = 1.2 * bps / ((1470 + 24) * 8.0);
    s.frames = n(std::ceil(s.pps * 4.0));  // 4 s
    s.max_batch = 32;
    v.push_back(s);
  }
  for (const char* l : {"0.1%", "1%", "10%"}) {
    Scenario s;
    s.name = std::string("loss-") + l;
    s.kind = "loss";
    s.words = {"loss", l, "seed", "1"};
    s.frame_len = 160;
    s.pps = 50000;
    s.frames = n(100000);
    s.max_batch = 32;
    v.push_back(s);
  }
  {
    Scenario s;
    s.name = "gemodel-1%-25%";
    s.kind = "gemodel";
    s.words = {"gemodel", "1%", "25%", "seed", "1"};
    s.frame_len = 160;
    s.pps = 50000;
    s.frames = n(200000);
    s.max_batch = 32;
    v.push_back(s);
  }
  {
    // 16 flows, each periodic at 1/16 of 90 % of the rate, phases drawn at random.
    Scenario s;
    s.name = "flows16-100mbit";
    s.kind = "flows";
    s.words = {"rate", "100mbit", "overhead", "24", "delay", "10ms"};
    s.frame_len = 1470;
    s.flows = 16;
    s.pps = 0.9 * 1e8 / ((1470 + 24) * 8.0);
    s.frames = n(std::ceil(s.pps * 5.0));  // 5 s
    s.pattern = Scenario::Pattern::kRandomPhase;
    v.push_back(s);
  }
  {
    // No traffic: how late a thread like the worker (its CPU, its priority, timer slack 1 ns)
    // wakes from ppoll() with a timeout, which is how the worker waits for an emulated
    // arrival more than emulation_spin_ns (50 us) away: it sleeps until 25 us before it.
    Scenario s;
    s.name = "timer-wakeup";
    s.kind = "timer";
    s.frames = n(3000);
    s.pps = 0;
    v.push_back(s);
  }
  return v;
}

const char* patternName(Scenario::Pattern p) {
  return p == Scenario::Pattern::kPoisson    ? "poisson"
         : p == Scenario::Pattern::kPeriodic ? "periodic"
                                             : "random-phase";
}

Schedule makeSchedule(const Scenario& s) {
  Schedule out;
  out.due_ns.reserve(s.frames);
  out.flow.reserve(s.frames);
  std::mt19937_64 rng(0x66696465 + s.frames);
  const double gap = 1e9 / s.pps;
  switch (s.pattern) {
    case Scenario::Pattern::kPeriodic:
      for (uint64_t i = 0; i < s.frames; ++i) {
        out.due_ns.push_back(uint64_t(double(i) * gap));
        out.flow.push_back(uint16_t(i % s.flows));
      }
      break;
    case Scenario::Pattern::kPoisson: {
      std::exponential_distribution<double> e(1.0 / gap);
      double t = 0;
      for (uint64_t i = 0; i < s.frames; ++i) {
        out.due_ns.push_back(uint64_t(t));
        out.flow.push_back(uint16_t(i % s.flows));
        t += e(rng);
      }
      break;
    }
    case Scenario::Pattern::kRandomPhase: {
      const double period = gap * s.flows;
      std::uniform_real_distribution<double> u(0, period);
      std::vector<std::pair<uint64_t, uint16_t>> all;
      const uint64_t per_flow = s.frames / s.flows;
      for (uint32_t f = 0; f < s.flows; ++f) {
        const double phase = u(rng);
        for (uint64_t k = 0; k < per_flow; ++k)
          all.emplace_back(uint64_t(phase + double(k) * period), uint16_t(f));
      }
      std::sort(all.begin(), all.end());
      for (const auto& [t, f] : all) {
        out.due_ns.push_back(t);
        out.flow.push_back(f);
      }
      break;
    }
  }
  return out;
}

}  // namespace fastpath::fidelity
