// SPDX-License-Identifier: GPL-2.0-only
#include "fastpath/libbpf_log.h"

#include <bpf/libbpf.h>
#include <xdp/libxdp.h>

#include <atomic>
#include <cstdarg>

#include "fastpath/log.h"

namespace fastpath {
namespace {

std::atomic<int> g_quiet{0};

LogLevel demote(int libbpf_level) {
  if (g_quiet.load(std::memory_order_relaxed) > 0)
    return libbpf_level == LIBBPF_DEBUG
               ? static_cast<LogLevel>(static_cast<int>(LogLevel::kDebug) + 1)
               : LogLevel::kDebug;
  switch (libbpf_level) {
    case LIBBPF_WARN: return LogLevel::kInfo;
    case LIBBPF_INFO: return LogLevel::kDebug;
    default: return static_cast<LogLevel>(static_cast<int>(LogLevel::kDebug) + 1);
  }
}

int libbpfPrint(enum libbpf_print_level level, const char* fmt, va_list ap) {
  logPrintV(demote(level), fmt, ap);
  return 0;
}

int libxdpPrint(enum libxdp_print_level level, const char* fmt, va_list ap) {
  logPrintV(demote(static_cast<int>(level)), fmt, ap);
  return 0;
}

}  // namespace

QuietLibbpfLogs::QuietLibbpfLogs() { g_quiet.fetch_add(1, std::memory_order_relaxed); }
QuietLibbpfLogs::~QuietLibbpfLogs() { g_quiet.fetch_sub(1, std::memory_order_relaxed); }

void routeLibbpfLogs() {
  libbpf_set_print(libbpfPrint);
  libxdp_set_print(libxdpPrint);
}

}  // namespace fastpath
