// SPDX-License-Identifier: GPL-2.0-only
#include "fastpath/log.h"

#include <bpf/libbpf.h>
#include <xdp/libxdp.h>

#include <atomic>
#include <cstdarg>
#include <cstdio>

namespace fastpath {
namespace {

std::atomic<LogLevel> g_level{LogLevel::kInfo};
const char* const kPrefix[] = {"error: ", "warning: ", "", "debug: "};

void vlog(LogLevel level, const char* fmt, va_list ap) {
  if (level > g_level.load(std::memory_order_relaxed)) return;
  // One write per line so lines from several threads do not interleave.
  char buf[1024];
  int n = std::snprintf(buf, sizeof(buf), "%s", kPrefix[static_cast<int>(level)]);
  std::vsnprintf(buf + n, sizeof(buf) - n, fmt, ap);
  std::fputs(buf, stderr);
  if (buf[0] && buf[std::char_traits<char>::length(buf) - 1] != '\n') std::fputc('\n', stderr);
}

LogLevel demote(int libbpf_level) {
  switch (libbpf_level) {
    case LIBBPF_WARN: return LogLevel::kInfo;
    case LIBBPF_INFO: return LogLevel::kDebug;
    default: return static_cast<LogLevel>(static_cast<int>(LogLevel::kDebug) + 1);
  }
}

int libbpfPrint(enum libbpf_print_level level, const char* fmt, va_list ap) {
  vlog(demote(level), fmt, ap);
  return 0;
}

int libxdpPrint(enum libxdp_print_level level, const char* fmt, va_list ap) {
  vlog(demote(static_cast<int>(level)), fmt, ap);
  return 0;
}

}  // namespace

void setLogLevel(LogLevel level) { g_level.store(level); }
LogLevel logLevel() { return g_level.load(); }

void routeLibbpfLogs() {
  libbpf_set_print(libbpfPrint);
  libxdp_set_print(libxdpPrint);
}

void logPrint(LogLevel level, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vlog(level, fmt, ap);
  va_end(ap);
}

}  // namespace fastpath
