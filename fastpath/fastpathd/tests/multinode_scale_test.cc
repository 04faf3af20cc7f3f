// SPDX-License-Identifier: GPL-2.0-only
// One fastpathd holds 1,024 nodes and 4,096 links: created at run time through the
// daemon's TopologyControl (as the control socket does), with the memory it takes
// (RSS growth, printed) bounded, then deleted again. No interface is touched: the nodes
// have link ports only.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "daemon/daemon.h"
#include "netns.h"

namespace fastpath {
namespace {

uint64_t rssBytes() {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::stoull(line.substr(6)) * 1024;
  return 0;
}

TEST(MultiNodeScale, ADaemonHolds1024NodesAnd4096Links) {
  std::string why;
  if (!testing::havePrivileges(&why)) GTEST_SKIP() << why;
  Config c;
  // Two nodes and a link to start from; no interface port at all.
  c.topology.nodes.resize(2);
  c.topology.nodes[0].spec.name = "s0";
  c.topology.nodes[1].spec.name = "s1";
  c.topology.links.resize(1);
  c.topology.links[0].spec.name = "s0-s1";
  c.topology.links[0].spec.a.node = "s0";
  c.topology.links[0].spec.b.node = "s1";
  c.topology.links[0].spec.a.port = c.topology.links[0].spec.b.port = "s0-s1";
  c.control_socket = "/tmp/fp-scale-" + std::to_string(getpid()) + ".sock";
  Daemon d(c);
  auto st = d.start();
  ASSERT_TRUE(st.ok()) << st.error().message;

  const uint64_t rss0 = rssBytes();
  constexpr int kNodes = 1024;
  for (int i = 0; i < kNodes - 3; ++i)  // + default, s0, s1 = 1,024
    ASSERT_TRUE(d.createNode(NodeSpec{"n" + std::to_string(i), "local"}).ok()) << i;
  const uint64_t rss_nodes = rssBytes();
  // Each node n<i> is linked to the next four: 4 * 1,021 links, plus a few to s0, s1.
  int links = 1;
  for (int i = 0; links < 4096; ++i) {
    for (int k = 1; k <= 4 && links < 4096; ++k) {
      LinkSpec l;
      l.name = "l" + std::to_string(i) + "-" + std::to_string(k);
      l.a.node = "n" + std::to_string(i % (kNodes - 3));
      l.b.node = "n" + std::to_string((i + k) % (kNodes - 3));
      auto r = d.createLink(l);
      ASSERT_TRUE(r.ok()) << l.name << ": " << r.error().message;
      ++links;
    }
  }
  const uint64_t rss_links = rssBytes();
  EXPECT_EQ(d.nodes().size(), size_t(kNodes));
  EXPECT_EQ(d.links().size(), 4096u);
  std::printf("memory: %d idle nodes %.1f MiB (%.0f KiB per node), 4,095 links %.1f MiB "
              "(%.1f KiB per link), daemon RSS %.1f MiB\n",
              kNodes - 3, double(rss_nodes - rss0) / (1 << 20),
              double(rss_nodes - rss0) / 1024 / (kNodes - 3), double(rss_links - rss_nodes) / (1 << 20),
              double(rss_links - rss_nodes) / 1024 / 4095, double(rss_links) / (1 << 20));
  EXPECT_LT(rss_links - rss0, uint64_t(2) << 30) << "1,024 nodes and 4,096 links within 2 GiB";

  // The node limit: up to kMaxNodes, then a clear refusal.
  int spare = 0;
  while (d.nodes().size() < kMaxNodes)
    ASSERT_TRUE(d.createNode(NodeSpec{"spare" + std::to_string(spare++), "local"}).ok());
  auto over = d.createNode(NodeSpec{"one-too-many", "local"});
  ASSERT_FALSE(over.ok());
  EXPECT_NE(over.error().message.find("at most"), std::string::npos) << over.error().message;
  // Everything goes again; the ledger holds.
  for (int i = 0; i < spare; ++i) ASSERT_TRUE(d.deleteNode("spare" + std::to_string(i)).ok());
  for (int i = 0; i < kNodes - 3; ++i)
    ASSERT_TRUE(d.deleteNode("n" + std::to_string(i)).ok()) << i;
  EXPECT_LE(d.links().size(), 2u);
  EXPECT_TRUE(d.workers()[0]->accounting().balanced());
  d.shutdown();
}

}  // namespace
}  // namespace fastpath
