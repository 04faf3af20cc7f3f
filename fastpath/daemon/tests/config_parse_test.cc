// SPDX-License-Identifier: GPL-2.0-only
// fastpathd configuration: flags, file syntax, and validation errors (nothing is touched).
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "daemon/config.h"

namespace fastpath {
namespace {

Result<Config> parse(std::vector<std::string> args) {
  std::vector<char*> argv{const_cast<char*>("fastpathd")};
  for (auto& a : args) argv.push_back(a.data());
  return parseCommandLine(int(argv.size()), argv.data());
}

TEST(ConfigParse, FlagsWithRoutesAndNeighbours) {
  auto c = parse({"--port", "fp0", "--port=fp1", "--cores", "1", "--batch-size", "32", "--route",
                  "198.18.2.0/24,via=198.18.1.2,dev=fp1", "--route",
                  "2001:2:0:2::/64,via=2001:2:0:1::2,dev=fp1,metric=5", "--neigh",
                  "198.18.1.2,mac=02:00:00:00:01:02,dev=fp1", "--stats-interval", "2"});
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->ports, (std::vector<std::string>{"fp0", "fp1"}));
  EXPECT_EQ(c->batch_size, 32u);
  ASSERT_EQ(c->routes.size(), 2u);
  EXPECT_EQ(c->routes[0].prefix.toString(), "198.18.2.0/24");
  EXPECT_EQ(c->routes[0].via.toString(), "198.18.1.2");
  EXPECT_EQ(c->routes[1].metric, 5u);
  ASSERT_EQ(c->neighbours.size(), 1u);
  EXPECT_EQ(c->neighbours[0].mac.toString(), "02:00:00:00:01:02");
  EXPECT_EQ(c->stats_interval_s, 2u);
  EXPECT_TRUE(validateConfig(*c).ok()) << validateConfig(*c).error().message;
}

TEST(ConfigParse, FileThenFlagsOverride) {
  std::string path = ::testing::TempDir() + "fastpathd_test.conf";
  {
    std::ofstream f(path);
    f << "# test\nport fp0\nport fp1   # second\nbatch-size 16\n"
         "route 198.18.2.0/24 via 198.18.1.2 dev fp1\n"
         "neigh 198.18.1.2 lladdr 02:00:00:00:01:02 dev fp1\nbusy-poll\n";
  }
  auto c = parse({"--batch-size", "128", "--config", path});
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->ports.size(), 2u);
  EXPECT_EQ(c->batch_size, 128u) << "flags override the file whatever their order";
  EXPECT_TRUE(c->busy_poll);
  EXPECT_EQ(c->routes.size(), 1u);
  EXPECT_TRUE(validateConfig(*c).ok());
  std::remove(path.c_str());
}

TEST(ConfigParse, SyntaxErrorsNameTheProblem) {
  struct Case {
    std::vector<std::string> args;
    std::string needle;
  } cases[] = {
      {{"--bogus"}, "unknown option --bogus"},
      {{"--port"}, "needs a value"},
      {{"--batch-size", "abc"}, "non-negative integer"},
      {{"--xsk-mode", "fast"}, "auto, copy or zerocopy"},
      {{"--xdp-mode", "generic"}, "auto or native"},
      {{"--rt-mode", "below"}, "adaptive or above"},
      {{"--rt-guard", "yes"}, "on or off"},
      {{"--cpu-wake-latency-us", "fast"}, "off or 0-1000000"},
      {{"--cpu-wake-latency-us", "-1"}, "off or 0-1000000"},
      {{"--cpu-wake-latency-us", "1000001"}, "off or 0-1000000"},
      {{"--napi-priority", "0"}, "keep, auto or a SCHED_FIFO priority 1-99"},
      {{"--napi-priority", "100"}, "keep, auto or a SCHED_FIFO priority 1-99"},
      {{"--napi-priority", "high"}, "keep, auto or a SCHED_FIFO priority 1-99"},
      {{"--route", "198.18.2.0/33,dev=fp1"}, "route"},
      {{"--route", "198.18.2.1/24,dev=fp0"}, "host bits set"},
      {{"--route", "198.18.2.0/24,via=2001:2::1,dev=fp1"}, "family"},
      {{"--route", "198.18.2.0/24,via=198.18.1.2"}, "dev=IFNAME is required"},
      {{"--route", "198.18.2.0/24,gw=198.18.1.2,dev=fp1"}, "unknown key 'gw'"},
      {{"--neigh", "198.18.1.2,dev=fp1"}, "mac=MAC is required"},
      {{"--neigh", "198.18.1.2,mac=zz,dev=fp1"}, "mac"},
      {{"--busy-poll=1"}, "takes no value"},
      {{"--config", "/nonexistent/fastpathd.conf"}, "cannot open"},
      {{"stray"}, "unexpected argument"},
      {{"--punt-rate", "fast"}, "non-negative integer"},
      {{"--punt-rate", "100000001"}, "out of range"},
      {{"--punt-burst", "1000001"}, "out of range"},
  };
  for (const auto& c : cases) {
    auto r = parse(c.args);
    ASSERT_FALSE(r.ok()) << c.args[0];
    EXPECT_NE(r.error().message.find(c.needle), std::string::npos)
        << c.args[0] << ": '" << r.error().message << "' lacks '" << c.needle << "'";
  }
}

TEST(ConfigValidate, ContradictionsAreRejectedExplicitly) {
  struct Case {
    std::vector<std::string> args;
    std::string needle;
  } cases[] = {
      {{}, "no port given"},
      {{"--port", "fp0", "--port", "fp0"}, "given twice"},
      {{"--port", "fp0", "--queues", "2", "--cores", "1"}, "one CPU each"},
      {{"--port", "fp0", "--cores", "4000"}, "does not exist"},
      {{"--port", "fp0", "--batch-size", "8192"}, "--batch-size must be between"},
      {{"--port", "fp0", "--ring-size", "1000"}, "power of two"},
      {{"--port", "fp0", "--frame-size", "3000"}, "2048 or 4096"},
      {{"--port", "fp0", "--umem-frames", "100"}, "cannot keep every fill ring full"},
      {{"--port", "fp0", "--busy-poll", "--idle-poll-us", "50"}, "contradict"},
      {{"--port", "fp0", "--xsk-mode", "zerocopy"}, "zerocopy needs"},
      {{"--port", "fp0", "--rt-priority", "51", "--idle-poll-us", "0"}, "starves the CPU"},
      {{"--port", "fp0", "--stats-interval", "1", "--log-level", "error"}, "hides it"},
      {{"--port", "fp0", "--napi-priority", "5", "--no-tune"}, "--no-tune leaves the ports"},
      {{"--port", "fp0", "--punt-burst", "0"}, "--punt-burst must be at least 1"},
      {{"--port", "fp0", "--queues", "4", "--punt-rate", "3"}, "below one frame/s per worker"},
      {{"--port", "fp0", "--route", "198.18.2.0/24,dev=fp9"}, "dev fp9 is not a --port"},
      {{"--port", "fp0", "--neigh", "198.18.1.2,mac=01:00:00:00:00:01,dev=fp0"}, "multicast"},
      {{"--port", "fp0", "--neigh", "198.18.1.2,mac=02:00:00:00:00:01,dev=fp0", "--neigh",
        "198.18.1.2,mac=02:00:00:00:00:02,dev=fp0"},
       "two MACs"},
  };
  for (const auto& c : cases) {
    auto r = parse(c.args);
    ASSERT_TRUE(r.ok()) << r.error().message;
    auto st = validateConfig(*r);
    ASSERT_FALSE(st.ok()) << "accepted: " << (c.args.empty() ? "(nothing)" : c.args.back());
    EXPECT_NE(st.error().message.find(c.needle), std::string::npos)
        << "'" << st.error().message << "' lacks '" << c.needle << "'";
  }
}

TEST(ConfigValidate, RepeatedIdenticalNeighbourIsAccepted) {
  auto c = parse({"--port", "fp0", "--neigh", "198.18.1.2,mac=02:00:00:00:00:01,dev=fp0", "--neigh",
                  "198.18.1.2,mac=02:00:00:00:00:01,dev=fp0"});
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE(validateConfig(*c).ok())
      << "one --neigh per route through it is how scripts write it";
}

TEST(ConfigParse, PuntLimiterFromFlagsAndFile) {
  std::string path = ::testing::TempDir() + "fastpathd_punt.conf";
  {
    std::ofstream f(path);
    f << "port fp0\npunt-rate 2000\npunt-burst 64\n";
  }
  auto c = parse({"--config", path, "--punt-burst", "32"});
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->punt_rate, 2000u);
  EXPECT_EQ(c->punt_burst, 32u) << "the flag overrides the file";
  EXPECT_TRUE(validateConfig(*c).ok());
  std::remove(path.c_str());
  auto off = parse({"--port", "fp0", "--punt-rate", "0", "--punt-burst", "0"});
  ASSERT_TRUE(off.ok());
  EXPECT_TRUE(validateConfig(*off).ok()) << "rate 0 = unlimited: the burst does not matter";
}

TEST(ConfigParse, RtModeFromFlagAndFile) {
  auto c = parse({"--port", "fp0"});
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE(c->rt_adaptive) << "adaptive is the default";
  auto above = parse({"--port", "fp0", "--rt-mode", "above"});
  ASSERT_TRUE(above.ok()) << above.error().message;
  EXPECT_FALSE(above->rt_adaptive);
  std::string path = ::testing::TempDir() + "fastpathd_rt.conf";
  {
    std::ofstream f(path);
    f << "port fp0\nrt-mode above\n";
  }
  auto file = parse({"--config", path, "--rt-mode", "adaptive"});
  std::remove(path.c_str());
  ASSERT_TRUE(file.ok()) << file.error().message;
  EXPECT_TRUE(file->rt_adaptive) << "the flag overrides the file";
}

// What --napi-priority gives the ports' NAPI threads, from the workers' policy.
TEST(ConfigParse, NapiPriority) {
  struct Case {
    std::vector<std::string> args;
    int want;
  } cases[] = {
      {{}, 0},  // keep: a worker under NAPI starves under a flood on its CPU
      {{"--rt-priority", "7"}, 0},
      {{"--napi-priority", "auto"}, Config::kNapiAutoRtPriority},  // under --rt-priority auto
      {{"--napi-priority", "auto", "--rt-priority", "auto"}, Config::kNapiAutoRtPriority},
      {{"--napi-priority", "auto", "--rt-priority", "7"}, 7},  // level with the workers
      {{"--napi-priority", "auto", "--rt-priority", "0"}, 0},  // normal workers: left alone
      {{"--napi-priority", "auto", "--idle-poll-us", "0", "--rt-priority", "0"}, 0},
      {{"--napi-priority", "auto", "--busy-poll"}, 0},
      {{"--napi-priority", "keep"}, 0},
      {{"--napi-priority", "9"}, 9},
      {{"--napi-priority", "9", "--rt-priority", "0"}, 9},
      {{"--napi-priority", "auto", "--rt-priority", "3"}, 3},
      {{"--no-tune"}, 0},
      {{"--napi-priority", "auto", "--no-tune"}, 0},
  };
  for (const auto& c : cases) {
    std::vector<std::string> args = {"--port", "fp0"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    auto r = parse(args);
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_TRUE(validateConfig(*r).ok()) << args.back();
    std::string all;
    for (const auto& a : c.args) all += a + " ";
    EXPECT_EQ(r->napiRtPriority(), c.want) << all;
  }
}

TEST(ConfigParse, RtGuard) {
  auto c = parse({"--port", "fp0"});
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE(c->rt_guard) << "on by default";
  auto off = parse({"--port", "fp0", "--rt-guard", "off"});
  ASSERT_TRUE(off.ok()) << off.error().message;
  EXPECT_FALSE(off->rt_guard);
}

TEST(ConfigParse, CpuWakeLatency) {
  auto c = parse({"--port", "fp0"});
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->cpu_wake_latency_us, Config::kNoWakeLatencyRequest) << "no request by default";
  auto zero = parse({"--port", "fp0", "--cpu-wake-latency-us", "0"});
  ASSERT_TRUE(zero.ok()) << zero.error().message;
  EXPECT_EQ(zero->cpu_wake_latency_us, 0) << "0 is a request (poll in idle), not off";
  auto ten = parse({"--port", "fp0", "--cpu-wake-latency-us=10"});
  ASSERT_TRUE(ten.ok()) << ten.error().message;
  EXPECT_EQ(ten->cpu_wake_latency_us, 10);
  auto off = parse({"--port", "fp0", "--cpu-wake-latency-us", "10", "--cpu-wake-latency-us", "off"});
  ASSERT_TRUE(off.ok()) << off.error().message;
  EXPECT_EQ(off->cpu_wake_latency_us, Config::kNoWakeLatencyRequest);
}

TEST(ConfigParse, OperatorConnections) {
  auto c = parse({"--operator-connections", "600"});
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->operator_connections, 600u);
  EXPECT_EQ(parse({})->operator_connections, 0u) << "0: the control server's default";
  for (const char* bad : {"0", "65537", "many"}) {
    auto e = parse({"--operator-connections", bad});
    ASSERT_FALSE(e.ok()) << bad;
    EXPECT_NE(e.error().message.find("operator-connections"), std::string::npos)
        << e.error().message;
  }
}

TEST(ConfigValidate, DefaultsAreSane) {
  auto c = parse({"--port", "fp0", "--port", "fp1"});
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->batch_size, 64u);
  EXPECT_EQ(c->control_socket, "/run/fastpathd/fastpathd.sock");
  EXPECT_EQ(c->punt_rate, 10000u);
  EXPECT_EQ(c->punt_burst, 256u);
  EXPECT_GE(c->effectiveUmemFrames(), 2 * 2 * c->ring_size);
  EXPECT_NE(usageText().find("--route"), std::string::npos);
}

}  // namespace
}  // namespace fastpath
