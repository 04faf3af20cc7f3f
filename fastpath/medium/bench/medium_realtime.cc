// SPDX-License-Identifier: GPL-2.0-only
// The radio medium in real time with mobile members: a control thread moves N members
// (random waypoint in an area, Friis at 2.4 GHz) and applies, every 1/update-hz s, one batch
// of the pairs whose received power moved by the threshold or more (as FastPathWifiHelper
// hands them); a data thread offers traffic (every member a broadcast HELLO per second, CBR
// unicast flows) and runs the model on the steady clock in a polling loop, as a worker does.
// Each delivery's lateness (the loop's time when the model handed it over, minus its due
// time) goes into a histogram: the emulation keeps up while the p99 stays small.
//
//   fp_medium_realtime [--nodes 200] [--seconds 20] [--update-hz 10] [--flows 20]
//                      [--rate 4] [--threshold-db 1]
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "medium/radio_medium.h"

namespace fastpath::medium {
namespace {

uint64_t nowNs() {
  return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                      std::chrono::steady_clock::now().time_since_epoch())
                      .count());
}

struct Options {
  uint32_t nodes = 200, seconds = 20, update_hz = 10, flows = 20;
  double rate = 4, threshold_db = 1;
};

/// Lateness in microseconds, one bucket per microsecond up to 10 ms.
struct LatenessSink : MediumSink {
  std::vector<uint64_t> hist = std::vector<uint64_t>(10001, 0);
  uint64_t now = 0, delivered = 0, finished = 0, max_ns = 0;
  void deliver(uint64_t, uint32_t, uint64_t due_ns) override {
    const uint64_t late = now > due_ns ? now - due_ns : 0;
    max_ns = std::max(max_ns, late);
    ++hist[std::min<uint64_t>(late / 1000, hist.size() - 1)];
    ++delivered;
  }
  void done(uint64_t, uint32_t, TxOutcome) override { ++finished; }
  double percentileUs(double q) const {
    const uint64_t want = uint64_t(std::ceil(q * double(delivered)));
    uint64_t seen = 0;
    for (size_t i = 0; i < hist.size(); ++i)
      if ((seen += hist[i]) >= want && want > 0) return double(i);
    return 0;
  }
};

struct Mobility {
  struct Node {
    double x, y, tx, ty, speed;
  };
  std::vector<Node> nodes;
  std::mt19937_64 rng{7};
  explicit Mobility(uint32_t n) : nodes(n) {
    for (auto& v : nodes) {
      v.x = pos(1500);
      v.y = pos(300);
      pick(v);
    }
  }
  double pos(double max) { return std::uniform_real_distribution<double>(0, max)(rng); }
  void pick(Node& v) {
    v.tx = pos(1500);
    v.ty = pos(300);
    v.speed = std::uniform_real_distribution<double>(1, 20)(rng);  // manet-routing-compare's
  }
  void step(double dt) {
    for (auto& v : nodes) {
      const double dx = v.tx - v.x, dy = v.ty - v.y, d = std::hypot(dx, dy);
      const double go = v.speed * dt;
      if (d <= go) {
        v.x = v.tx;
        v.y = v.ty;
        pick(v);
      } else {
        v.x += dx / d * go;
        v.y += dy / d * go;
      }
    }
  }
  /// Friis at 2.4 GHz, 7.5 dBm (manet-routing-compare's radio).
  double rxDbm(uint32_t a, uint32_t b) const {
    const double d = std::max(1.0, std::hypot(nodes[a].x - nodes[b].x, nodes[a].y - nodes[b].y));
    const double lambda = 299792458.0 / 2.412e9;
    return 7.5 - 20 * std::log10(4 * M_PI * d / lambda);
  }
};

int run(const Options& o) {
  MediumPhy phy;
  RadioMedium m(phy, o.nodes, 1);
  Mobility mob(o.nodes);
  std::vector<double> sent(size_t(o.nodes) * o.nodes, 1e9);
  auto batch = [&](bool all) {
    std::vector<IndexedPair> b;
    for (uint32_t a = 0; a < o.nodes; ++a)
      for (uint32_t k = 0; k < o.nodes; ++k) {
        if (a == k) continue;
        const double dbm = mob.rxDbm(a, k);
        double& last = sent[size_t(a) * o.nodes + k];
        if (all || std::fabs(dbm - last) >= o.threshold_db) {
          b.push_back({a, k, dbm, false});
          last = dbm;
        }
      }
    return b;
  };
  m.pairs().apply(batch(true), true);

  std::atomic<bool> stop{false};
  std::vector<size_t> batch_sizes;
  std::vector<double> apply_us;
  std::thread control([&] {
    const auto period = std::chrono::nanoseconds(1000000000ull / o.update_hz);
    auto next = std::chrono::steady_clock::now() + period;
    while (!stop.load()) {
      std::this_thread::sleep_until(next);
      next += period;
      mob.step(1.0 / o.update_hz);
      const uint64_t t0 = nowNs();
      const auto b = batch(false);
      m.pairs().apply(b, false);
      m.pairs().reclaim();
      apply_us.push_back(double(nowNs() - t0) / 1000);
      batch_sizes.push_back(b.size());
    }
  });

  // Traffic: a HELLO per member per second (jittered), `flows` CBR flows of 512 bytes.
  struct Source {
    uint32_t from;
    int32_t to;
    uint32_t bytes;
    uint64_t period_ns, next_ns;
  };
  std::mt19937_64 rng(11);
  std::vector<Source> sources;
  const uint64_t start = nowNs() + 1000000;
  for (uint32_t i = 0; i < o.nodes; ++i)
    sources.push_back({i, kBroadcast, 100, 1000000000ull, start + rng() % 1000000000ull});
  for (uint32_t f = 0; f < o.flows; ++f) {
    const uint32_t a = uint32_t(rng() % o.nodes);
    const uint32_t b = (a + 1 + uint32_t(rng() % (o.nodes - 1))) % o.nodes;
    sources.push_back({a, int32_t(b), 512 + 42, uint64_t(1e9 / o.rate), start + rng() % 100000000});
  }
  LatenessSink sink;
  uint64_t cookie = 0, offered = 0;
  const uint64_t end = start + uint64_t(o.seconds) * 1000000000ull;
  for (uint64_t now = nowNs(); now < end; now = nowNs()) {
    sink.now = now;
    for (auto& s : sources)
      while (s.next_ns <= now) {
        m.send(now, s.from, s.to, s.bytes, cookie++, sink);
        ++offered;
        s.next_ns += s.period_ns;
      }
    if (m.nextEventNs() <= now) m.advance(now, sink);
  }
  stop.store(true);
  control.join();

  std::sort(batch_sizes.begin(), batch_sizes.end());
  std::sort(apply_us.begin(), apply_us.end());
  auto med = [](const auto& v) { return v.empty() ? 0.0 : double(v[v.size() / 2]); };
  std::printf("{\"nodes\": %u, \"seconds\": %u, \"update_hz\": %u, \"batches\": %zu, "
              "\"pairs_per_batch_median\": %.0f, \"apply_us_median\": %.1f, "
              "\"apply_us_max\": %.1f, \"offered\": %llu, \"delivered\": %llu, "
              "\"lateness_p50_us\": %.0f, \"lateness_p99_us\": %.0f, "
              "\"lateness_p999_us\": %.0f, \"lateness_max_us\": %.1f}\n",
              o.nodes, o.seconds, o.update_hz, batch_sizes.size(), med(batch_sizes),
              med(apply_us), apply_us.empty() ? 0.0 : apply_us.back(),
              (unsigned long long)offered, (unsigned long long)sink.delivered,
              sink.percentileUs(0.5), sink.percentileUs(0.99), sink.percentileUs(0.999),
              double(sink.max_ns) / 1000);
  return 0;
}

}  // namespace
}  // namespace fastpath::medium

int main(int argc, char** argv) {
  fastpath::medium::Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) {
      std::fprintf(stderr, "fp_medium_realtime: %s needs a value (see the file's header)\n",
                   a.c_str());
      return 2;
    }
    const double v = std::atof(argv[++i]);
    if (a == "--nodes" && v >= 2 && v <= 1024) o.nodes = uint32_t(v);
    else if (a == "--seconds" && v >= 1) o.seconds = uint32_t(v);
    else if (a == "--update-hz" && v >= 1 && v <= 1000) o.update_hz = uint32_t(v);
    else if (a == "--flows" && v >= 0) o.flows = uint32_t(v);
    else if (a == "--rate" && v > 0) o.rate = v;
    else if (a == "--threshold-db" && v >= 0) o.threshold_db = v;
    else {
      std::fprintf(stderr, "fp_medium_realtime: bad option %s %s (nodes 2..1024, seconds >= 1, "
                           "update-hz 1..1000, flows >= 0, rate > 0, threshold-db >= 0)\n",
                   a.c_str(), argv[i]);
      return 2;
    }
  }
  return fastpath::medium::run(o);
}
