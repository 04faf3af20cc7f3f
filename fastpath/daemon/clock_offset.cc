// SPDX-License-Identifier: GPL-2.0-only
#include "daemon/clock_offset.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <vector>

namespace fastpath {
namespace {

std::string run(const std::string& cmd) {
  std::string out;
  if (FILE* p = popen(cmd.c_str(), "r")) {
    char buf[512];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), p)) > 0) out.append(buf, n);
    pclose(p);
  }
  return out;
}

bool exists(const char* path) { return access(path, F_OK) == 0; }

}  // namespace

std::string ClockOffset::text() const {
  if (!known) return "unknown (" + source + ")";
  char b[64];
  std::snprintf(b, sizeof(b), "%+.0f us (%s)", offset_s * 1e6, source.c_str());
  return b;
}

ClockOffset parseChronyTracking(const std::string& csv) {
  std::vector<std::string> f;
  std::stringstream ss(csv.substr(0, csv.find('\n')));
  for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
  ClockOffset c;
  c.source = "chrony";
  if (f.size() < 6 || f[0] == "00000000" || f.back() == "Not synchronised") {
    c.source = "chrony has no reference";
    return c;
  }
  char* end = nullptr;
  c.offset_s = std::strtod(f[4].c_str(), &end);
  c.known = end && *end == '\0' && !f[4].empty() && std::isfinite(c.offset_s);
  if (!c.known) c.source = "chrony's answer was not understood";
  return c;
}

ClockOffset parsePmcTimeStatus(const std::string& text) {
  ClockOffset c;
  c.source = "ptp";
  std::istringstream in(text);
  bool gm = false, have = false;
  for (std::string key, value; in >> key;) {
    if (key == "gmPresent" && in >> value) gm = value == "true";
    if (key == "master_offset" && in >> value) {
      char* end = nullptr;
      const double ns = std::strtod(value.c_str(), &end);
      have = end && *end == '\0';
      c.offset_s = ns * 1e-9;
    }
  }
  c.known = gm && have;
  if (!c.known) c.source = "ptp4l has no grandmaster";
  return c;
}

ClockOffset readClockOffset() {
  if (exists("/run/chrony/chronyd.pid") || exists("/run/chrony/chronyd.sock"))
    return parseChronyTracking(run("chronyc -c tracking 2>/dev/null"));
  if (exists("/var/run/ptp4l"))
    return parsePmcTimeStatus(run("pmc -u -b 0 -t 1 'GET TIME_STATUS_NP' 2>/dev/null"));
  ClockOffset c;
  c.source = "neither chronyd nor ptp4l runs";
  return c;
}

}  // namespace fastpath
