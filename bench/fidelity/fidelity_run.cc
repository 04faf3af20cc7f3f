// SPDX-License-Identifier: GPL-2.0-only
#include "fidelity_run.h"

#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <random>
#include <thread>

#include "bench_common.h"
#include "daemon/napi_threads.h"
#include "fastpath/link_params.h"
#include "fidelity_output.h"
#include "fidelity_traffic.h"
#include "two_node_link.h"

namespace fastpath::fidelity {

namespace {

const char* kLinkName = "l1";

Config daemonConfig(const Testbed& tb, int worker_cpu, int rt_priority, int idle_poll_us) {
  testing::TwoNodeLink t;
  t.link = kLinkName;
  t.a_mac = MacAddress::parse("02:66:69:00:00:01").value();
  t.b_mac = MacAddress::parse("02:66:69:00:00:02").value();
  t.via = IpAddress::parse("198.19.0.2").value();
  t.dst = IpPrefix::parse("198.18.1.0/24").value();
  t.d_ip = IpAddress::parse("198.18.1.2").value();
  t.d_mac = tb.d_mac;
  t.control_socket = "/tmp/fp-fid-" + std::to_string(getpid()) + ".sock";
  Config c = testing::twoNodeLinkConfig(t);
  c.cores = {worker_cpu};
  c.rt_priority = rt_priority;
  if (idle_poll_us >= 0) c.idle_poll_us = uint32_t(idle_poll_us);
  c.log_level = LogLevel::kError;  // libbpf's notes on every start would drown the output
  return c;
}

LinkInfo linkInfo(Daemon& d) {
  for (const auto& l : d.links())
    if (l.name == kLinkName) return l;
  return {};
}

// The timer wake-up probe: `sc.frames` sleeps of 100 us .. 2 ms (uniform) in ppoll() on the
// worker's CPU with the worker's scheduling; lateness = woken - asked.
Status runTimerProbe(const Options& opt, const Scenario& sc, std::ofstream& jsonl) {
  std::printf("== %s: %llu ppoll() sleeps of 100 us .. 2 ms on CPU %d, %s\n", sc.name.c_str(),
              (unsigned long long)sc.frames, opt.worker_cpu,
              opt.rt_priority > 0 ? ("SCHED_FIFO " + std::to_string(opt.rt_priority)).c_str()
                                  : "normal scheduling (as the worker at --rt-priority auto here)");
  std::vector<uint64_t> late;
  late.reserve(sc.frames);
  int sched_err = 0;
  std::thread t([&] {
    bench::pinToCpu(opt.worker_cpu);
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
    if (opt.rt_priority > 0) {
      sched_param sp{};
      sp.sched_priority = opt.rt_priority;
      sched_err = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
    }
    std::mt19937_64 rng(7);
    std::uniform_int_distribution<uint64_t> u(100000, 2000000);
    const uint64_t end = bench::monoNs() + uint64_t(sc.frames) * 2100000ull + 1000000000ull;
    for (uint64_t i = 0; i < sc.frames && !stopRequested(); ++i) {
      const uint64_t d = u(rng), start = bench::monoNs();
      if (start > end) break;
      const timespec ts{time_t(d / 1000000000ull), long(d % 1000000000ull)};
      ppoll(nullptr, 0, &ts, nullptr);
      late.push_back(bench::monoNs() - (start + d));
    }
  });
  t.join();
  if (sched_err)
    return makeError(-sched_err,
                     "timer probe: SCHED_FIFO refused: " + std::string(std::strerror(sched_err)));
  const std::string file = "timer-" + sc.name + ".csv";
  FILE* f = std::fopen((opt.out + "/" + file).c_str(), "w");
  if (!f) return makeError(-errno, "cannot write " + opt.out + "/" + file);
  std::fprintf(f, "late_ns\n");
  for (uint64_t x : late) std::fprintf(f, "%llu\n", (unsigned long long)x);
  std::fclose(f);
  JsonObject j;
  j.str("name", sc.name)
      .str("kind", sc.kind)
      .num("samples", double(late.size()))
      .num("cpu", opt.worker_cpu)
      .num("rt_priority", opt.rt_priority > 0 ? opt.rt_priority : 0)
      .num("interrupted", stopRequested() ? 1 : 0)
      .str("timer_file", file);
  jsonl << j.done() << "\n";
  jsonl.flush();
  std::vector<uint64_t> sorted = late;
  std::sort(sorted.begin(), sorted.end());
  if (!sorted.empty())
    std::printf("   wake-up lateness p50 %.1f us, p99 %.1f us, max %.1f us\n",
                double(sorted[sorted.size() / 2]) / 1e3,
                double(sorted[std::min(sorted.size() - 1, sorted.size() * 99 / 100)]) / 1e3,
                double(sorted.back()) / 1e3);
  std::fflush(stdout);
  return {};
}

}  // namespace

Status runScenario(const Options& opt, Testbed& tb, const Scenario& sc, std::ofstream& jsonl) {
  if (sc.kind == "timer") return runTimerProbe(opt, sc, jsonl);
  std::string words;
  for (const auto& x : sc.words) words += (words.empty() ? "" : " ") + x;
  std::printf("== %s: %s, %u-byte frames, %.0f frames/s, %llu frames, %u flow(s)\n",
              sc.name.c_str(), words.empty() ? "no emulation" : words.c_str(), sc.frame_len, sc.pps,
              (unsigned long long)sc.frames, sc.flows);
  std::fflush(stdout);
  LinkParams params;
  if (auto st = applyLinkParamWords(sc.words, &params); !st)
    return makeError(st.error().code, sc.name + ": " + st.error().message);

  // A fresh daemon: the worker's lateness histogram then holds this scenario's frames only.
  const uint64_t t_start = bench::monoNs();
  bench::EnterNetns guard(tb.r);
  if (!guard.ok()) return makeError(-ENOENT, "cannot enter namespace " + tb.r);
  auto daemon =
      std::make_unique<Daemon>(daemonConfig(tb, opt.worker_cpu, opt.rt_priority, opt.idle_poll_us));
  if (auto st = daemon->start(); !st)
    return makeError(st.error().code, "fastpathd did not start: " + st.error().message);
  // R's receive work as the bench harness places it: threaded NAPI (a veth has one while
  // XDP is attached) on the worker's CPU at SCHED_FIFO, the precedence softirq has without
  // threading; in softirq it would wait behind whatever runs on the sender's CPU.
  std::vector<pid_t> napi;
  if (opt.napi_rt > 0) {
    for (const char* ifn : {"fp0", "fp1"})
      tb.topo->exec(tb.r, std::string("sh -c 'echo 1 > /sys/class/net/") + ifn + "/threaded'");
    if (auto t = findNapiThreads({"fp0", "fp1"}); t) napi = t->pids;
    for (pid_t pid : napi) {
      cpu_set_t set;
      CPU_ZERO(&set);
      CPU_SET(opt.worker_cpu, &set);
      sched_setaffinity(pid, sizeof(set), &set);
      sched_param sp{};
      sp.sched_priority = opt.napi_rt;
      sched_setscheduler(pid, SCHED_FIFO, &sp);
    }
  }
  if (opt.rt_priority == Config::kRtAuto) daemon->adjustRtPriority();  // as run() does each second
  const double start_s = double(bench::monoNs() - t_start) * 1e-9;

  std::vector<std::vector<uint8_t>> templates;
  for (uint32_t f = 0; f < sc.flows; ++f)
    templates.push_back(frameTemplate(tb.r0_mac, tb.s_mac, sc.frame_len, uint16_t(f)));
  // Warm-up through the unshaped link (first-touch costs, the worker awake once).
  {
    Schedule w;
    for (int i = 0; i < 50; ++i) {
      w.due_ns.push_back(uint64_t(i) * 200000);
      w.flow.push_back(0);
    }
    std::vector<std::vector<uint8_t>> wt = {
        frameTemplate(tb.r0_mac, tb.s_mac, sc.frame_len, kWarmupFlow)};
    sendSchedule(tb.s, "s0", opt.traffic_cpu, wt, w, 1, 0, 2.0);
    sleepMs(50);
  }
  if (sc.words.size())
    if (auto st = daemon->setLinkParams(kLinkName, LinkDirection::kAToB, params); !st)
      return makeError(st.error().code, sc.name + ": setLinkParams: " + st.error().message);
  sleepMs(20);
  const LinkInfo before = linkInfo(*daemon);

  Capture cap(tb.d, "d0", opt.traffic_cpu, size_t(sc.frames) + 4096);
  if (cap.error())
    return makeError(cap.error(), "capture on d0: " + std::string(std::strerror(-cap.error())));
  const Schedule sch = makeSchedule(sc);
  const double planned_s = sch.due_ns.empty() ? 0 : double(sch.due_ns.back()) * 1e-9;
  const uint64_t t0_real = bench::realtimeNs();
  const SendStats ss = sendSchedule(tb.s, "s0", opt.traffic_cpu, templates, sch, sc.max_batch, 1,
                                    planned_s * 1.5 + 5.0);
  if (ss.error)
    return makeError(ss.error, "sender on s0: " + std::string(std::strerror(-ss.error)));

  // Drain: the link delivers what it holds (delay, queue), then D goes quiet. Bounded.
  const double drain_limit_s = double(params.delay_ns) * 1e-9 + 10.0;
  const uint64_t drain_start = bench::monoNs();
  while (!stopRequested() && double(bench::monoNs() - drain_start) * 1e-9 < drain_limit_s) {
    const auto st = linkInfo(*daemon).a_to_b_stats;
    if (st.in_flight == 0 && st.depth_packets == 0) break;
    sleepMs(10);
  }
  uint64_t last = ~0ull;
  for (int k = 0; k < 300 && !stopRequested(); ++k) {  // quiet for 100 ms, at most 3 s
    const uint64_t c = cap.count();
    if (c == last && k >= 10) break;
    if (c != last) k = std::min(k, 9);
    last = c;
    sleepMs(10);
  }
  cap.stop();
  const LinkInfo after = linkInfo(*daemon);
  const std::vector<CounterSet> dstats = daemon->defaultNode().stats();
  std::vector<CounterSet> worker;
  for (const auto& cs : dstats)
    if (cs.scope.rfind("worker", 0) == 0) worker.push_back(cs);
  std::vector<CounterSet> nodes;
  for (const char* n : {"n1", "n2"})
    if (auto b = daemon->node(n); b)
      for (auto cs : (*b)->stats()) {
        cs.scope = std::string(n) + " " + cs.scope;
        nodes.push_back(std::move(cs));
      }
  daemon.reset();

  const std::string frames_file = "frames-" + sc.name + ".csv";
  if (!writeFrames(opt.out + "/" + frames_file, cap.records(), t0_real))
    return makeError(-EIO, "cannot write " + opt.out + "/" + frames_file);
  JsonObject j;
  j.str("name", sc.name)
      .str("kind", sc.kind)
      .str("words", words)
      .str("configured", sc.words.empty() ? "none" : formatLinkParams(after.a_to_b))
      .num("rate_bps", double(after.a_to_b.rate_bps))
      .num("overhead_bytes", after.a_to_b.overhead_bytes)
      .num("delay_ns", double(after.a_to_b.delay_ns))
      .num("limit_packets", after.a_to_b.limit_packets)
      .num("loss", after.a_to_b.loss)
      .num("gilbert_elliott", after.a_to_b.gilbert_elliott ? 1 : 0)
      .num("ge_p", after.a_to_b.ge_p)
      .num("ge_r", after.a_to_b.ge_r)
      .num("ge_loss_bad", after.a_to_b.ge_loss_bad)
      .num("ge_loss_good", after.a_to_b.ge_loss_good)
      .num("seed", double(after.a_to_b.seed))
      .num("frame_len", sc.frame_len)
      .num("offered_pps", sc.pps)
      .num("flows", sc.flows)
      .str("pattern", patternName(sc.pattern))
      .num("frames_planned", double(sch.due_ns.size()))
      .num("sent", double(ss.sent))
      .num("send_refused", double(ss.refused))
      .num("send_syscalls", double(ss.syscalls))
      .num("send_seconds", ss.seconds)
      .num("send_planned_seconds", planned_s)
      .num("send_max_lag_ns", double(ss.max_lag_ns))
      .num("received", double(cap.count()))
      .num("recv_no_timestamp", double(cap.noTimestamp()))
      .num("recv_overflow", double(cap.overflow()))
      .num("daemon_start_seconds", start_s)
      .num("napi_threads", double(napi.size()))
      .num("napi_rt", opt.napi_rt)
      .num("interrupted", stopRequested() ? 1 : 0)
      .str("frames_file", frames_file)
      .raw("link", directionJson(before.a_to_b_stats, after.a_to_b_stats).done())
      .raw("worker", countersJson(worker, false))
      .raw("node_counters", countersJson(nodes, true));
  jsonl << j.done() << "\n";
  jsonl.flush();
  const auto ls = after.a_to_b_stats;
  std::printf(
      "   sent %llu (refused %llu, %.2f s), link tx %llu delivered %llu loss %llu queue %llu "
      "full %llu, received at D %llu\n",
      (unsigned long long)ss.sent, (unsigned long long)ss.refused, ss.seconds,
      (unsigned long long)(ls.tx_packets - before.a_to_b_stats.tx_packets),
      (unsigned long long)(ls.delivered - before.a_to_b_stats.delivered),
      (unsigned long long)(ls.loss_drops - before.a_to_b_stats.loss_drops),
      (unsigned long long)(ls.queue_drops - before.a_to_b_stats.queue_drops),
      (unsigned long long)(ls.full_drops - before.a_to_b_stats.full_drops),
      (unsigned long long)cap.count());
  for (const auto& cs : worker)
    for (const auto& [k, v] : cs.counters)
      if (k.rfind("emu_late", 0) == 0 || k == "rt_priority" || k == "rt_below")
        std::printf("   %s %s %llu\n", cs.scope.c_str(), k.c_str(), (unsigned long long)v);
  std::fflush(stdout);
  return {};
}

}  // namespace fastpath::fidelity
