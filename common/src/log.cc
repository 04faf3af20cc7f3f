// SPDX-License-Identifier: GPL-2.0-only
#include "fastpath/log.h"

#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <string>

namespace fastpath {
namespace {

std::atomic<LogLevel> g_level{LogLevel::kInfo};
const char* const kPrefix[] = {"error: ", "warning: ", "", "debug: "};

}  // namespace

void logPrintV(LogLevel level, const char* fmt, va_list ap) {
  if (level > g_level.load(std::memory_order_relaxed)) return;
  // One write per line so lines from several threads do not interleave.
  char buf[1024];
  int n = std::snprintf(buf, sizeof(buf), "%s", kPrefix[static_cast<int>(level)]);
  std::vsnprintf(buf + n, sizeof(buf) - n, fmt, ap);
  std::fputs(buf, stderr);
  if (buf[0] && buf[std::char_traits<char>::length(buf) - 1] != '\n') std::fputc('\n', stderr);
}

void setLogLevel(LogLevel level) { g_level.store(level); }
LogLevel logLevel() { return g_level.load(); }

void logPrint(LogLevel level, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  logPrintV(level, fmt, ap);
  va_end(ap);
}

}  // namespace fastpath
