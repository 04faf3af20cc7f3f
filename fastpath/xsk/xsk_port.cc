// SPDX-License-Identifier: GPL-2.0-only
#include "xsk/xsk_port.h"

#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "fastpath/log.h"

#ifndef SO_PREFER_BUSY_POLL
#define SO_PREFER_BUSY_POLL 69
#endif
// Linux 6.17+: frames the copy-mode TX path sends per sendto() (default 32).
#ifndef XDP_MAX_TX_SKB_BUDGET
#define XDP_MAX_TX_SKB_BUDGET 9
#endif
#ifndef SO_BUSY_POLL_BUDGET
#define SO_BUSY_POLL_BUDGET 70
#endif

namespace fastpath {
namespace {

xsk_socket_config socketConfig(const XskOptions& o, uint16_t bind_flags) {
  xsk_socket_config cfg{};
  cfg.rx_size = o.rx_size;
  cfg.tx_size = o.tx_size;
  cfg.libxdp_flags = XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD;  // the classifier is A's program
  cfg.xdp_flags = 0;
  cfg.bind_flags = bind_flags;
  return cfg;
}

}  // namespace

bool xskZeroCopySupported(const std::string& ifname, uint32_t queue) {
  // A throw-away UMEM and socket bound with XDP_ZEROCOPY: the kernel refuses the bind when
  // the driver has no zero-copy support. (libxdp closes the UMEM fd when the first bind
  // fails, so the real UMEM cannot be used for the probe.)
  UmemOptions uo;
  uo.frames = 64;
  uo.fill_size = 64;
  uo.comp_size = 64;
  auto umem = Umem::create(uo);
  if (!umem.ok()) return false;
  XskOptions o;
  o.rx_size = 64;
  o.tx_size = 64;
  xsk_socket_config cfg = socketConfig(o, XDP_ZEROCOPY | XDP_USE_NEED_WAKEUP);
  xsk_socket* xsk = nullptr;
  xsk_ring_cons rx{};
  xsk_ring_prod tx{};
  int err = xsk_socket__create_shared(&xsk, ifname.c_str(), queue, (*umem)->handle(), &rx, &tx,
                                      (*umem)->initialFill(), (*umem)->initialComp(), &cfg);
  if (err) {
    // libxdp may have closed the UMEM fd with the failed first socket: leak the small
    // handle rather than risk closing an fd number reused by another thread.
    (*umem)->abandonHandle();
    return false;
  }
  xsk_socket__delete(xsk);
  return true;
}

Result<std::unique_ptr<XskSocket>> XskSocket::create(Umem& umem, const XskOptions& options) {
  std::unique_ptr<XskSocket> s(new XskSocket());
  s->options_ = options;
  uint16_t bind = XDP_USE_NEED_WAKEUP;
  if (options.mode == XskMode::kZeroCopy) bind |= XDP_ZEROCOPY;
  if (options.mode == XskMode::kCopy) bind |= XDP_COPY;
  xsk_socket_config cfg = socketConfig(options, bind);
  int err = xsk_socket__create_shared(&s->xsk_, options.ifname.c_str(), options.queue,
                                      umem.handle(), &s->rx, &s->tx, &s->fill, &s->comp, &cfg);
  if (err) {
    return makeError(err, "AF_XDP socket on " + options.ifname + " queue " +
                              std::to_string(options.queue) + ": " + std::strerror(-err) +
                              (options.mode == XskMode::kZeroCopy
                                   ? " (zero-copy requested: the driver may not support it; "
                                     "use --xsk-mode copy)"
                                   : " (is the queue already bound by another AF_XDP socket?)"));
  }
  s->fd_ = xsk_socket__fd(s->xsk_);
  xdp_options xo{};
  socklen_t len = sizeof(xo);
  if (getsockopt(s->fd_, SOL_XDP, XDP_OPTIONS, &xo, &len) == 0)
    s->zero_copy_ = (xo.flags & XDP_OPTIONS_ZEROCOPY) != 0;
  if (!s->zero_copy_) {
    // Copy mode transmits from sendto(): a larger budget per call means fewer syscalls.
    // Older kernels refuse the option (ENOPROTOOPT); 32 per call then.
    int budget = int(std::min<uint32_t>(options.tx_size, 512));
    if (setsockopt(s->fd_, SOL_XDP, XDP_MAX_TX_SKB_BUDGET, &budget, sizeof(budget)) == 0)
      s->tx_budget_ = uint32_t(budget);
  }
  if (options.busy_poll) {
    int one = 1;
    int usecs = int(options.busy_poll_usecs);
    int budget = int(options.busy_poll_budget);
    if (setsockopt(s->fd_, SOL_SOCKET, SO_PREFER_BUSY_POLL, &one, sizeof(one)) ||
        setsockopt(s->fd_, SOL_SOCKET, SO_BUSY_POLL, &usecs, sizeof(usecs)) ||
        setsockopt(s->fd_, SOL_SOCKET, SO_BUSY_POLL_BUDGET, &budget, sizeof(budget))) {
      pr_warn("%s queue %u: busy polling not available (%s); continuing without it",
              options.ifname.c_str(), options.queue, std::strerror(errno));
    }
  }
  if (options.xsks_map_fd >= 0) {
    err = xsk_socket__update_xskmap(s->xsk_, options.xsks_map_fd);
    if (err)
      return makeError(err, "registering the AF_XDP socket of " + options.ifname + " queue " +
                                std::to_string(options.queue) +
                                " in xsks_map failed: " + std::strerror(-err));
  }
  return s;
}

// Ring memory of an in-memory socket, laid out like the kernel's struct xdp_ring: the
// producer and the consumer (+ flags) words on their own cache lines, then the entries.
struct XskSocket::RingMemory {
  struct Block {
    void* mem = nullptr;
    ~Block() { std::free(mem); }
  };
  Block blocks[4];

  template <typename Ring>
  void init(Block& b, Ring& r, uint32_t size, size_t entry, bool producer_side) {
    const size_t bytes = 128 + size_t(size) * entry;
    b.mem = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
    std::memset(b.mem, 0, bytes);
    auto* base = static_cast<uint8_t*>(b.mem);
    r.producer = reinterpret_cast<__u32*>(base);
    r.consumer = reinterpret_cast<__u32*>(base + 64);
    r.flags = reinterpret_cast<__u32*>(base + 68);
    r.ring = base + 128;
    r.mask = size - 1;
    r.size = size;
    r.cached_prod = 0;
    // As libxdp's xsk_socket__create: a producer's cached consumer runs `size` ahead.
    r.cached_cons = producer_side ? size : 0;
  }
};

std::unique_ptr<XskSocket> XskSocket::createInMemory(const XskOptions& options, uint32_t fill_size,
                                                     uint32_t comp_size) {
  std::unique_ptr<XskSocket> s(new XskSocket());
  s->options_ = options;
  s->memory_ = std::make_unique<RingMemory>();
  RingMemory& m = *s->memory_;
  m.init(m.blocks[0], s->rx, options.rx_size, sizeof(xdp_desc), false);
  m.init(m.blocks[1], s->tx, options.tx_size, sizeof(xdp_desc), true);
  m.init(m.blocks[2], s->fill, fill_size, sizeof(uint64_t), true);
  m.init(m.blocks[3], s->comp, comp_size, sizeof(uint64_t), false);
  return s;
}

XskSocket::~XskSocket() {
  if (xsk_) xsk_socket__delete(xsk_);
}

Result<xdp_statistics> XskSocket::statistics() const {
  xdp_statistics st{};
  socklen_t len = sizeof(st);
  if (getsockopt(fd_, SOL_XDP, XDP_STATISTICS, &st, &len) != 0)
    return makeError(
        -errno, std::string("XDP_STATISTICS on ") + options_.ifname + ": " + std::strerror(errno));
  return st;
}

}  // namespace fastpath
