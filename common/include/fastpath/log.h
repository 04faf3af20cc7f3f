// SPDX-License-Identifier: GPL-2.0-only
// One levelled logging facade for fastpathd, fpctl and the tests (xdp-tools style
// pr_warn/pr_info/pr_debug). libbpf's and libxdp's output is routed in by
// routeLibbpfLogs() (fastpath/libbpf_log.h), so that only programs that use BPF link them.
#pragma once

#include <cstdarg>

namespace fastpath {

enum class LogLevel { kError = 0, kWarn = 1, kInfo = 2, kDebug = 3 };

void setLogLevel(LogLevel level);
LogLevel logLevel();
void logPrint(LogLevel level, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
void logPrintV(LogLevel level, const char* fmt, va_list ap) __attribute__((format(printf, 2, 0)));

}  // namespace fastpath

#define pr_err(...) ::fastpath::logPrint(::fastpath::LogLevel::kError, __VA_ARGS__)
#define pr_warn(...) ::fastpath::logPrint(::fastpath::LogLevel::kWarn, __VA_ARGS__)
#define pr_info(...) ::fastpath::logPrint(::fastpath::LogLevel::kInfo, __VA_ARGS__)
#ifdef NDEBUG
#define pr_debug(...) \
  do {                \
  } while (0)
#else
#define pr_debug(...) ::fastpath::logPrint(::fastpath::LogLevel::kDebug, __VA_ARGS__)
#endif
