// SPDX-License-Identifier: GPL-2.0-only
// Runs the real fpctl binary (FPCTL_PATH) against a real server in a temporary directory:
// over a TableBackend (Fpctl), over a backend with nodes (FpctlNodes) or with segments and
// hosts too (FpctlSegments).
#pragma once

#include <grp.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "hosts_backend.h"
#include "multi_node_backend.h"
#include "server_harness.h"

namespace fastpath::ctrl::testing {

struct FpctlRun {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// Runs the fpctl binary (as `uid` when >= 0; the caller must be root then).
inline FpctlRun fpctl(const std::vector<std::string>& args, int uid = -1) {
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

}  // namespace fastpath::ctrl::testing
