// SPDX-License-Identifier: GPL-2.0-only
// fastpathd as the veth tests run the real binary: a child process inside an fp-*
// namespace, reached through its control socket once it opened it.
#pragma once

#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "fastpath/ctrl/client.h"

namespace fastpath::testing {

/// Forks `argv` (argv[0]: the program) inside network namespace `netns` through
/// `nsenter --net`, so that the child keeps the test's mount namespace (the namespaces it
/// mounts are visible to the test); its stdout and stderr are appended to `log`. The
/// child's pid (negative if fork failed).
inline pid_t spawnInNetns(const std::string& netns, const std::string& log,
                          const std::vector<std::string>& argv) {
  std::vector<std::string> all = {"nsenter", "--net=/run/netns/" + netns};
  all.insert(all.end(), argv.begin(), argv.end());
  std::vector<char*> args;
  for (auto& a : all) args.push_back(a.data());
  args.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    std::freopen(log.c_str(), "a", stdout);
    std::freopen(log.c_str(), "a", stderr);
    ::execvp("nsenter", args.data());
    _exit(127);
  }
  return pid;
}

/// Sets `*client` to a client of the control socket `sock`, tried every 50 ms for 5 s (the
/// time a fastpathd just started takes to open it); a fatal failure naming `log` when it
/// never opens (call through ASSERT_NO_FATAL_FAILURE to stop the test there).
inline void connectWhenOpen(const std::string& sock, const std::string& log,
                            std::unique_ptr<ctrl::Client>* client) {
  for (int i = 0; i < 100; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (auto c = ctrl::Client::connect(sock, {})) {
      *client = std::move(c).value();
      return;
    }
  }
  FAIL() << "fastpathd did not open " << sock << "; log: " << log;
}

}  // namespace fastpath::testing
