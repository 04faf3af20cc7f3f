// SPDX-License-Identifier: GPL-2.0-only
// fpctl end to end: the real binary against a real server (TableBackend over FibManager).
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "server_harness.h"

namespace fastpath::ctrl {
namespace {

using testing::ServerHarness;

struct FpctlRun {
  int exit_code = -1;
  std::string out;
  std::string err;
};

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

FpctlRun fpctl(const std::vector<std::string>& args) {
  char out_t[] = "/tmp/fp-ctl-out-XXXXXX";
  char err_t[] = "/tmp/fp-ctl-err-XXXXXX";
  int out_fd = ::mkstemp(out_t);
  int err_fd = ::mkstemp(err_t);
  pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(out_fd, 1);
    ::dup2(err_fd, 2);
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(FPCTL_PATH));
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::unsetenv("FASTPATHD_SOCKET");
    ::execv(FPCTL_PATH, argv.data());
    _exit(127);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  FpctlRun r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(out_t);
  r.err = slurp(err_t);
  ::close(out_fd);
  ::close(err_fd);
  ::unlink(out_t);
  ::unlink(err_t);
  return r;
}

class Fpctl : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(h_.start()); }
  FpctlRun run(std::vector<std::string> args) {
    args.insert(args.begin(), {"-s", h_.socketPath()});
    return fpctl(args);
  }
  ServerHarness h_;
};

TEST(FpctlCli, HelpAndUsageErrors) {
  auto h = fpctl({"--help"});
  EXPECT_EQ(h.exit_code, 0);
  for (const char* word : {"route add", "neigh add", "rules show", "stats", "ports", "--json",
                           "--socket", "Exit status"})
    EXPECT_NE(h.out.find(word), std::string::npos) << word;
  for (const char* obj : {"route", "neigh", "rules", "stats", "ports", "monitor"}) {
    auto o = fpctl({obj, "--help"});
    EXPECT_EQ(o.exit_code, 0) << obj;
    EXPECT_NE(o.out.find("Usage: fpctl"), std::string::npos) << obj;
  }
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

TEST(FpctlCli, PermissionDeniedIsExit4) {
  ServerOptions o;
  o.allow_same_uid = false;
  ServerHarness h(o);
  ASSERT_TRUE(h.start());
  if (::geteuid() == 0) GTEST_SKIP() << "root is always allowed";
  auto r = fpctl({"-s", h.socketPath(), "ports"});
  EXPECT_EQ(r.exit_code, 4) << r.err;
}

}  // namespace
}  // namespace fastpath::ctrl
