// SPDX-License-Identifier: GPL-2.0-only
// One levelled logging facade for fastpathd, fpctl and the tests (xdp-tools style
// pr_warn/pr_info/pr_debug). libbpf's and libxdp's output is routed in by
// routeLibbpfLogs() (fastpath/libbpf_log.h), so that only programs that use BPF link them.
#pragma once

#include <chrono>
#include <cstdarg>
#include <mutex>

namespace fastpath {

enum class LogLevel { kError = 0, kWarn = 1, kInfo = 2, kDebug = 3 };

void setLogLevel(LogLevel level);
LogLevel logLevel();
void logPrint(LogLevel level, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
void logPrintV(LogLevel level, const char* fmt, va_list ap) __attribute__((format(printf, 2, 0)));

/// Lets at most `burst` lines through per `interval` (one call site each, see
/// pr_warn_ratelimited): what a client or the network can trigger at will must not flood
/// the log. The first line after a suppressed stretch says how many were suppressed.
class LogRateLimit {
 public:
  LogRateLimit(unsigned burst, std::chrono::milliseconds interval)
      : burst_(burst), interval_(interval) {}
  /// True when this line may be printed; then *suppressed is the number of lines held
  /// back since the last one printed.
  bool allow(unsigned long long* suppressed) {
    std::lock_guard<std::mutex> lock(mu_);
    const auto now = std::chrono::steady_clock::now();
    if (now - window_start_ >= interval_) {
      window_start_ = now;
      used_ = 0;
    }
    if (used_ >= burst_) {
      ++suppressed_;
      return false;
    }
    ++used_;
    *suppressed = suppressed_;
    suppressed_ = 0;
    return true;
  }

 private:
  std::mutex mu_;
  const unsigned burst_;
  const std::chrono::milliseconds interval_;
  std::chrono::steady_clock::time_point window_start_{};
  unsigned used_ = 0;
  unsigned long long suppressed_ = 0;
};

}  // namespace fastpath

/// At most 10 lines per 5 s from this call site.
#define pr_ratelimited(level, ...)                                                      \
  do {                                                                                  \
    static ::fastpath::LogRateLimit fp_log_limit_(10, std::chrono::seconds(5));         \
    unsigned long long fp_suppressed_ = 0;                                              \
    if (fp_log_limit_.allow(&fp_suppressed_)) {                                         \
      if (fp_suppressed_)                                                               \
        ::fastpath::logPrint(level, "(%llu similar lines suppressed)", fp_suppressed_); \
      ::fastpath::logPrint(level, __VA_ARGS__);                                         \
    }                                                                                   \
  } while (0)
#define pr_warn_ratelimited(...) pr_ratelimited(::fastpath::LogLevel::kWarn, __VA_ARGS__)
#define pr_info_ratelimited(...) pr_ratelimited(::fastpath::LogLevel::kInfo, __VA_ARGS__)

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
