// SPDX-License-Identifier: GPL-2.0-only
// What fpctl's commands share: exit codes, global options, error reporting, flag parsing
// and the connection (Session). One file per object implements its command
// (route.cc, neigh.cc, rules.cc, stats.cc, ports.cc, monitor.cc, node.cc, link.cc);
// main.cc dispatches.
#pragma once

#include <csignal>
#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "fastpath/ctrl/client.h"
#include "route_spec.h"

namespace fastpath::ctrl::fpctl {

// Exit codes (documented in docs/reference/fpctl.md and --help).
inline constexpr int kExitOk = 0;
inline constexpr int kExitRejected =
    1;                                  // fastpathd refused the request (bad field, not found, ...)
inline constexpr int kExitUsage = 2;    // bad command line
inline constexpr int kExitConnect = 3;  // cannot reach fastpathd / connection lost / timeout
inline constexpr int kExitPermission = 4;  // not allowed to talk to fastpathd
inline constexpr int kExitVersion = 5;     // protocol version mismatch

struct Global {
  std::string socket = kDefaultSocketPath;
  bool json = false;
  bool help = false;
  int timeout_ms = 60000;
  std::size_t chunk = 100000;
  std::string node;               // --node: the fastpathd node to talk to (empty = default)
  std::vector<std::string> args;  // positional and command-specific options
};

/// Set by SIGINT/SIGTERM: long-running commands (stats --watch, monitor) stop.
extern volatile std::sig_atomic_t g_stop;

/// The exit code for an error from the client library (`connected`: the request reached
/// fastpathd, so "not found" is a refusal rather than a missing socket).
int exitFor(const Error& e, bool connected);
/// Prints the error and returns its exit code.
int fail(const Error& e, bool connected);
/// The command's help: on stdout with exit 0 when asked for (--help), else on stderr with
/// kExitUsage (the command was given without arguments).
int printHelp(const Global& g, const char* help);
/// Prints `msg` and the command's help; returns kExitUsage.
int usage(const std::string& msg, const char* help);
/// Removes `--flag` (and its value when takes_value) from args; returns whether present.
bool takeFlag(std::vector<std::string>& args, const std::string& flag, std::string* value = nullptr,
              bool value_optional = false);
/// "ok" for a command without output: nothing, or `what` (with the time) in text, or JSON.
int printOk(const Global& g, const std::string& what, double seconds = -1);
/// Empty when `name` is a valid node, link or link port name (1..31 characters of
/// [A-Za-z0-9_.-], as fastpathd checks it); otherwise why not.
std::string nameProblem(const std::string& name);

class Session;

/// `KIND del NAME` (`a`: the words after del): the name checked, then `del` of it sent;
/// "KIND NAME deleted".
int deleteNamed(const Global& g, Session& s, const std::string& kind,
                const std::vector<std::string>& a, const char* help,
                Status (Client::*del)(const std::string&));

/// The connection to fastpathd for one command, with the port names it knows.
class Session {
 public:
  explicit Session(const Global& g) : g_(g) {}

  /// Connects; with --node (and `bind_node`), binds the connection to that node (an
  /// unknown node is fastpathd's refusal: exit 1).
  int connect(bool bind_node = true);

  Client& client() { return *client_; }

  PortLookup portLookup();

  std::string portName(PortId id);
  /// A port's name in another node (monitor --all-nodes); "port<id>" when unknown.
  std::string portName(const std::string& node, PortId id);

 private:
  const Global& g_;
  std::unique_ptr<Client> client_;
  bool ports_loaded_ = false;
  std::map<std::string, PortId> names_;
  std::map<PortId, std::string> ids_;
  std::map<std::string, std::map<PortId, std::string>> node_ports_;
};

int cmdRoute(const Global& g);
int cmdNeigh(const Global& g);
int cmdRules(const Global& g);
int cmdStats(const Global& g);
int cmdPorts(const Global& g);
int cmdMonitor(const Global& g);
int cmdNode(const Global& g);
int cmdLink(const Global& g);
int cmdSegment(const Global& g);
int cmdBridge(const Global& g);
int cmdMedium(const Global& g);
int cmdHost(const Global& g);
int cmdMultiHost(const Global& g);
int cmdCapture(const Global& g);

class JsonWriter;

/// Which fields of a port portJson writes.
enum class PortJsonFields {
  kAll,       ///< `fpctl ports`: id ifname ifindex mac mtu up queues xdp_mode xsk_mode node link
  kNodeShow,  ///< `fpctl node show`: id ifname mac mtu up link
};
/// One port as a JSON object; "link" is null for an interface port.
void portJson(JsonWriter& w, const PortInfo& p, PortJsonFields fields);

/// Prints "histograms and maxima since 2026-11-29 00:51:02.123 UTC (reset 2 time(s));
/// counters since fastpathd started" after `indent`: the last line of what shows histograms
/// (stats, link show, segment show); nothing when fastpathd does not say (older than
/// protocol 1.14).
void printHistogramsSince(const StatsEpoch& epoch, const char* indent);
/// The same as JSON, in the open object: key "histograms", {"since_unix_ns", "resets"};
/// nothing when fastpathd does not say.
void histogramsSinceJson(JsonWriter& w, const StatsEpoch& epoch);

}  // namespace fastpath::ctrl::fpctl
