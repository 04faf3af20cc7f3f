// SPDX-License-Identifier: GPL-2.0-only
#include "classifier_frames.h"

#include <bpf/bpf.h>
#include <linux/if_xdp.h>
#include <poll.h>
#include <sys/mman.h>
#include <xdp/xsk.h>

#include <chrono>
#include <cstring>

namespace fastpath::testing {
namespace {

void put16(Bytes& b, uint16_t v) {
  b.push_back(static_cast<uint8_t>(v >> 8));
  b.push_back(static_cast<uint8_t>(v));
}

void set16(Bytes& b, size_t at, uint16_t v) {
  b[at] = static_cast<uint8_t>(v >> 8);
  b[at + 1] = static_cast<uint8_t>(v);
}

void append(Bytes& b, const Bytes& more) { b.insert(b.end(), more.begin(), more.end()); }

template <size_t N>
void append(Bytes& b, const std::array<uint8_t, N>& more) {
  b.insert(b.end(), more.begin(), more.end());
}

uint16_t ipChecksum(const uint8_t* p, size_t n) {
  uint32_t sum = 0;
  for (size_t i = 0; i + 1 < n; i += 2) sum += (p[i] << 8) | p[i + 1];
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return static_cast<uint16_t>(~sum);
}

}  // namespace

Bytes udp(uint16_t sport, uint16_t dport, size_t payload) {
  Bytes b;
  put16(b, sport);
  put16(b, dport);
  put16(b, static_cast<uint16_t>(8 + payload));
  put16(b, 0);  // no checksum (IPv4); the classifier does not look at it
  b.resize(8 + payload, 0xab);
  return b;
}

Bytes tcp(uint16_t sport, uint16_t dport, size_t payload) {
  Bytes b;
  put16(b, sport);
  put16(b, dport);
  b.resize(12, 0);
  b.push_back(5 << 4);  // data offset 5 words
  b.push_back(0x02);    // SYN
  put16(b, 65535);
  put16(b, 0);
  put16(b, 0);
  b.resize(20 + payload, 0xcd);
  return b;
}

Bytes icmp(uint8_t type, size_t payload) {
  Bytes b = {type, 0, 0, 0};
  b.resize(4 + payload, 0);
  return b;
}

size_t l3Offset(const L2& l2) { return 14 + 4 * l2.tags.size(); }

Bytes ethernet(const L2& l2, uint16_t ethertype, const Bytes& payload) {
  Bytes b;
  append(b, l2.dst);
  append(b, l2.src);
  for (size_t i = 0; i < l2.tags.size(); ++i) {
    put16(b, l2.tags[i]);
    b.push_back(0);  // priority 0, then VLAN id 100 + i
    b.push_back(static_cast<uint8_t>(100 + i));
  }
  put16(b, ethertype);
  append(b, payload);
  if (b.size() < 60) b.resize(60, 0);  // minimum frame: padding beyond the IP length
  return b;
}

Bytes arp(const L2& l2) {
  Bytes a;
  put16(a, 1);       // Ethernet
  put16(a, 0x0800);  // IPv4
  a.push_back(6);
  a.push_back(4);
  put16(a, 1);  // request
  append(a, l2.src);
  append(a, std::array<uint8_t, 4>{198, 18, 0, 1});
  append(a, Mac{});
  append(a, std::array<uint8_t, 4>{198, 18, 0, 2});
  return ethernet(l2, 0x0806, a);
}

Bytes ipv4(const L2& l2, const V4& ip, const Bytes& l4) {
  Bytes h;
  h.push_back(static_cast<uint8_t>((ip.version << 4) | (ip.ihl & 0xf)));
  h.push_back(0);
  size_t hlen = ip.ihl >= 5 ? ip.ihl * 4u : 20u;
  put16(h, static_cast<uint16_t>(static_cast<int>(hlen + l4.size()) + ip.tot_len_delta));
  put16(h, 0x1234);
  put16(h, ip.frag_off);
  h.push_back(ip.ttl);
  h.push_back(ip.proto);
  put16(h, 0);
  append(h, ip.src);
  append(h, ip.dst);
  if (hlen > 20) {  // options: one record-route-free NOP list, then end of options
    h.resize(hlen - 1, 0x01);
    h.push_back(0x00);
  }
  set16(h, 10, ipChecksum(h.data(), hlen));
  append(h, l4);
  return ethernet(l2, 0x0800, h);
}

Bytes ipv6(const L2& l2, const V6& ip, const Bytes& l4) {
  Bytes ext;
  for (size_t i = 0; i < ip.ext.size(); ++i) {
    const Ext& e = ip.ext[i];
    uint8_t next = i + 1 < ip.ext.size() ? ip.ext[i + 1].type : ip.proto;
    size_t start = ext.size();
    ext.push_back(next);
    if (e.type == 44) {
      ext.push_back(0);
      put16(ext, e.frag);
      ext.insert(ext.end(), {0, 0, 0, 42});  // identification
      continue;
    }
    ext.push_back(static_cast<uint8_t>(e.type == 51 ? e.len / 4 - 2 : e.len / 8 - 1));
    ext.resize(start + e.len, 0);
    if (e.len >= 8 && e.type != 51)
      ext[start + 2] = 1, ext[start + 3] = static_cast<uint8_t>(e.len - 4);  // PadN
  }
  Bytes h;
  h.push_back(static_cast<uint8_t>(ip.version << 4));
  h.insert(h.end(), {0, 0, 0});
  put16(h, static_cast<uint16_t>(ext.size() + l4.size()));
  h.push_back(ip.ext.empty() ? ip.proto : ip.ext[0].type);
  h.push_back(ip.hop_limit);
  append(h, ip.src);
  append(h, ip.dst);
  append(h, ext);
  append(h, l4);
  return ethernet(l2, 0x86dd, h);
}

RunResult runFrame(int prog_fd, const Bytes& frame, uint32_t repeat) {
  RunResult r;
  Bytes out(frame.size() + 256);
  xdp_md ctx_in{};
  xdp_md ctx_out{};
  ctx_in.data_end = static_cast<uint32_t>(frame.size());
  LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = frame.data(), .data_out = out.data(),
              .data_size_in = static_cast<uint32_t>(frame.size()),
              .data_size_out = static_cast<uint32_t>(out.size()), .ctx_in = &ctx_in,
              .ctx_out = &ctx_out, .ctx_size_in = sizeof(ctx_in), .ctx_size_out = sizeof(ctx_out),
              .repeat = static_cast<int>(repeat));
  int err = bpf_prog_test_run_opts(prog_fd, &opts);
  if (err) {
    r.err = -errno;
    return r;
  }
  r.retval = opts.retval;
  r.duration = opts.duration;
  // XDP test_run returns the data from data_meta on; ctx_out.data is the metadata length.
  r.meta_len = ctx_out.data;
  size_t total = opts.data_size_out;
  if (r.meta_len == sizeof(fp_xdp_meta) && total >= r.meta_len) {
    std::memcpy(&r.meta, out.data(), sizeof(r.meta));
    r.has_meta = r.meta.magic == FP_META_MAGIC;
  }
  if (total >= r.meta_len) r.out.assign(out.begin() + r.meta_len, out.begin() + total);
  return r;
}

// ---- AF_XDP ----

namespace {
constexpr uint32_t kFrames = 512;
constexpr uint32_t kFrameSize = XSK_UMEM__DEFAULT_FRAME_SIZE;
}  // namespace

struct TestXsk::Rings {
  xsk_umem* umem = nullptr;
  xsk_socket* xsk = nullptr;
  xsk_ring_prod fq{};
  xsk_ring_cons cq{};
  xsk_ring_cons rx{};
  xsk_ring_prod tx{};
};

TestXsk::TestXsk() : r_(new Rings) {}

TestXsk::~TestXsk() {
  if (r_->xsk) xsk_socket__delete(r_->xsk);
  if (r_->umem) xsk_umem__delete(r_->umem);
  if (buffer_) munmap(buffer_, size_);
}

int TestXsk::fd() const { return xsk_socket__fd(r_->xsk); }

std::unique_ptr<TestXsk> TestXsk::create(const std::string& ifname, uint32_t queue, int xsks_map_fd,
                                         std::string* error) {
  std::unique_ptr<TestXsk> t(new TestXsk());
  t->size_ = static_cast<size_t>(kFrames) * kFrameSize;
  t->buffer_ = mmap(nullptr, t->size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (t->buffer_ == MAP_FAILED) {
    t->buffer_ = nullptr;
    *error = "mmap of the UMEM failed";
    return nullptr;
  }
  int err = xsk_umem__create(&t->r_->umem, t->buffer_, t->size_, &t->r_->fq, &t->r_->cq, nullptr);
  if (err) {
    *error = std::string("xsk_umem__create: ") + std::strerror(-err);
    return nullptr;
  }
  xsk_socket_config cfg{};
  cfg.rx_size = XSK_RING_CONS__DEFAULT_NUM_DESCS;
  cfg.tx_size = XSK_RING_PROD__DEFAULT_NUM_DESCS;
  cfg.libxdp_flags = XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD;
  cfg.bind_flags = XDP_COPY;
  err = xsk_socket__create(&t->r_->xsk, ifname.c_str(), queue, t->r_->umem, &t->r_->rx, &t->r_->tx,
                           &cfg);
  if (err) {
    *error = std::string("xsk_socket__create on ") + ifname + ": " + std::strerror(-err);
    return nullptr;
  }
  uint32_t idx = 0;
  uint32_t n = xsk_ring_prod__reserve(&t->r_->fq, kFrames / 2, &idx);
  for (uint32_t i = 0; i < n; ++i)
    *xsk_ring_prod__fill_addr(&t->r_->fq, idx + i) = static_cast<uint64_t>(i) * kFrameSize;
  xsk_ring_prod__submit(&t->r_->fq, n);
  err = xsk_socket__update_xskmap(t->r_->xsk, xsks_map_fd);
  if (err) {
    *error = std::string("xsk_socket__update_xskmap: ") + std::strerror(-err);
    return nullptr;
  }
  return t;
}

std::vector<TestXsk::Rx> TestXsk::receive(size_t max, int timeout_ms) {
  std::vector<Rx> got;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (got.size() < max) {
    uint32_t idx = 0;
    uint32_t n = xsk_ring_cons__peek(&r_->rx, 64, &idx);
    if (n == 0) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                      deadline - std::chrono::steady_clock::now())
                      .count();
      if (left <= 0) break;
      pollfd p{fd(), POLLIN, 0};
      poll(&p, 1, static_cast<int>(left < 50 ? left : 50));
      continue;
    }
    uint32_t fidx = 0;
    while (xsk_ring_prod__reserve(&r_->fq, n, &fidx) != n) {
    }
    for (uint32_t i = 0; i < n; ++i) {
      const xdp_desc* d = xsk_ring_cons__rx_desc(&r_->rx, idx + i);
      auto* data = static_cast<uint8_t*>(xsk_umem__get_data(buffer_, d->addr));
      Rx rx;
      std::memcpy(&rx.meta, data - sizeof(fp_xdp_meta), sizeof(fp_xdp_meta));
      rx.has_meta = rx.meta.magic == FP_META_MAGIC;
      std::memset(data - sizeof(fp_xdp_meta), 0, sizeof(fp_xdp_meta));  // no stale magic
      rx.frame.assign(data, data + d->len);
      got.push_back(std::move(rx));
      // Recycle the chunk: its base address (unaligned mode is off).
      *xsk_ring_prod__fill_addr(&r_->fq, fidx + i) =
          xsk_umem__extract_addr(d->addr) & ~(uint64_t{kFrameSize} - 1);
    }
    xsk_ring_cons__release(&r_->rx, n);
    xsk_ring_prod__submit(&r_->fq, n);
  }
  return got;
}

}  // namespace fastpath::testing
