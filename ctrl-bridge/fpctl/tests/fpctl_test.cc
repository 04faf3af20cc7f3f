// SPDX-License-Identifier: GPL-2.0-only
// fpctl end to end, the real binary against a real server (TableBackend over FibManager):
// usage and exit codes, routes, neighbours, rules, ports, stats, capture lines.
#include <unistd.h>

#include <gtest/gtest.h>

#include "capture_backend.h"

#include "fpctl_runner.h"

namespace fastpath::ctrl {
namespace {

using testing::Fpctl;
using testing::ServerHarness;
using testing::fpctl;

TEST(FpctlCli, HelpAndUsageErrors) {
  auto h = fpctl({"--help"});
  EXPECT_EQ(h.exit_code, 0);
  for (const char* word :
       {"route add", "neigh add", "rules show", "stats", "ports", "--json", "--socket",
        "Exit status", "--node NAME", "node add NAME", "link add NAME A-NODE[:PORT] B-NODE[:PORT]",
        "link set NAME up|down", "link set NAME [a-to-b|b-to-a] PARAMETER..."})
    EXPECT_NE(h.out.find(word), std::string::npos) << word;
  for (const char* obj :
       {"route", "neigh", "rules", "stats", "ports", "monitor", "node", "link", "host"}) {
    auto o = fpctl({obj, "--help"});
    EXPECT_EQ(o.exit_code, 0) << obj;
    EXPECT_NE(o.out.find("Usage: fpctl"), std::string::npos) << obj;
  }
  // Every word applyLinkParamWords takes is in `fpctl link --help`.
  auto lh = fpctl({"link", "--help"});
  for (const char* word :
       {"rate RATE", "overhead BYTES", "delay TIME", "jitter TIME", "distribution D",
        "reorder | no-reorder", "limit PACKETS", "limit-bytes SIZE", "loss P", "gemodel P",
        "duplicate P", "corrupt P", "seed N"})
    EXPECT_NE(lh.out.find(word), std::string::npos) << word;
  EXPECT_EQ(fpctl({}).exit_code, 2);
  EXPECT_EQ(fpctl({"bogus"}).exit_code, 2);
  EXPECT_EQ(fpctl({"route", "frobnicate"}).exit_code, 2);
  // Syntax errors are found before connecting (no daemon needed: exit 2, not 3).
  auto ha = fpctl({"-s", "/tmp/fp-ctl-none.sock", "route", "add", "198.18.2.1/24", "dev", "fp1"});
  EXPECT_EQ(ha.exit_code, 2) << ha.err;
  EXPECT_EQ(fpctl({"-s", "/tmp/fp-ctl-none.sock", "route", "add", "198.18.2.0/24", "via",
                   "2001:2::1", "dev", "fp1"})
                .exit_code,
            2);
  EXPECT_EQ(fpctl({"-s", "/tmp/fp-ctl-none.sock", "neigh", "add", "198.18.1.300", "lladdr",
                   "02:00:00:00:00:01", "dev", "fp1"})
                .exit_code,
            2);
  auto hb = fpctl({"route", "del", "198.18.2.1/24"});
  EXPECT_EQ(hb.exit_code, 2);
  EXPECT_NE(hb.err.find("host bits set (did you mean 198.18.2.0/24?)"), std::string::npos)
      << hb.err;
}

TEST(FpctlCli, UnreachableDaemonIsExit3) {
  auto r = fpctl({"-s", "/tmp/fp-ctl-does-not-exist.sock", "ports"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("is fastpathd running?"), std::string::npos) << r.err;
}

TEST_F(Fpctl, RouteAddShowDelete) {
  auto add =
      run({"route", "add", "198.18.2.0/24", "via", "198.18.1.2", "dev", "fp1", "metric", "7"});
  ASSERT_EQ(add.exit_code, 0) << add.err;
  ASSERT_EQ(run({"route", "add", "2001:2:0:9::/64", "dev", "fp2"}).exit_code, 0);
  auto show = run({"--json", "route", "show"});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_NE(show.out.find(
                R"({"prefix":"198.18.2.0/24","via":"198.18.1.2","dev":"fp1","port":1,"metric":7})"),
            std::string::npos)
      << show.out;
  EXPECT_NE(
      show.out.find(R"({"prefix":"2001:2:0:9::/64","via":null,"dev":"fp2","port":2,"metric":0})"),
      std::string::npos)
      << show.out;
  auto text = run({"route", "show"});
  EXPECT_NE(text.out.find("198.18.2.0/24 via 198.18.1.2 dev fp1 metric 7\n"), std::string::npos)
      << text.out;

  ASSERT_EQ(run({"route", "del", "198.18.2.0/24"}).exit_code, 0);
  auto again = run({"route", "del", "198.18.2.0/24"});
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_FALSE(again.err.empty());
  EXPECT_EQ(run({"route", "del", "198.18.2.0/24", "--ignore-missing"}).exit_code, 0);
  auto unknown = run({"route", "add", "198.18.3.0/24", "dev", "eth9"});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_NE(unknown.err.find("no port 'eth9' (fastpathd has: fp0, fp1, fp2)"), std::string::npos)
      << unknown.err;
}

TEST_F(Fpctl, ReplaceAllFromFileAndGenerated) {
  char path[] = "/tmp/fp-ctl-routes-XXXXXX";
  int fd = ::mkstemp(path);
  std::string body =
      "# test table\n198.18.2.0/24 via 198.18.1.2 dev fp1\n\n198.18.3.0/24 dev fp2 metric 3\n";
  ASSERT_EQ(::write(fd, body.data(), body.size()), static_cast<ssize_t>(body.size()));
  ::close(fd);
  auto r =
      run({"--json", "route", "replace-all", "--file", path, "--generate", "5000", "dev", "fp0"});
  ::unlink(path);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(R"("ok":true)"), std::string::npos);
  EXPECT_NE(r.out.find(R"("seconds":)"), std::string::npos);
  EXPECT_EQ(h_.onServer([&] { return h_.backend().routes().size(); }), 5002u);

  char bad[] = "/tmp/fp-ctl-routes-XXXXXX";
  fd = ::mkstemp(bad);
  std::string bad_body = "198.18.2.0/24 dev fp1\n198.18.4.0/33 dev fp1\n";
  ASSERT_EQ(::write(fd, bad_body.data(), bad_body.size()), static_cast<ssize_t>(bad_body.size()));
  ::close(fd);
  auto b = run({"route", "replace-all", "--file", bad});
  ::unlink(bad);
  EXPECT_EQ(b.exit_code, 2);
  EXPECT_NE(b.err.find(std::string(bad) + ":2:"), std::string::npos) << b.err;
  EXPECT_EQ(h_.onServer([&] { return h_.backend().routes().size(); }), 5002u);
}

TEST_F(Fpctl, NeighboursRulesPortsStats) {
  ASSERT_EQ(
      run({"neigh", "add", "198.18.1.2", "lladdr", "02:aa:bb:cc:dd:ee", "dev", "fp1"}).exit_code,
      0);
  auto n = run({"neigh", "show", "--json"});
  EXPECT_EQ(n.out,
            "[{\"address\":\"198.18.1.2\",\"lladdr\":\"02:aa:bb:cc:dd:ee\",\"dev\":\"fp1\","
            "\"port\":1}]\n");
  ASSERT_EQ(run({"neigh", "del", "198.18.1.2", "dev", "fp1"}).exit_code, 0);
  EXPECT_EQ(run({"neigh", "del", "198.18.1.2", "dev", "fp1"}).exit_code, 1);

  ASSERT_EQ(
      run({"rules", "set", "ethertype", "0x0806", "udp", "698", "local", "198.18.1.1", "pass"})
          .exit_code,
      0);
  auto rules = run({"rules", "show"});
  EXPECT_EQ(rules.out, "ethertype 0x0806 control\nudp 698 control\nlocal 198.18.1.1 pass\n");
  EXPECT_EQ(run({"rules", "set", "udp", "99999"}).exit_code, 2);

  auto ports = run({"ports", "--json"});
  ASSERT_EQ(ports.exit_code, 0);
  EXPECT_NE(ports.out.find(R"({"id":0,"ifname":"fp0","ifindex":100,"mac":"02:00:00:00:00:01")"),
            std::string::npos)
      << ports.out;

  auto stats = run({"stats", "--json"});
  ASSERT_EQ(stats.exit_code, 0);
  EXPECT_NE(stats.out.find(R"("scope":"control-server")"), std::string::npos);
  auto watch = run({"stats", "--watch", "0.05", "--count", "2"});
  EXPECT_EQ(watch.exit_code, 0);
  EXPECT_NE(watch.out.find("/s\n"), std::string::npos) << watch.out;
}

TEST_F(Fpctl, StatsResetSaysSinceWhenTheHistogramsCount) {
  auto before = run({"stats"});
  ASSERT_EQ(before.exit_code, 0) << before.err;
  EXPECT_NE(before.out.find("histograms and maxima since "), std::string::npos) << before.out;
  EXPECT_NE(before.out.find("(fastpathd started, never reset)"), std::string::npos) << before.out;

  auto reset = run({"stats", "--reset"});
  ASSERT_EQ(reset.exit_code, 0) << reset.err;
  EXPECT_NE(reset.out.find("histograms and maxima reset at "), std::string::npos) << reset.out;
  EXPECT_NE(reset.out.find("counters keep counting"), std::string::npos) << reset.out;
  EXPECT_EQ(reset.out.find("table:"), std::string::npos) << "--reset alone prints no counters";
  auto after = run({"stats"});
  EXPECT_NE(after.out.find("(reset 1 time(s))"), std::string::npos) << after.out;

  auto json = run({"--json", "stats", "--reset"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_EQ(json.out.rfind("{\"since_unix_ns\":", 0), 0u) << json.out;
  EXPECT_NE(json.out.find("\"resets\":2,\"workers\":0}"), std::string::npos) << json.out;
  // The stats array keeps its shape: the epoch is one more set.
  auto sets = run({"--json", "stats"});
  EXPECT_EQ(sets.out.rfind("[{\"scope\":", 0), 0u) << sets.out;
  EXPECT_NE(sets.out.find("{\"scope\":\"histograms\",\"counters\":{\"since_unix_ns\":"),
            std::string::npos)
      << sets.out;
  EXPECT_NE(sets.out.find("\"resets\":2}}]"), std::string::npos) << sets.out;
  // Reset, then the counters as without it.
  auto then = run({"stats", "--reset", "--count", "1"});
  ASSERT_EQ(then.exit_code, 0) << then.err;
  EXPECT_NE(then.out.find("table:"), std::string::npos) << then.out;
  EXPECT_NE(then.out.find("(reset 3 time(s))"), std::string::npos) << then.out;
  EXPECT_EQ(run({"stats", "--reset", "now"}).exit_code, 2);
}

TEST(FpctlCli, PermissionDeniedIsExit4) {
  ServerOptions o;
  o.allow_same_uid = false;
  ServerHarness h(o);
  ASSERT_TRUE(h.start());
  if (::geteuid() == 0) GTEST_SKIP() << "root is always allowed";
  auto r = fpctl({"-s", h.socketPath(), "ports"});
  EXPECT_EQ(r.exit_code, 4) << r.err;
}

TEST(FpctlCapture, ALineNamesAnEthertypeItDoesNotDecodeWhole) {
  if (::geteuid() != 0) GTEST_SKIP() << "a capture needs an operator: run as root";
  auto b = std::make_unique<testing::CaptureBackend>();
  // An LLDP frame (0x88cc), then a frame of an experimental type (0x88b5).
  for (uint16_t type : {uint16_t(0x88cc), uint16_t(0x88b5)}) {
    CapturedFrame f;
    f.time_ns = 1700000000ull * 1000000000ull;
    f.orig_len = 60;
    f.port = 300;
    f.where = CaptureWhere::kRx;
    f.data = std::string(60, '\0');
    f.data[12] = char(type >> 8);
    f.data[13] = char(type & 0xff);
    b->queued.push_back(f);
  }
  ServerHarness h(ServerOptions{}, std::move(b));
  ASSERT_TRUE(h.start());
  auto cap = fpctl({"-s", h.socketPath(), "capture", "l1", "-c", "2"});
  ASSERT_EQ(cap.exit_code, 0) << cap.err;
  EXPECT_NE(cap.out.find(" in length 60 ethertype 0x88cc"), std::string::npos) << cap.out;
  EXPECT_NE(cap.out.find(" in length 60 ethertype 0x88b5"), std::string::npos) << cap.out;
}

}  // namespace
}  // namespace fastpath::ctrl
