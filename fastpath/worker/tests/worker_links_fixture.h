// SPDX-License-Identifier: GPL-2.0-only
// The in-memory rig of the worker's link tests (worker_links_test.cc, worker_timed_test.cc):
// a worker on in-memory AF_XDP rings where the test plays the kernel on two interface ports
// (frames in on port 0, out of port 1) and builds the nodes' tables and the link port table
// as the daemon would. No root needed.
#pragma once

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <array>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include "fastpath/monotonic_clock.h"
#include "classifier_frames.h"
#include "table/fib_manager.h"
#include "fastpath/userspace_classifier.h"
#include "link/bridge_state.h"
#include "worker/worker.h"
#include "worker_testing.h"
#include "xsk_kernel_side.h"

namespace fastpath {
namespace links_testing {

constexpr uint32_t kHeadroom = 256;
constexpr uint32_t kFrameBytes = 160;
constexpr uint32_t kBatch = 64;
const MacAddress kGatewayMac{{2, 0, 0, 0, 1, 1}};

inline void sleepUntil(uint64_t t) {
  while (monotonicNs() < t) std::this_thread::sleep_for(std::chrono::microseconds(50));
}

inline MacAddress linkMac(int link, int end) { return MacAddress{{2, 0x66, 0x70, 0, uint8_t(link), uint8_t(end)}}; }

// An IPv4 UDP frame to 198.19.`net`.`host` carrying `seq`, with DATA metadata in front.
inline uint32_t writeFrame(uint8_t* f, uint8_t net, uint32_t seq) {
  const testing::L2 l2{{2, 0, 0, 0, 0, 1}, {2, 0, 0, 0, 9, 9}, {}};
  testing::V4 ip;
  ip.ttl = 64;
  ip.src = {198, 18, 0, 1};
  ip.dst = {198, 19, net, uint8_t(1 + seq % 200)};
  testing::Bytes frame = testing::ipv4(l2, ip, testing::udp(1000, 2000, kFrameBytes - 14 - 20 - 8));
  std::memcpy(f, frame.data(), kFrameBytes);
  std::memcpy(f + 14 + 20 + 8, &seq, 4);
  const fp_xdp_meta meta = testing::udpDataMeta();
  std::memcpy(f - sizeof(meta), &meta, sizeof(meta));
  return kFrameBytes;
}

// An ARP request (CONTROL at any port) from `src`.
inline testing::Bytes arpFrom(const MacAddress& src) {
  testing::L2 l2{testing::kBroadcastMac, {}, {}};
  std::memcpy(l2.src.data(), src.bytes.data(), 6);
  return testing::arp(l2);
}

inline uint32_t seqOf(const uint8_t* f) {
  uint32_t seq;
  std::memcpy(&seq, f + 14 + 20 + 8, 4);
  return seq;
}

// A worker with interface ports 0 (in, node "A") and 1 (out, node "B"), and what the
// daemon would give it: per node a table, per link port a queue, a classifier and
// optionally a shaper, in one published LinkPortTable.
class WorkerLinksTest : public ::testing::Test {
 protected:
  struct NodeSpec {
    std::vector<PortConfig> ports;
    std::vector<Neighbour> neighbours;
    RouteBatch routes;
  };

  static PortId linkPort(int link, int end) { return kFirstLinkPort + PortId(2 * link + end); }

  void SetUp() override {
    // Node A has port 0; node B port 1 and a route for everything out of it.
    a_.ports.push_back(PortConfig{0, MacAddress{{2, 0, 0, 0, 0, 1}}, 1500, true});
    b_.ports.push_back(PortConfig{1, MacAddress{{2, 0, 0, 0, 0, 2}}, 1500, true});
    b_.neighbours.push_back({IpAddress::parse("198.18.1.2").value(), 1, kGatewayMac});
    b_.routes.add.push_back(Route{IpPrefix::parse("198.19.0.0/16").value(),
                                  IpAddress::parse("198.18.1.2").value(), 1, 0});
    table_.version = 1;
    table_.slot_of.assign(kMaxPorts - kFirstLinkPort, -1);
  }

  // Link `k` from A to B: A routes 198.19.k.0/24 over it; B sends it all out of port 1.
  // `params` (if it shapes) emulates the direction A -> B.
  void addLink(int k, const LinkParams* params = nullptr, uint32_t queue = 1024) {
    const PortId pa = linkPort(k, 0), pb = linkPort(k, 1);
    a_.ports.push_back(PortConfig{pa, linkMac(k, 0), 1500, true});
    b_.ports.push_back(PortConfig{pb, linkMac(k, 1), 1500, true});
    const IpAddress nh = IpAddress::v4(htonl(0xc612c800u + uint32_t(k)));  // 198.18.200.k
    a_.neighbours.push_back({nh, pa, linkMac(k, 1)});
    a_.routes.add.push_back(
        Route{IpPrefix{IpAddress::v4(htonl(0xc6130000u | uint32_t(k) << 8)), 24}, nh, pa, 0});
    states_.push_back(std::make_unique<LinkState>());
    LinkQueue* q[2];
    for (int e = 0; e < 2; ++e) {
      queues_.push_back(std::make_unique<LinkQueue>(queue));
      q[e] = queues_.back().get();
    }
    LinkShaper* sh = nullptr;
    if (params) {
      shapers_.push_back(std::make_unique<LinkShaper>(*params, uint64_t(k + 1),
                                                      LinkShaper::capacityFor(*params)));
      sh = shapers_.back().get();
    }
    for (int e = 0; e < 2; ++e) {
      UserspaceClassifier::Config cc;
      cc.port_mac = linkMac(k, e);
      classifiers_.push_back(std::make_unique<UserspaceClassifier>(cc));
      LinkPortSlot s;
      s.port = e == 0 ? pa : pb;
      s.peer = e == 0 ? pb : pa;
      s.inbound = q[e];
      s.to_peer = q[1 - e];
      s.state = states_.back().get();
      end_states_.push_back(std::make_unique<LinkState>());  // the end's own up/down
      s.port_state = end_states_.back().get();
      s.classifier = classifiers_.back().get();
      s.shaper = e == 0 ? sh : nullptr;
      slots_node_b_.push_back(e == 1);
      table_.slot_of[s.port - kFirstLinkPort] = int32_t(table_.slots.size());
      table_.slots.push_back(s);
    }
  }

  // A segment of three ports: `p[0]` on node A, `p[1]` on node B, `p[2]` on a node that
  // only receives (A's table; it has no route for the test's frames). Its medium is
  // emulated with `params` if given. Port e's MAC is linkMac(`mac_link`, e).
  void addSegment(const PortId (&p)[3], const LinkParams* params = nullptr,
                  int mac_link = 100) {
    states_.push_back(std::make_unique<LinkState>());  // the segment's
    table_.segments.reserve(8);  // slots point into it: never reallocated
    SegmentSlot seg;
    seg.state = states_.back().get();
    if (params) {
      shapers_.push_back(
          std::make_unique<LinkShaper>(*params, 99, LinkShaper::capacityFor(*params)));
      seg.shaper = shapers_.back().get();
    }
    table_.segments.push_back(seg);
    SegmentSlot& ss = table_.segments.back();
    for (int e = 0; e < 3; ++e) {
      queues_.push_back(std::make_unique<LinkQueue>(256));
      states_.push_back(std::make_unique<LinkState>());  // the port's own up/down
      const MacAddress mac = linkMac(mac_link, e);
      UserspaceClassifier::Config cc;
      cc.port_mac = mac;
      classifiers_.push_back(std::make_unique<UserspaceClassifier>(cc));
      SegmentMember m;
      m.port = p[e];
      std::memcpy(m.mac, mac.bytes.data(), 6);
      m.inbound = queues_.back().get();
      m.port_state = states_.back().get();
      ss.members.push_back(m);
      LinkPortSlot s;
      s.port = p[e];
      s.peer = p[e];
      s.inbound = m.inbound;
      s.state = ss.state;
      s.classifier = classifiers_.back().get();
      s.segment = &ss;
      s.port_state = m.port_state;
      slots_node_b_.push_back(e == 1);
      table_.slot_of[s.port - kFirstLinkPort] = int32_t(table_.slots.size());
      table_.slots.push_back(s);
    }
  }
  // A bridge whose port i is the third port (node A's receive-only one) of segment
  // `segs[i]`, with `ageing_ns` as ns-3's ExpirationTime.
  void addBridge(const std::vector<size_t>& segs, uint64_t ageing_ns) {
    table_.bridges.reserve(8);  // members point into it: never reallocated
    bridge_states_.push_back(std::make_unique<BridgeState>(64));
    BridgeSlot& b = table_.bridges.emplace_back();
    b.state = bridge_states_.back().get();
    b.ageing_ns = ageing_ns;
    for (size_t i = 0; i < segs.size(); ++i) {
      SegmentSlot& seg = table_.segments[segs[i]];
      seg.bridged = true;
      seg.members[2].bridge = &b;
      seg.members[2].bridge_port = uint16_t(i);
      b.ports.push_back(seg.members[2].port);
    }
  }
  // A frame ns-3 writes on `port`'s control channel: to MAC `dst`, IPv4 to 198.19.0.x
  // (from `src`, if given).
  void sendRaw(PortId port, const MacAddress& dst, uint32_t seq, const MacAddress* src = nullptr) {
    ControlTxFrame f;
    f.port = port;
    std::vector<uint8_t> buf(kHeadroom + kFrameBytes);
    f.len = writeFrame(buf.data() + kHeadroom, 0, seq);
    std::memcpy(buf.data() + kHeadroom, dst.bytes.data(), 6);
    if (src) std::memcpy(buf.data() + kHeadroom + 6, src->bytes.data(), 6);
    std::memcpy(f.data, buf.data() + kHeadroom, f.len);
    ASSERT_TRUE(worker_->controlTxQueue().push(f));
  }

  // Builds the nodes' tables and the worker, and publishes the link table.
  void start(uint32_t lateness_warn_ns = 1000000) {
    for (NodeSpec* n : {&a_, &b_}) {
      auto fib = FibManager::create(1 << 10, 1 << 8, &epoch_);
      ASSERT_TRUE(fib.ok());
      ASSERT_TRUE((*fib)->setPorts(n->ports).ok());
      for (const Neighbour& nb : n->neighbours) ASSERT_TRUE((*fib)->addNeighbour(nb).ok());
      ASSERT_TRUE((*fib)->applyRoutes(n->routes).ok());
      fibs_.push_back(std::move(*fib));
    }
    for (size_t i = 0; i < table_.slots.size(); ++i)
      table_.slots[i].fib = &fibs_[slots_node_b_[i] ? 1 : 0]->view();
    UmemOptions uo;
    uo.frames = 4096;
    uo.frame_size = 2048;
    uo.fill_size = 512;
    uo.comp_size = 1024;
    InMemoryPorts rig(uo, 512, 1024);
    ASSERT_TRUE(rig.umem);
    umem_ = rig.area;
    in_ = rig.in;
    out_ = rig.out;
    WorkerOptions wo;
    wo.batch_size = kBatch;
    wo.max_ports = kMaxPorts;
    wo.lateness_warn_ns = lateness_warn_ns;
    worker_ = std::make_unique<Worker>(wo, std::move(rig.umem), std::move(rig.sockets),
                                       std::vector<ControlChannel*>{nullptr, nullptr},
                                       fibs_[0]->view(), epoch_);
    worker_->setPortFib(0, &fibs_[0]->view());
    worker_->setPortFib(1, &fibs_[1]->view());
    worker_->publishLinkPorts(&table_);
    poll();  // fill rings filled, table taken
  }

  void poll() {
    bool pending = false;
    worker_->pollOnce(&pending);
  }
  // Kernel: frames to 198.19.net[i] with sequence numbers `next_seq_`... onto port 0's RX.
  void send(const std::vector<uint8_t>& nets) {
    size_t i = 0;
    const uint32_t n = kernelReceive(*in_, uint32_t(nets.size()), kHeadroom, [&](uint64_t a) {
      return writeFrame(umem_->data(a), nets[i++], next_seq_++);
    });
    ASSERT_EQ(n, nets.size());
  }
  // Kernel: what left on port 1, in order (sequence numbers); `ttl`: 62 after A and B, 63
  // for frames ns-3 wrote on a port of A (only B forwarded them).
  std::vector<uint32_t> collect(uint8_t ttl = 62) {
    std::vector<uint32_t> seqs;
    kernelTransmit(*out_, 1024, [&](const xdp_desc& d) {
      const uint8_t* f = umem_->data(d.addr);
      EXPECT_EQ(std::memcmp(f, kGatewayMac.bytes.data(), 6), 0);
      EXPECT_EQ(f[14 + 8], ttl) << "TTL decremented once per node that forwarded it";
      seqs.push_back(seqOf(f));
    });
    return seqs;
  }
  void expectBalanced(const char* where) {
    const FrameAccounting a = worker_->accounting();
    EXPECT_TRUE(a.balanced()) << where;
    EXPECT_EQ(a.held, 0u) << where;
  }

  EpochDomain epoch_;
  NodeSpec a_, b_;
  LinkPortTable table_;
  std::vector<bool> slots_node_b_;
  std::vector<std::unique_ptr<LinkState>> states_;
  std::vector<std::unique_ptr<LinkState>> end_states_;  ///< link k's end e: [2 * k + e]
  std::vector<std::unique_ptr<LinkQueue>> queues_;
  std::vector<std::unique_ptr<LinkShaper>> shapers_;
  std::vector<std::unique_ptr<BridgeState>> bridge_states_;
  std::vector<std::unique_ptr<UserspaceClassifier>> classifiers_;
  std::vector<std::unique_ptr<FibManager>> fibs_;
  Umem* umem_ = nullptr;
  XskSocket* in_ = nullptr;
  XskSocket* out_ = nullptr;
  std::unique_ptr<Worker> worker_;
  uint32_t next_seq_ = 0;
};

}  // namespace links_testing
}  // namespace fastpath
