// SPDX-License-Identifier: GPL-2.0-only
// fastpathd: parse and validate the configuration, start the data plane (fastpath's
// Daemon), serve the control socket (ctrl-bridge's ControlServer) until SIGINT/SIGTERM,
// then tear everything down. This file is the only place that knows both.
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <string>

#include "daemon/config.h"
#include "daemon/daemon.h"
#include "fastpath/ctrl/server.h"
#include "fastpath/libbpf_log.h"
#include "fastpath/log.h"

namespace {
std::atomic<bool> g_stop{false};
void onSignal(int) { g_stop.store(true); }

fastpath::ctrl::ServerOptions serverOptions(const fastpath::Config& config) {
  fastpath::ctrl::ServerOptions so;
  so.socket_path = config.control_socket;
  if (config.control_uid) {
    // The socket belongs to that user (mode 0660), so that it can connect at all.
    so.socket_owner = config.control_uid;
    so.allowed_uids.push_back(config.control_uid);
  }
  if (config.operator_connections) {
    // An ns-3 script attaching N nodes holds N + 1 connections; room for two such processes.
    so.max_clients_per_operator_pid = config.operator_connections;
    so.operator_clients = std::max<std::size_t>(so.operator_clients,
                                                2 * std::size_t(config.operator_connections));
  }
  if (config.control_gid_set) {
    so.socket_group = std::to_string(config.control_gid);
    so.allowed_gids.push_back(config.control_gid);
  }
  return so;
}
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
  ctrl::ControlServer server(daemon, serverOptions(*config));
  if (auto st = server.start(); !st) {
    pr_err("fastpathd: %s", st.error().message.c_str());
    daemon.shutdown();
    return 1;
  }
  pr_info("control socket %s", config->control_socket.c_str());
  pr_info("fastpathd: forwarding; SIGINT/SIGTERM to stop");
  Status st = daemon.run(g_stop, [&server](int timeout_ms) {
    auto r = server.poll(timeout_ms);
    if (!r && r.error().code != -EINTR) pr_warn("control socket: %s", r.error().message.c_str());
  });
  server.stop();
  daemon.shutdown();
  if (!st) {
    pr_err("fastpathd: %s", st.error().message.c_str());
    return 1;
  }
  pr_info("fastpathd: stopped cleanly");
  return 0;
}
