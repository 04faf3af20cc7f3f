// SPDX-License-Identifier: GPL-2.0-only
#include "fastpath/libbpf_log.h"

#include <bpf/libbpf.h>
#include <xdp/libxdp.h>

#include <cstdarg>

#include "fastpath/log.h"

namespace fastpath {
namespace {

LogLevel demote(int libbpf_level) {
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

void routeLibbpfLogs() {
  libbpf_set_print(libbpfPrint);
  libxdp_set_print(libxdpPrint);
}

}  // namespace fastpath
