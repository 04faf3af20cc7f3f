// SPDX-License-Identifier: GPL-2.0-only
// Topology texts found by fp_topology_fuzz that once made fastpathd run out of memory
// (YAML::LoadAll returned empty documents for ever): refused at once with a line.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "daemon/topology.h"
#include "daemon/yaml_documents.h"

namespace fastpath {
namespace {

const char* const kRunaway = R"({
  "r1-r2", "metric": 5},
        {Eprefix":................... "198.18.1.0/24", "dev": "fp-r1s0"},
        {"prefix": "2001:2:0:2::/64", "via": "2001:2:0:100::2", "dev": "r1-r2"}
      ],
      #neighbours": [{"ip": "
      "name": "r1-r2",
      "a": {"node": "r1", "port": "r1-r2", "mac": "02:00:00:00:01:01", "mtu": 9000},     "name": "r1",      "up": false
    }
  ]
}
)";

TEST(TopologyHostile, ARunawayDocumentStreamIsRefusedAtOnceWithALine) {
  const auto t0 = std::chrono::steady_clock::now();
  auto t = parseTopologyText(kRunaway, "f.yaml");
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::steady_clock::now() - t0).count();
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().message.rfind("f.yaml:", 0), 0u) << t.error().message;
  EXPECT_LT(ms, 2000) << "it took " << ms << " ms";
}

TEST(TopologyHostile, DocumentsAreCountedNoFurtherThanAsked) {
  EXPECT_EQ(yamlDocumentLines("", 2).size(), 0u);
  EXPECT_EQ(yamlDocumentLines("nodes: []\n", 2), (std::vector<int>{1}));
  EXPECT_EQ(yamlDocumentLines("a: 1\n---\nb: 2\n---\nc: 3\n", 2), (std::vector<int>{1, 3}));
  EXPECT_EQ(yamlDocumentLines(kRunaway, 2).size(), 2u);
}

}  // namespace
}  // namespace fastpath
