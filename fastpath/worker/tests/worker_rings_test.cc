// SPDX-License-Identifier: GPL-2.0-only
// The worker's real per-batch code (Worker::pollOnce) on in-memory AF_XDP rings
// (XskSocket::createInMemory): the test plays the kernel (fill -> RX, TX -> completion)
// and checks what comes out of the egress TX ring (port, rewritten MACs and TTL, order)
// and the frame ledger (every frame free, lent or held; none lost) after every batch.
// No sockets, no privileges: this is the code path fp_worker_bench measures.
#include <gtest/gtest.h>

#include <arpa/inet.h>

#include <array>
#include <cstring>
#include <memory>
#include <vector>

#include "classifier_frames.h"
#include "fib_testing.h"
#include "table/checksum.h"
#include "table/fib_manager.h"
#include "worker/worker.h"
#include "xsk_kernel_side.h"

namespace fastpath {
namespace {

constexpr uint32_t kHeadroom = 256;  // XDP_PACKET_HEADROOM: fp_xdp_meta sits in front of the frame
constexpr uint32_t kFrameBytes = 160;
constexpr uint8_t kPort1Mac[6] = {2, 0, 0, 0, 0, 2};
constexpr uint8_t kGatewayMac[6] = {2, 0, 0, 0, 1, 1};

enum class Kind { kV4, kV6, kNoRoute, kUnresolved };

Kind kindOf(uint32_t seq) {
  switch (seq % 8) {
    case 5: return Kind::kV6;
    case 6: return Kind::kNoRoute;
    case 7: return Kind::kUnresolved;
    default: return Kind::kV4;
  }
}

// A 160-byte UDP frame carrying `seq` in its payload, with the classifier's metadata in
// front of it (as bpf_xdp_adjust_meta leaves it). Built with the classifier tests' frame
// builders.
uint32_t writeFrame(uint8_t* f, uint32_t seq) {
  const Kind k = kindOf(seq);
  const bool v6 = k == Kind::kV6;
  const testing::L2 l2{{2, 0, 0, 0, 0, 1}, {2, 0, 0, 0, 9, 9}, {}};
  constexpr size_t kUdpPayload4 = kFrameBytes - 14 - 20 - 8,
                   kUdpPayload6 = kFrameBytes - 14 - 40 - 8;
  testing::Bytes frame;
  if (!v6) {
    testing::V4 ip;
    ip.src = {198, 19, 0, 1};
    ip.dst = k == Kind::kNoRoute      ? std::array<uint8_t, 4>{198, 18, 9, 9}  // no route
             : k == Kind::kUnresolved ? std::array<uint8_t, 4>{198, 18, 3, 5}  // no MAC
                                      : std::array<uint8_t, 4>{198, 18, 2, uint8_t(seq & 0xff)};
    frame = testing::ipv4(l2, ip, testing::udp(1000, 2000, kUdpPayload4));
  } else {
    testing::V6 ip;
    ip.src = {0x20, 0x01, 0, 2, 0, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
    ip.dst = {0x20, 0x01, 0, 2, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7};
    frame = testing::ipv6(l2, ip, testing::udp(1000, 2000, kUdpPayload6));
  }
  EXPECT_EQ(frame.size(), kFrameBytes);
  std::memcpy(f, frame.data(), std::min<size_t>(frame.size(), kFrameBytes));
  std::memcpy(f + testing::l3Offset(l2) + (v6 ? 40 : 20) + 8, &seq, 4);  // payload
  fp_xdp_meta meta{};
  meta.magic = FP_META_MAGIC;
  meta.verdict = FP_VERDICT_DATA;
  meta.l3_proto = v6 ? FP_L3_IPV6 : FP_L3_IPV4;
  meta.l3_offset = 14;
  std::memcpy(f - sizeof(meta), &meta, sizeof(meta));
  return kFrameBytes;
}

// Frames of MixedBatchRoutesLandOnTheirFrames: the worker gathers a batch's IPv4
// destinations for one bulk lookup (IPv6 ones one by one), so frames it does not look up
// that way (no metadata, CONTROL, truncated, IPv6) sit between routed ones whose answers
// must land on the right frame; routes A and B leave through different gateways (MACs),
// in both families.
enum class Mixed {
  kRouteA,
  kNoMeta,
  kRouteB,
  kControl,
  kTruncated,
  kNoRoute,
  kV6,
  kV6B,
  kV6NoRoute
};
constexpr uint32_t kMixedKinds = 9;
constexpr uint8_t kGatewayMacB[6] = {2, 0, 0, 0, 1, 4};
Mixed mixedOf(uint32_t seq) { return Mixed(seq % kMixedKinds); }

uint32_t writeMixedFrame(uint8_t* f, uint32_t seq) {
  const Mixed k = mixedOf(seq);
  // writeFrame's IPv6 frame (kindOf(5)) or its IPv4 frame with another destination.
  if (k == Mixed::kV6 || k == Mixed::kV6B || k == Mixed::kV6NoRoute) {
    const uint32_t len = writeFrame(f, 5);
    if (k != Mixed::kV6) f[14 + 24 + 5] = k == Mixed::kV6B ? 4 : 9;  // 2001:2:4:: / 2001:2:9::
    std::memcpy(f + 14 + 40 + 8, &seq, 4);  // payload (UDP checksums are not checked)
    return len;
  }
  uint32_t len = writeFrame(f, 0);
  uint8_t* ip = f + 14;
  ip[16] = 198, ip[17] = 18, ip[18] = 2, ip[19] = uint8_t(seq);
  if (k == Mixed::kRouteB || k == Mixed::kControl) ip[18] = 4;
  if (k == Mixed::kNoRoute) ip[18] = 9;
  ip[10] = ip[11] = 0;
  const uint16_t sum = ipv4HeaderChecksum(ip, 20);
  std::memcpy(ip + 10, &sum, 2);
  std::memcpy(ip + 28, &seq, 4);  // payload
  fp_xdp_meta meta;
  std::memcpy(&meta, f - sizeof(meta), sizeof(meta));
  if (k == Mixed::kNoMeta) meta.magic = 0;
  if (k == Mixed::kControl) meta.verdict = FP_VERDICT_CONTROL;
  if (k == Mixed::kTruncated) len = 14 + 19;  // too short for an IPv4 header
  std::memcpy(f - sizeof(meta), &meta, sizeof(meta));
  return len;
}

class WorkerRingsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    PortConfig p0{0, {}, 1500, true}, p1{1, {}, 1500, true};
    p0.mac.bytes = {2, 0, 0, 0, 0, 1};
    std::memcpy(p1.mac.bytes.data(), kPort1Mac, 6);
    ASSERT_TRUE(fib_.setPorts({p0, p1}).ok());
    RouteBatch b;
    auto route = [&](const char* prefix, const char* gw) {
      Route r;
      r.prefix = IpPrefix::parse(prefix).value();
      r.next_hop = IpAddress::parse(gw).value();
      r.port = 1;
      b.add.push_back(r);
    };
    route("198.18.2.0/24", "198.18.1.2");
    route("198.18.3.0/24", "198.18.1.3");  // gateway without a neighbour entry
    route("198.18.4.0/24", "198.18.1.4");
    route("2001:2:2::/48", "2001:2:1::2");
    route("2001:2:4::/48", "2001:2:1::4");
    ASSERT_TRUE(fib_.applyRoutes(b).ok());
    MacAddress gw_mac;
    std::memcpy(gw_mac.bytes.data(), kGatewayMac, 6);
    ASSERT_TRUE(fib_.addNeighbour({IpAddress::parse("198.18.1.2").value(), 1, gw_mac}).ok());
    ASSERT_TRUE(fib_.addNeighbour({IpAddress::parse("2001:2:1::2").value(), 1, gw_mac}).ok());
    std::memcpy(gw_mac.bytes.data(), kGatewayMacB, 6);
    ASSERT_TRUE(fib_.addNeighbour({IpAddress::parse("198.18.1.4").value(), 1, gw_mac}).ok());
    ASSERT_TRUE(fib_.addNeighbour({IpAddress::parse("2001:2:1::4").value(), 1, gw_mac}).ok());

    UmemOptions uo;
    uo.frames = 1024;
    uo.frame_size = 2048;
    uo.fill_size = 256;
    uo.comp_size = 256;
    InMemoryPorts rig(uo, 256, 256);
    ASSERT_TRUE(rig.umem);
    for (const auto& socket : rig.sockets) ASSERT_EQ(socket->fd(), -1);
    umem_ = rig.area;
    in_ = rig.in;
    out_ = rig.out;
    WorkerOptions wo;
    wo.batch_size = 64;
    // No control channels: punted frames are counted "no_control_client" drops.
    worker_ = std::make_unique<Worker>(wo, std::move(rig.umem), std::move(rig.sockets),
                                       std::vector<ControlChannel*>{nullptr, nullptr}, fib_.view(),
                                       fib_.epoch());
  }

  // Kernel: up to `n` frames onto port 0's RX ring.
  uint32_t deliver(uint32_t n) {
    return kernelReceive(*in_, n, kHeadroom, [&](uint64_t a) {
      return mixed_ ? writeMixedFrame(umem_->data(a), next_seq_++)
                    : writeFrame(umem_->data(a), next_seq_++);
    });
  }

  void expectBalanced(const char* where) {
    const FrameAccounting a = worker_->accounting();
    EXPECT_TRUE(a.balanced()) << where << ": free " << a.free << " lent_rx " << a.lent_rx
                              << " lent_tx " << a.lent_tx << " held " << a.held << " total "
                              << a.total;
    EXPECT_EQ(a.held, 0u) << where;
    // Nothing is inside a kernel here: every lent frame sits in one of the rings.
    EXPECT_EQ(a.inKernel(), 0) << where;
  }

  std::unique_ptr<FibManager> fib_owner_ = testing::createFib(1 << 16, 1 << 12);
  FibManager& fib_ = *fib_owner_;
  Umem* umem_ = nullptr;
  XskSocket* in_ = nullptr;
  XskSocket* out_ = nullptr;
  std::unique_ptr<Worker> worker_;
  uint32_t next_seq_ = 0;
  bool mixed_ = false;  // deliver() writes writeMixedFrame's frames
};

TEST_F(WorkerRingsTest, ForwardsRewritesAndAccountsEveryFrame) {
  bool pending = false;
  worker_->pollOnce(&pending);  // fills both fill rings
  expectBalanced("after the first refill");
  EXPECT_EQ(ringLevel(in_->fill), 256u);

  constexpr uint32_t kFrames = 400;
  uint32_t delivered = 0, forwarded = 0, expect_seq_index = 0;
  std::vector<uint32_t> expected_seqs;
  for (uint32_t s = 0; s < kFrames; ++s)
    if (kindOf(s) == Kind::kV4 || kindOf(s) == Kind::kV6) expected_seqs.push_back(s);
  while (delivered < kFrames) {
    delivered += deliver(std::min<uint32_t>(kFrames - delivered, 37));  // batches that straddle 64
    worker_->pollOnce(&pending);
    expectBalanced("after a batch");
    EXPECT_EQ(ringLevel(in_->rx), 0u) << "the worker left frames on the RX ring";
    EXPECT_EQ(ringLevel(in_->tx), 0u) << "nothing may leave on the ingress port";
    kernelTransmit(*out_, 1024, [&](const xdp_desc& d) {
      ++forwarded;
      ASSERT_EQ(d.len, kFrameBytes);
      const uint8_t* f = umem_->data(d.addr);
      EXPECT_EQ(std::memcmp(f, kGatewayMac, 6), 0) << "destination MAC = next hop";
      EXPECT_EQ(std::memcmp(f + 6, kPort1Mac, 6), 0) << "source MAC = egress port";
      const uint8_t* ip = f + 14;
      uint32_t seq;
      if (f[12] == 0x08) {
        EXPECT_EQ(ip[8], 63) << "TTL decremented";
        EXPECT_TRUE(ipv4HeaderChecksumOk(ip, 20)) << "checksum updated with the TTL";
        std::memcpy(&seq, ip + 28, 4);
      } else {
        EXPECT_EQ(ip[7], 63) << "hop limit decremented";
        std::memcpy(&seq, ip + 48, 4);
      }
      ASSERT_LT(expect_seq_index, expected_seqs.size());
      EXPECT_EQ(seq, expected_seqs[expect_seq_index++])
          << "forwarded out of order or a wrong frame";
    });
  }
  // Completions drained on the next pass; the kernel holds nothing.
  worker_->pollOnce(&pending);
  EXPECT_FALSE(pending);
  expectBalanced("at the end");
  const FrameAccounting a = worker_->accounting();
  EXPECT_EQ(a.lent_tx, 0u);
  EXPECT_EQ(a.lent_rx, a.fill_ring);
  EXPECT_EQ(a.free + a.fill_ring, a.total);

  EXPECT_EQ(forwarded, expected_seqs.size());
  const uint32_t punted = kFrames - forwarded;
  const WorkerPortCounters& c0 = worker_->portCounters(0);
  const WorkerPortCounters& c1 = worker_->portCounters(1);
  EXPECT_EQ(c0.rx_packets.get(), kFrames);
  EXPECT_EQ(c0.rx_bytes.get(), uint64_t(kFrames) * kFrameBytes);
  EXPECT_EQ(c1.tx_packets.get(), forwarded);
  EXPECT_EQ(c0.result[size_t(ForwardResult::kForward)].get(), forwarded);
  EXPECT_EQ(c0.result[size_t(ForwardResult::kPuntNoRoute)].get(), kFrames / 8);
  EXPECT_EQ(c0.result[size_t(ForwardResult::kPuntNeighbourUnresolved)].get(), kFrames / 8);
  EXPECT_EQ(c0.drop[size_t(WorkerDrop::kNoControlClient)].get(), punted);
  EXPECT_EQ(c0.verdict[FP_VERDICT_DATA].get(), kFrames);

  // Route miss (198.18.9.9) and neighbour needed (198.18.1.3 on port 1) reached the control
  // thread's queue.
  bool miss = false, neigh = false;
  while (WorkerEvent* e = worker_->events().front()) {
    if (e->kind == FastPathEvent::Kind::kRouteMiss &&
        e->address == IpAddress::parse("198.18.9.9").value())
      miss = true;
    if (e->kind == FastPathEvent::Kind::kNeighbourNeeded && e->port == 1 &&
        e->address == IpAddress::parse("198.18.1.3").value())
      neigh = true;
    worker_->events().consume();
  }
  EXPECT_TRUE(miss);
  EXPECT_TRUE(neigh);
}

TEST_F(WorkerRingsTest, MixedBatchRoutesLandOnTheirFrames) {
  mixed_ = true;
  bool pending = false;
  worker_->pollOnce(&pending);
  constexpr uint32_t kFrames = kMixedKinds * 50;
  uint32_t delivered = 0, forwarded = 0;
  std::vector<uint32_t> expected_seqs;
  uint32_t per_kind[kMixedKinds] = {};
  for (uint32_t s = 0; s < kFrames; ++s) {
    ++per_kind[s % kMixedKinds];
    const Mixed k = mixedOf(s);
    if (k == Mixed::kRouteA || k == Mixed::kRouteB || k == Mixed::kV6 || k == Mixed::kV6B)
      expected_seqs.push_back(s);
  }
  size_t next = 0;
  while (delivered < kFrames) {
    delivered += deliver(std::min<uint32_t>(kFrames - delivered, 50));  // 50: kinds shift per batch
    worker_->pollOnce(&pending);
    expectBalanced("after a mixed batch");
    kernelTransmit(*out_, 1024, [&](const xdp_desc& d) {
      ++forwarded;
      const uint8_t* f = umem_->data(d.addr);
      uint32_t seq;
      std::memcpy(&seq, f[12] == 0x08 ? f + 14 + 28 : f + 14 + 48, 4);
      ASSERT_LT(next, expected_seqs.size());
      ASSERT_EQ(seq, expected_seqs[next++]) << "a frame that should not leave, or out of order";
      const bool b = mixedOf(seq) == Mixed::kRouteB || mixedOf(seq) == Mixed::kV6B;
      EXPECT_EQ(std::memcmp(f, b ? kGatewayMacB : kGatewayMac, 6), 0)
          << "frame " << seq << " left with another frame's next hop";
      EXPECT_EQ(f[12] == 0x08 ? f[14 + 18] : f[14 + 24 + 5], b ? 4 : 2) << "frame " << seq;
    });
  }
  EXPECT_EQ(forwarded, expected_seqs.size());
  const WorkerPortCounters& c0 = worker_->portCounters(0);
  EXPECT_EQ(c0.rx_packets.get(), kFrames);
  EXPECT_EQ(c0.no_meta.get(), per_kind[size_t(Mixed::kNoMeta)]);
  EXPECT_EQ(c0.verdict[FP_VERDICT_CONTROL].get(), per_kind[size_t(Mixed::kControl)]);
  EXPECT_EQ(c0.verdict[FP_VERDICT_DATA].get(),
            kFrames - per_kind[size_t(Mixed::kNoMeta)] - per_kind[size_t(Mixed::kControl)]);
  EXPECT_EQ(c0.result[size_t(ForwardResult::kForward)].get(), forwarded);
  EXPECT_EQ(c0.result[size_t(ForwardResult::kPuntBadHeader)].get(),
            per_kind[size_t(Mixed::kTruncated)]);
  EXPECT_EQ(c0.result[size_t(ForwardResult::kPuntNoRoute)].get(),
            per_kind[size_t(Mixed::kNoRoute)] + per_kind[size_t(Mixed::kV6NoRoute)]);
  EXPECT_EQ(c0.drop[size_t(WorkerDrop::kNoControlClient)].get(), kFrames - forwarded);
}

TEST_F(WorkerRingsTest, FullTxRingDropsAndKeepsTheLedger) {
  bool pending = false;
  worker_->pollOnce(&pending);
  // The "kernel" stops transmitting: the 256-entry TX ring fills, the rest are dropped and
  // their frames go back to the pool.
  uint32_t delivered = 0;
  for (int round = 0; round < 12; ++round) {
    delivered += deliver(64);
    worker_->pollOnce(&pending);
    expectBalanced("TX ring filling");
  }
  EXPECT_TRUE(pending);
  EXPECT_EQ(ringLevel(out_->tx), 256u);
  const uint32_t forwardable = [&] {
    uint32_t n = 0;
    for (uint32_t s = 0; s < delivered; ++s) n += kindOf(s) == Kind::kV4 || kindOf(s) == Kind::kV6;
    return n;
  }();
  const WorkerPortCounters& c1 = worker_->portCounters(1);
  EXPECT_EQ(c1.tx_packets.get(), 256u);
  EXPECT_EQ(c1.drop[size_t(WorkerDrop::kTxRingFull)].get(), forwardable - 256);
  // The kernel catches up: every lent frame comes back.
  EXPECT_EQ(kernelTransmit(*out_, 1024), 256u);
  worker_->pollOnce(&pending);
  EXPECT_FALSE(pending);
  expectBalanced("after the TX ring drained");
  EXPECT_EQ(worker_->accounting().lent_tx, 0u);
}

// Taps on the worker's real pass: every received frame of port 0 with its verdict, every
// frame sent on port 1 as it left (rewritten), exceptions alone, and a ring nobody reads
// that fills and counts its drops while forwarding goes on untouched.
TEST_F(WorkerRingsTest, CaptureTapsCopyWhatThePortsCarryAndDropWhenFull) {
  mixed_ = true;
  CaptureRing rx_ring(1024, 96), tx_ring(1024, 2048), exc_ring(1024, 64), small(8, 64);
  CaptureTable table;
  table.version = 1;
  table.taps = {{0, kCaptureRx, false, &rx_ring},
                {1, kCaptureTx, false, &tx_ring},
                {0, kCaptureRx | kCaptureTx, true, &exc_ring},
                {1, kCaptureTx, false, &small}};
  worker_->publishCaptures(&table);
  bool pending = false;
  worker_->pollOnce(&pending);
  constexpr uint32_t kFrames = kMixedKinds * 40;
  uint32_t delivered = 0, forwarded = 0;
  std::vector<uint32_t> sent_seqs;
  while (delivered < kFrames) {
    delivered += deliver(std::min<uint32_t>(kFrames - delivered, 50));
    worker_->pollOnce(&pending);
    expectBalanced("with taps");
    kernelTransmit(*out_, 1024, [&](const xdp_desc& d) {
      ++forwarded;
      const uint8_t* f = umem_->data(d.addr);
      uint32_t seq;
      std::memcpy(&seq, f[12] == 0x08 ? f + 14 + 28 : f + 14 + 48, 4);
      sent_seqs.push_back(seq);
    });
  }
  const uint8_t* data = nullptr;
  uint32_t rx = 0, control = 0;
  while (const CaptureRecord* r = rx_ring.front(&data)) {
    EXPECT_EQ(r->port, 0u);
    EXPECT_EQ(r->point, kCaptureRx);
    EXPECT_EQ(r->cap_len, std::min<uint32_t>(r->orig_len, 96));
    if (mixedOf(rx) == Mixed::kNoMeta)
      EXPECT_EQ(r->verdict, 0xff);
    else
      EXPECT_EQ(r->verdict, mixedOf(rx) == Mixed::kControl ? FP_VERDICT_CONTROL : FP_VERDICT_DATA);
    control += r->verdict == FP_VERDICT_CONTROL;
    ++rx;
    rx_ring.consume();
  }
  EXPECT_EQ(rx, kFrames);
  size_t i = 0;
  while (const CaptureRecord* r = tx_ring.front(&data)) {
    EXPECT_EQ(r->point, kCaptureTx);
    EXPECT_EQ(std::memcmp(data + 6, kPort1Mac, 6), 0) << "captured as it left (rewritten)";
    uint32_t seq;
    std::memcpy(&seq, data[12] == 0x08 ? data + 14 + 28 : data + 14 + 48, 4);
    ASSERT_LT(i, sent_seqs.size());
    EXPECT_EQ(seq, sent_seqs[i++]);
    tx_ring.consume();
  }
  EXPECT_EQ(i, forwarded);
  uint32_t exceptions = 0;
  while (const CaptureRecord* r = exc_ring.front(&data)) {
    EXPECT_EQ(r->verdict, FP_VERDICT_CONTROL);
    ++exceptions;
    exc_ring.consume();
  }
  EXPECT_EQ(exceptions, control);
  EXPECT_EQ(exceptions, kFrames / kMixedKinds);
  EXPECT_EQ(small.captured(), 8u);
  EXPECT_EQ(small.dropped(), forwarded - 8u) << "a full ring counts what it could not copy";
  EXPECT_EQ(rx_ring.dropped() + tx_ring.dropped(), 0u);

  // Taps removed: nothing more is copied.
  CaptureTable none;
  none.version = 2;
  worker_->publishCaptures(&none);
  deliver(50);
  worker_->pollOnce(&pending);
  EXPECT_EQ(rx_ring.captured(), kFrames);
  EXPECT_EQ(worker_->portCounters(0).rx_packets.get(), kFrames + 50);
}

}  // namespace
}  // namespace fastpath
