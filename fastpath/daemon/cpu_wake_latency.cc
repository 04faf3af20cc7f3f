// SPDX-License-Identifier: GPL-2.0-only
#include "daemon/cpu_wake_latency.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace fastpath {

namespace {

Error openError(const std::string& path, int err) {
  std::string what = "CPU wake-up latency request: opening " + path + " failed: " +
                     std::strerror(err);
  if (err == EACCES || err == EPERM) what += " (needs root)";
  if (err == ENOENT) what += " (a kernel without CONFIG_CPU_IDLE PM QoS; drop --cpu-wake-latency-us)";
  return makeError(-err, what);
}

}  // namespace

Result<CpuWakeLatency> CpuWakeLatency::hold(uint32_t us, const std::string& path) {
  if (us > uint32_t(INT32_MAX))
    return makeError(-EINVAL, "CPU wake-up latency " + std::to_string(us) + " us is out of range");
  const int fd = open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) return openError(path, errno);
  // The kernel takes the value as a binary s32 when exactly 4 bytes are written.
  const int32_t v = int32_t(us);
  if (write(fd, &v, sizeof(v)) != ssize_t(sizeof(v))) {
    const int err = errno ? errno : EIO;
    close(fd);
    return makeError(-err, "CPU wake-up latency request: writing " + std::to_string(us) +
                               " us to " + path + " failed: " + std::strerror(err));
  }
  return CpuWakeLatency(fd, us);
}

Result<int32_t> CpuWakeLatency::current(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return openError(path, errno);
  int32_t v = 0;
  const ssize_t n = read(fd, &v, sizeof(v));
  const int err = errno;
  close(fd);
  if (n != ssize_t(sizeof(v)))
    return makeError(n < 0 ? -err : -EIO, "reading " + path + " failed: " +
                                              (n < 0 ? std::strerror(err) : "short read"));
  return v;
}

CpuWakeLatency& CpuWakeLatency::operator=(CpuWakeLatency&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) close(fd_);
    fd_ = o.fd_;
    us_ = o.us_;
    o.fd_ = -1;
  }
  return *this;
}

CpuWakeLatency::~CpuWakeLatency() {
  if (fd_ >= 0) close(fd_);
}

}  // namespace fastpath
