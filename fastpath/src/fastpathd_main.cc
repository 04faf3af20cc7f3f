// SPDX-License-Identifier: GPL-2.0-only
// fastpathd: parse and validate the configuration, start the data plane, serve the
// control socket until SIGINT/SIGTERM, then tear everything down.
#include <signal.h>

#include <atomic>
#include <cstdio>

#include "fastpath/config.h"
#include "fastpath/daemon.h"
#include "fastpath/log.h"

namespace {
std::atomic<bool> g_stop{false};
void onSignal(int) { g_stop.store(true); }
}  // namespace

int main(int argc, char** argv) {
  using namespace fastpath;
  bool help = false;
  auto config = parseCommandLine(argc, argv, &help);
  if (help) {
    std::fputs(usageText().c_str(), stdout);
    return 0;
  }
  if (!config) {
    pr_err("%s", config.error().message.c_str());
    return 2;
  }
  setLogLevel(config->log_level);
  routeLibbpfLogs();
  if (auto st = validateConfig(*config); !st) {
    pr_err("%s", st.error().message.c_str());
    return 2;
  }
  struct sigaction sa {};
  sa.sa_handler = onSignal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  signal(SIGPIPE, SIG_IGN);

  Daemon daemon(*config);
  if (auto st = daemon.start(); !st) {
    pr_err("fastpathd: %s", st.error().message.c_str());
    return 1;
  }
  pr_info("fastpathd: forwarding; SIGINT/SIGTERM to stop");
  Status st = daemon.run(g_stop);
  daemon.shutdown();
  if (!st) {
    pr_err("fastpathd: %s", st.error().message.c_str());
    return 1;
  }
  pr_info("fastpathd: stopped cleanly");
  return 0;
}
