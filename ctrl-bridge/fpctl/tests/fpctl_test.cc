// SPDX-License-Identifier: GPL-2.0-only
// fpctl end to end: the real binary against a real server (TableBackend over FibManager).
#include <fcntl.h>
#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <future>
#include <sstream>

#include "capture_backend.h"
#include "hosts_backend.h"
#include "multi_node_backend.h"
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

/// Runs the fpctl binary (as `uid` when >= 0; the caller must be root then).
FpctlRun fpctl(const std::vector<std::string>& args, int uid = -1) {
  char out_t[] = "/tmp/fp-ctl-out-XXXXXX";
  char err_t[] = "/tmp/fp-ctl-err-XXXXXX";
  int out_fd = ::mkstemp(out_t);
  int err_fd = ::mkstemp(err_t);
  pid_t pid = ::fork();
  if (pid == 0) {
    if (uid >= 0 && (::setgroups(0, nullptr) != 0 || ::setgid(static_cast<gid_t>(uid)) != 0 ||
                     ::setuid(static_cast<uid_t>(uid)) != 0))
      _exit(126);
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

TEST(FpctlCli, PermissionDeniedIsExit4) {
  ServerOptions o;
  o.allow_same_uid = false;
  ServerHarness h(o);
  ASSERT_TRUE(h.start());
  if (::geteuid() == 0) GTEST_SKIP() << "root is always allowed";
  auto r = fpctl({"-s", h.socketPath(), "ports"});
  EXPECT_EQ(r.exit_code, 4) << r.err;
}

// ---------------------------------------------------------------- nodes and links

/// fpctl against a server with nodes: the default node (fp0..fp2), r1 (r1-eth0/1, ids
/// 10/11) and r2 (r2-eth0/1, ids 20/21); `Backend` a MultiNodeBackend or one derived from
/// it (HostsBackend: segments too).
template <typename Backend>
class FpctlOn : public ::testing::Test {
 protected:
  FpctlOn() {
    auto b = std::make_unique<Backend>();
    multi_ = b.get();
    EXPECT_TRUE(multi_->addNode("r1", testing::MultiNodeBackend::interfacePorts("r1-eth", 10)));
    EXPECT_TRUE(multi_->addNode("r2", testing::MultiNodeBackend::interfacePorts("r2-eth", 20)));
    h_ = std::make_unique<ServerHarness>(ServerOptions{}, std::move(b));
  }
  void SetUp() override { ASSERT_TRUE(h_->start()); }
  FpctlRun run(std::vector<std::string> args, int uid = -1) {
    args.insert(args.begin(), {"-s", h_->socketPath()});
    return fpctl(args, uid);
  }
  std::size_t routesIn(const std::string& node) {
    return h_->onServer([&] { return multi_->table(node)->routes().size(); });
  }
  Backend* multi_ = nullptr;
  std::unique_ptr<ServerHarness> h_;
};
using FpctlNodes = FpctlOn<testing::MultiNodeBackend>;
using FpctlSegments = FpctlOn<testing::HostsBackend>;

TEST_F(FpctlNodes, NodeOptionScopesRouteNeighRulesPortsAndStats) {
  auto add =
      run({"--node", "r1", "route", "add", "198.18.2.0/24", "via", "198.18.1.2", "dev", "r1-eth0"});
  ASSERT_EQ(add.exit_code, 0) << add.err;
  EXPECT_EQ(routesIn("r1"), 1u);
  EXPECT_EQ(routesIn("default"), 0u);
  // The option may also come after the object, and as --node=NAME.
  auto show = run({"route", "show", "--json", "--node=r1"});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_EQ(show.out,
            "[{\"prefix\":\"198.18.2.0/24\",\"via\":\"198.18.1.2\",\"dev\":\"r1-eth0\",\"port\":10,"
            "\"metric\":0}]\n");
  EXPECT_EQ(run({"route", "show"}).out, "");
  EXPECT_EQ(run({"--node", "r2", "route", "show"}).out, "");
  // Another node's port is not known in r1.
  auto foreign = run({"--node", "r1", "route", "add", "198.18.3.0/24", "dev", "fp1"});
  EXPECT_EQ(foreign.exit_code, 1);
  EXPECT_NE(foreign.err.find("no port 'fp1' (fastpathd has: r1-eth0, r1-eth1)"), std::string::npos)
      << foreign.err;
  auto by_id = run({"--node", "r1", "route", "add", "198.18.3.0/24", "dev", "20"});
  EXPECT_EQ(by_id.exit_code, 1) << by_id.err;

  ASSERT_EQ(run({"--node", "r1", "neigh", "add", "198.18.1.2", "lladdr", "02:aa:bb:cc:dd:ee", "dev",
                 "r1-eth0"})
                .exit_code,
            0);
  EXPECT_EQ(run({"--node", "r1", "neigh", "show"}).out,
            "198.18.1.2 dev r1-eth0 lladdr 02:aa:bb:cc:dd:ee\n");
  EXPECT_EQ(run({"neigh", "show"}).out, "");
  ASSERT_EQ(run({"--node", "r1", "rules", "set", "udp", "698"}).exit_code, 0);
  EXPECT_EQ(run({"--node", "r1", "rules", "show"}).out, "udp 698 control\n");
  EXPECT_EQ(run({"rules", "show"}).out, "");

  auto ports = run({"--node", "r2", "ports", "--json"});
  ASSERT_EQ(ports.exit_code, 0) << ports.err;
  EXPECT_NE(ports.out.find(R"({"id":20,"ifname":"r2-eth0",)"), std::string::npos) << ports.out;
  EXPECT_NE(ports.out.find(R"("node":"r2","link":null})"), std::string::npos) << ports.out;
  EXPECT_EQ(ports.out.find("fp0"), std::string::npos) << ports.out;
  auto stats = run({"--node", "r1", "stats", "--json"});
  ASSERT_EQ(stats.exit_code, 0);
  EXPECT_NE(stats.out.find(R"("scope":"port r1-eth0")"), std::string::npos) << stats.out;
  EXPECT_EQ(stats.out.find(R"("scope":"port fp0")"), std::string::npos) << stats.out;
}

TEST_F(FpctlNodes, UnknownOrMalformedNode) {
  auto unknown = run({"--node", "r9", "route", "show"});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_NE(unknown.err.find("r9"), std::string::npos) << unknown.err;
  auto bad = run({"--node", "r 1", "ports"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--node: "), std::string::npos) << bad.err;
  EXPECT_EQ(run({"--node", std::string(32, 'n'), "ports"}).exit_code, 2);
  EXPECT_EQ(run({"node", "show", "r9"}).exit_code, 1);
  EXPECT_EQ(run({"node", "del", "r9"}).exit_code, 1);
  EXPECT_EQ(run({"node", "add", "a/b"}).exit_code, 2);
  EXPECT_EQ(run({"node", "add"}).exit_code, 2);
  EXPECT_EQ(run({"node", "frobnicate"}).exit_code, 2);
}

// host and node attach/detach: usage errors are exit 2 before anything is sent; this
// backend has no hosts and attaches nothing, so the requests are refused (exit 1) with
// fastpathd's reason; host list is empty.
TEST_F(FpctlNodes, HostAndAttachUsageAndRefusals) {
  EXPECT_EQ(run({"host", "add", "h1", "r1"}).exit_code, 2);  // no address
  EXPECT_EQ(run({"host", "add", "h1", "r1", "198.18.1.2"}).exit_code, 2);  // no /LEN
  EXPECT_EQ(run({"host", "add", "h1", "r1", "198.18.1.2/33"}).exit_code, 2);
  EXPECT_EQ(run({"host", "add", "h1", "r1", "198.18.1.2/24", "--gw", "nope"}).exit_code, 2);
  EXPECT_EQ(run({"host", "add", "h1", "r1", "198.18.1.2/24", "--mtu", "20"}).exit_code, 2);
  EXPECT_EQ(run({"host", "frobnicate"}).exit_code, 2);
  EXPECT_EQ(run({"node", "attach", "r1"}).exit_code, 2);
  EXPECT_EQ(run({"node", "attach", "r1", std::string(16, 'e')}).exit_code, 2);
  auto add = run({"host", "add", "h1", "r1", "198.18.1.2/24", "--gw", "198.18.1.1"});
  EXPECT_EQ(add.exit_code, 1) << add.err;
  EXPECT_NE(add.err.find("create host"), std::string::npos) << add.err;
  EXPECT_EQ(run({"node", "attach", "r1", "eth1"}).exit_code, 1);
  EXPECT_EQ(run({"host", "del", "h1"}).exit_code, 1);
  auto list = run({"--json", "host", "list"});
  EXPECT_EQ(list.exit_code, 0) << list.err;
  EXPECT_EQ(list.out, "[]\n");
}

TEST_F(FpctlNodes, NodeListShowAddDel) {
  auto add = run({"node", "add", "r5", "--host", "h1"});
  ASSERT_EQ(add.exit_code, 0) << add.err;
  auto added = run({"--json", "node", "add", "r6"});
  ASSERT_EQ(added.exit_code, 0) << added.err;
  EXPECT_EQ(added.out, "{\"ok\":true,\"result\":\"node r6 added\"}\n");
  auto list = run({"node", "list"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_EQ(list.out.rfind("NAME ", 0), 0u) << list.out;
  EXPECT_NE(list.out.find("\nr5               "), std::string::npos) << list.out;
  EXPECT_NE(list.out.find(" h1 "), std::string::npos) << list.out;
  auto json = run({"--json", "node", "list"});
  EXPECT_NE(json.out.find(R"({"name":"default","host":"local","id":0,"worker":0,"routes":0,)"
                          R"("neighbours":0,"ports":[0,1,2]})"),
            std::string::npos)
      << json.out;
  EXPECT_NE(json.out.find(R"({"name":"r5","host":"h1",)"), std::string::npos) << json.out;
  ASSERT_EQ(run({"--node", "r1", "route", "add", "198.18.2.0/24", "dev", "r1-eth1"}).exit_code, 0);
  auto show = run({"node", "show", "r1"});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_NE(show.out.find("node r1 id 1 host local"), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("  routes 1 neighbours 0\n"), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("  port 11 r1-eth1 "), std::string::npos) << show.out;
  auto show_json = run({"--json", "node", "show", "r1"});
  EXPECT_NE(show_json.out.find(R"("routes":1,)"), std::string::npos) << show_json.out;
  EXPECT_NE(show_json.out.find(R"({"id":10,"ifname":"r1-eth0",)"), std::string::npos)
      << show_json.out;
  auto dup = run({"node", "add", "r5"});
  EXPECT_EQ(dup.exit_code, 1) << dup.err;
  ASSERT_EQ(run({"node", "del", "r5"}).exit_code, 0);
  EXPECT_EQ(run({"node", "show", "r5"}).exit_code, 1);
  auto dflt = run({"node", "del", "default"});
  EXPECT_EQ(dflt.exit_code, 1);
  EXPECT_NE(dflt.err.find("default node cannot be deleted"), std::string::npos) << dflt.err;
}

TEST_F(FpctlNodes, LinkAddListShowSetDel) {
  auto add = run({"link", "add", "r1-r2", "r1:to-r2", "r2", "--mtu", "9000"});
  ASSERT_EQ(add.exit_code, 0) << add.err;
  auto list = run({"link", "list"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_NE(list.out.find("r1-r2            up    r1:to-r2 (port 1000)"), std::string::npos)
      << list.out;
  EXPECT_NE(list.out.find("r2:r1-r2 (port 1001)"), std::string::npos) << list.out;
  auto json = run({"--json", "link", "show", "r1-r2"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_NE(
      json.out.find(R"({"name":"r1-r2","up":true,"a":{"node":"r1","port":"to-r2","id":1000,)"),
      std::string::npos)
      << json.out;
  EXPECT_NE(json.out.find(R"("mtu":9000,"down":false})"), std::string::npos) << json.out;
  // The link port is a port of its node, usable for routes.
  auto ports = run({"--node", "r1", "ports"});
  EXPECT_NE(ports.out.find("LINK"), std::string::npos) << ports.out;
  EXPECT_NE(ports.out.find("to-r2"), std::string::npos) << ports.out;
  ASSERT_EQ(run({"--node", "r1", "route", "add", "198.18.2.0/24", "dev", "to-r2"}).exit_code, 0);

  ASSERT_EQ(run({"link", "set", "r1-r2", "down"}).exit_code, 0);
  auto show = run({"link", "show", "r1-r2"});
  EXPECT_EQ(show.out.rfind("link r1-r2 down\n", 0), 0u) << show.out;
  EXPECT_NE(show.out.find("  a: node r1 port to-r2 id 1000 "), std::string::npos) << show.out;
  ASSERT_EQ(run({"link", "set", "r1-r2", "up"}).exit_code, 0);

  EXPECT_EQ(run({"link", "add", "r1-r9", "r1", "r9"}).exit_code, 1);      // no node r9
  EXPECT_EQ(run({"link", "add", "r1-r2", "r1:x", "r2:y"}).exit_code, 1);  // exists
  EXPECT_EQ(run({"link", "add", "loop", "r1", "r1:other"}).exit_code, 2);
  EXPECT_EQ(run({"link", "add", "l", "r1", "r2", "--mtu", "20"}).exit_code, 2);
  EXPECT_EQ(run({"link", "add", "l", "r1:eth 0", "r2"}).exit_code, 2);
  EXPECT_EQ(run({"link", "add", "l", "r1"}).exit_code, 2);
  EXPECT_EQ(run({"link", "set", "r1-r2", "sideways"}).exit_code, 2);
  EXPECT_EQ(run({"link", "set", "nope", "down"}).exit_code, 1);
  EXPECT_EQ(run({"link", "show", "nope"}).exit_code, 1);

  ASSERT_EQ(run({"link", "del", "r1-r2"}).exit_code, 0);
  EXPECT_EQ(run({"link", "list", "--json"}).out, "[]\n");
  EXPECT_EQ(routesIn("r1"), 0u);  // the route through the link port went with it
  EXPECT_EQ(run({"link", "del", "r1-r2"}).exit_code, 1);
}

TEST_F(FpctlNodes, LinkEmulationAddSetShowList) {
  auto links = [&] { return h_->onServer([&] { return multi_->links(); }); };
  auto add = run({"link", "add", "r1-r2", "r1:to-r2", "r2", "rate", "10mbit", "delay", "5ms"});
  ASSERT_EQ(add.exit_code, 0) << add.err;
  ASSERT_EQ(links().size(), 1u);
  EXPECT_EQ(formatLinkParams(links()[0].a_to_b), "rate 10mbit delay 5ms limit 100");
  EXPECT_TRUE(links()[0].b_to_a == links()[0].a_to_b);

  // One direction; only the words given change.
  auto ab = run({"link", "set", "r1-r2", "a-to-b", "loss", "1%", "jitter", "1ms"});
  ASSERT_EQ(ab.exit_code, 0) << ab.err;
  EXPECT_EQ(formatLinkParams(links()[0].a_to_b),
            "rate 10mbit delay 5ms jitter 1ms limit 100 loss 1%");
  EXPECT_EQ(formatLinkParams(links()[0].b_to_a), "rate 10mbit delay 5ms limit 100");
  // Both, from what each has: a-to-b keeps its loss.
  auto both = run({"--json", "link", "set", "r1-r2", "delay", "20ms"});
  ASSERT_EQ(both.exit_code, 0) << both.err;
  EXPECT_EQ(
      both.out,
      "{\"ok\":true,\"result\":\"link r1-r2 a-to-b rate 10mbit delay 20ms jitter 1ms limit 100 "
      "loss 1% b-to-a rate 10mbit delay 20ms limit 100\"}\n");
  EXPECT_EQ(formatLinkParams(links()[0].a_to_b),
            "rate 10mbit delay 20ms jitter 1ms limit 100 loss 1%");
  EXPECT_EQ(formatLinkParams(links()[0].b_to_a), "rate 10mbit delay 20ms limit 100");
  // Parameters and state together.
  auto ba = run({"link", "set", "r1-r2", "b-to-a", "limit", "500", "down"});
  ASSERT_EQ(ba.exit_code, 0) << ba.err;
  EXPECT_EQ(links()[0].b_to_a.limit_packets, 500u);
  EXPECT_FALSE(links()[0].up);
  ASSERT_EQ(run({"link", "set", "r1-r2", "up"}).exit_code, 0);

  // Bad words: exit 2, nothing sent.
  const auto before = links()[0];
  auto loss = run({"link", "set", "r1-r2", "loss", "150%"});
  EXPECT_EQ(loss.exit_code, 2);
  EXPECT_EQ(loss.err,
            "fpctl: link set: probability \"150%\" is outside 0% .. 100% (parameters: `fpctl "
            "link --help`)\n");
  auto typo = run({"link", "set", "r1-r2", "a-to-b", "rat", "10mbit"});
  EXPECT_EQ(typo.exit_code, 2);
  EXPECT_NE(typo.err.find("unknown link parameter \"rat\""), std::string::npos) << typo.err;
  EXPECT_EQ(run({"link", "set", "r1-r2", "delay"}).exit_code, 2);
  EXPECT_EQ(run({"link", "set", "r1-r2", "up", "down"}).exit_code, 2);
  EXPECT_EQ(run({"link", "set", "r1-r2"}).exit_code, 2);
  EXPECT_EQ(run({"link", "set", "r1-r2", "a-to-b"}).exit_code, 2);
  EXPECT_EQ(run({"link", "add", "l2", "r1:x", "r2:x", "loss", "2"}).exit_code, 2);
  EXPECT_TRUE(links()[0].a_to_b == before.a_to_b);
  EXPECT_TRUE(links()[0].b_to_a == before.b_to_a);
  EXPECT_EQ(links().size(), 1u);
  auto nope = run({"link", "set", "nope", "rate", "1mbit"});
  EXPECT_EQ(nope.exit_code, 1);
  EXPECT_NE(nope.err.find("no link 'nope'"), std::string::npos) << nope.err;

  // What the workers measured, and their lateness.
  h_->onServer([&] {
    LinkDirectionStats s;
    s.tx_packets = 10000;
    s.tx_bytes = 15000000;
    s.enqueued = 9900;
    s.delivered = 9750;
    s.queue_drops = 50;
    s.loss_drops = 100;
    s.depth_packets = 3;
    s.depth_bytes = 4500;
    s.in_flight = 14;
    s.sojourn_p50_ns = 5200000;
    s.sojourn_p99_ns = 9800000;
    s.sojourn_max_ns = 12000000;
    s.lateness_p50_ns = 2100;
    s.lateness_p99_ns = 35000;
    s.lateness_max_ns = 250000;
    multi_->setLinkStats("r1-r2", s, LinkDirectionStats{});
    multi_->setExtraStats({CounterSet{"worker 0",
                                      {{"loops", 1},
                                       {"emu_late_frames", 2},
                                       {"emu_lateness_p50_ns", 3071},
                                       {"emu_lateness_p99_ns", 21000},
                                       {"emu_lateness_max_ns", 999600}}}});
    return 0;
  });
  auto show = run({"link", "show", "r1-r2"});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  for (const char* line : {"link r1-r2 up\n",
                           "  a: node r1 port to-r2 id 1000 ",
                           "                    a-to-b (r1 -> r2)        b-to-a (r2 -> r1)\n",
                           "  configured\n",
                           "    rate            10mbit                   10mbit\n",
                           "    delay           20ms                     20ms\n",
                           "    jitter          1ms                      -\n",
                           "    loss            1%                       -\n",
                           "    limit           100 packets              500 packets\n",
                           "  measured\n",
                           "    sent            10000                    0\n",
                           "    delivered       9750                     0\n",
                           "    queue drops     50                       0\n",
                           "    loss drops      100                      0\n",
                           "    drop ratio      1.50%                    -\n",
                           "    depth           3 packets, 4500 B        0 packets, 0 B\n",
                           "    sojourn p50     5.2ms                    -\n",
                           "    sojourn p99     9.8ms                    -\n",
                           "    lateness p50    2.1us                    -\n",
                           "    lateness p99    35us                     -\n",
                           "    lateness max    250us                    -\n",
                           "  emulation lateness\n",
                           "    worker 0        p50 3.07us  p99 21us  max 1ms  late frames 2\n"})
    EXPECT_NE(show.out.find(line), std::string::npos) << line << "\n" << show.out;
  auto json = run({"--json", "link", "show", "r1-r2"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  for (const char* part :
       {R"("a_to_b":{"configured":{"rate_bps":10000000,"overhead_bytes":0,"mpu_bytes":0,)"
        R"("delay_ns":20000000,)"
        R"("jitter_ns":1000000,"distribution":"uniform","reorder":false,"limit_packets":100,)"
        R"("limit_bytes":0,"loss":0.01,"gemodel":null,"duplicate":0,"corrupt":0,"seed":0,)"
        R"("text":"rate 10mbit delay 20ms jitter 1ms limit 100 loss 1%","aqm":"none"},)"
        R"("measured":{"tx_packets":10000,"tx_bytes":15000000,"enqueued":9900,"delivered":9750,)"
        R"("queue_drops":50,"loss_drops":100,)",
        R"("sojourn_p99_ns":9800000,"sojourn_max_ns":12000000,"lateness_p50_ns":2100,)"
        R"("lateness_p99_ns":35000,"lateness_max_ns":250000,"drop_ratio":0.015})",
        R"("b_to_a":{"configured":{"rate_bps":10000000,)", R"("drop_ratio":null})",
        R"("emulation_lateness":[{"worker":0,"p50_ns":3071,"p99_ns":21000,"max_ns":999600,)"
        R"("late_frames":2}]})"})
    EXPECT_NE(json.out.find(part), std::string::npos) << part << "\n" << json.out;

  auto list = run({"link", "list"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_NE(list.out.find(" EMULATION\n"), std::string::npos) << list.out;
  EXPECT_NE(list.out.find("a-to-b rate 10mbit delay 20ms jitter 1ms loss 1%; b-to-a rate 10mbit "
                          "delay 20ms limit 500\n"),
            std::string::npos)
      << list.out;
  ASSERT_EQ(run({"link", "set", "r1-r2", "b-to-a", "jitter", "1ms", "loss", "1%", "limit", "100"})
                .exit_code,
            0);
  EXPECT_NE(run({"link", "list"}).out.find(" rate 10mbit delay 20ms jitter 1ms loss 1%\n"),
            std::string::npos);
  auto list_json = run({"--json", "link", "list"});
  EXPECT_NE(list_json.out.find(R"("b_to_a":{"configured":{"rate_bps":10000000,)"),
            std::string::npos)
      << list_json.out;
  EXPECT_EQ(list_json.out.find("emulation_lateness"), std::string::npos) << list_json.out;
}

TEST_F(FpctlNodes, MonitorOneNodeOrAllNodes) {
  // Emits a route miss in the default node then one in r1 (together, so that a
  // subscriber sees both or neither) until fpctl is done.
  auto monitor = [&](std::vector<std::string> args) {
    auto done = std::async(std::launch::async, [&] { return run(args); });
    while (done.wait_for(std::chrono::milliseconds(50)) != std::future_status::ready)
      h_->onServer([&] {
        FastPathEvent e;
        e.kind = FastPathEvent::Kind::kRouteMiss;
        e.address = IpAddress::parse("198.18.9.9").value();
        e.port = 1;
        multi_->emit(e);
        e.port = 10;
        e.node = "r1";
        multi_->emit(e);
        return 0;
      });
    return done.get();
  };
  auto all = monitor({"monitor", "--all-nodes", "--count", "2"});
  ASSERT_EQ(all.exit_code, 0) << all.err;
  EXPECT_EQ(all.out,
            "node default route-miss dev fp1 198.18.9.9\n"
            "node r1 route-miss dev r1-eth0 198.18.9.9\n");
  auto r1 = monitor({"--node", "r1", "--json", "monitor", "--count", "1"});
  ASSERT_EQ(r1.exit_code, 0) << r1.err;
  EXPECT_EQ(r1.out,
            "{\"event\":\"route-miss\",\"node\":\"r1\",\"dev\":\"r1-eth0\",\"port\":10,"
            "\"address\":\"198.18.9.9\"}\n");
  auto dflt = monitor({"monitor", "--count", "1"});
  EXPECT_EQ(dflt.out, "route-miss dev fp1 198.18.9.9\n");
}

TEST_F(FpctlNodes, ChangingNodesAndLinksAsAnotherUserIsPermissionDenied) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to run fpctl as another user";
  // A server that lets nobody talk (group 65534) without making it an operator.
  ServerOptions o;
  o.socket_mode = 0666;
  o.allowed_gids = {65534};
  ServerHarness h(o, std::make_unique<testing::MultiNodeBackend>());
  ASSERT_TRUE(h.start());
  ::chmod(h.dir().c_str(), 0755);
  auto add = fpctl({"-s", h.socketPath(), "node", "add", "r7"}, 65534);
  EXPECT_EQ(add.exit_code, 4) << add.err;
  EXPECT_NE(add.err.find("needs an operator"), std::string::npos) << add.err;
  ASSERT_TRUE(h.onServer([&] {
    auto& m = static_cast<testing::MultiNodeBackend&>(h.backend());
    LinkSpec l;
    l.name = "l";
    l.a = {"default", "l", {}, 1500};
    l.b = {"r8", "l", {}, 1500};
    return m.createNode(NodeSpec{"r8", ""}) && m.createLink(l);
  }));
  auto emulate = fpctl({"-s", h.socketPath(), "link", "set", "l", "delay", "5ms"}, 65534);
  EXPECT_EQ(emulate.exit_code, 4) << emulate.err;
  EXPECT_EQ(fpctl({"-s", h.socketPath(), "node", "list"}, 65534).exit_code, 0);
}

TEST_F(FpctlNodes, LinkShowHasAQueueDisciplinesRows) {
  ASSERT_EQ(run({"link", "add", "r1-r2", "r1:to-r2", "r2", "rate", "10mbit"}).exit_code, 0);
  // Without a queue discipline on either direction there are no aqm rows.
  auto plain = run({"link", "show", "r1-r2"});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(plain.out.find("aqm"), std::string::npos) << plain.out;
  auto set = run({"link", "set", "r1-r2", "a-to-b", "aqm", "codel", "target", "2ms", "ecn"});
  ASSERT_EQ(set.exit_code, 0) << set.err;
  h_->onServer([&] {
    LinkDirectionStats s;
    s.tx_packets = 1000;
    s.delivered = 990;
    s.aqm_drops = 7;
    s.aqm_marks = 2;
    s.queue_drops = 3;
    return multi_->setLinkStats("r1-r2", s, LinkDirectionStats{});
  });
  auto show = run({"link", "show", "r1-r2"});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  for (const char* line : {"    aqm             codel aqm-limit-bytes 1500000 target 2ms interval 100ms ecn none\n",
                           "    queue drops     3                        0\n",
                           "    aqm drops       7                        0\n",
                           "    aqm marks       2                        0\n",
                           "    drop ratio      1.00%                    -\n"})
    EXPECT_NE(show.out.find(line), std::string::npos) << line << "\n" << show.out;
}

TEST_F(FpctlSegments, SegmentShowCountsBackoffDropsApart) {
  ASSERT_EQ(run({"segment", "add", "lan", "r1", "r2", "rate", "10mbit"}).exit_code, 0);
  auto quiet = run({"segment", "show", "lan"});
  ASSERT_EQ(quiet.exit_code, 0) << quiet.err;
  EXPECT_EQ(quiet.out.find("backoff"), std::string::npos) << "none yet: " << quiet.out;
  ASSERT_TRUE(h_->onServer([&] {
    LinkDirectionStats s;
    s.tx_packets = 1000;
    s.delivered = 990;
    s.queue_drops = 4;
    s.backoff_drops = 6;
    return multi_->setSegmentStats("lan", s);
  }));
  auto show = run({"segment", "show", "lan"});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_NE(show.out.find("  medium, measured:   sent 1000, delivered 990, dropped 10 (1.00%; "
                          "queue 4, loss 0, capacity 0, down 0, backoff 6), "),
            std::string::npos)
      << show.out;
  auto json = run({"--json", "segment", "show", "lan"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_NE(json.out.find(R"("queue_drops":4,)"), std::string::npos) << json.out;
  EXPECT_NE(json.out.find(R"("backoff_drops":6,)"), std::string::npos) << json.out;
  EXPECT_NE(json.out.find(R"("drop_ratio":0.01})"), std::string::npos) << json.out;
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
