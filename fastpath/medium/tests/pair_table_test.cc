// SPDX-License-Identifier: GPL-2.0-only
// The pairs of a medium: sparse (pairs below the sensitivity absent), removed, replaced
// whole, published as tables the worker adopts, freed once no frame reads them.
#include <gtest/gtest.h>

#include "medium/pair_table.h"

namespace fastpath::medium {
namespace {

TEST(PairTables, PairsBelowTheSensitivityAreAbsent) {
  MediumPhy phy;
  phy.cs_threshold_dbm = -95;  // detection: max(-101, -82) = -82
  PairTables t(3, phy);
  t.apply({{0, 1, -70}, {0, 2, -90}, {1, 0, -99}, {1, 2, -102}, {2, 0, -80, true}}, false);
  const PairTable* v = t.newest();
  ASSERT_EQ(v->from(0).size(), 2u);
  EXPECT_TRUE(v->from(0).begin()[0].detect);
  EXPECT_TRUE(v->from(0).begin()[0].sense);
  EXPECT_FALSE(v->from(0).begin()[1].detect);  // -90: sensed, not detected
  EXPECT_TRUE(v->from(0).begin()[1].sense);
  // -99: neither, but above the sensitivity (-101): kept as interference.
  ASSERT_EQ(v->from(1).size(), 1u);
  EXPECT_EQ(v->from(1).begin()[0].to, 0u);
  EXPECT_FALSE(v->from(1).begin()[0].detect);
  EXPECT_FALSE(v->from(1).begin()[0].sense);
  EXPECT_EQ(v->from(2).size(), 0u);  // removed
  EXPECT_EQ(t.snapshot().size(), 3u);  // -102: below the sensitivity, absent
}

TEST(PairTables, ACarrierSenseBelowTheSensitivityKeepsItsPairs) {
  MediumPhy phy;
  phy.cs_threshold_dbm = -105;
  PairTables t(2, phy);
  t.apply({{0, 1, -103}, {1, 0, -106}}, false);
  ASSERT_EQ(t.snapshot().size(), 1u);
  EXPECT_TRUE(t.newest()->from(0).begin()[0].sense);
}

TEST(PairTables, RemoveAndReplaceAll) {
  PairTables t(3, MediumPhy{});
  t.apply({{0, 1, -60}, {1, 2, -60}}, false);
  t.apply({{0, 1, 0, true}}, false);
  ASSERT_EQ(t.snapshot().size(), 1u);
  EXPECT_EQ(t.snapshot()[0].pair.from, 1u);
  t.apply({{2, 0, -50}}, true);
  ASSERT_EQ(t.snapshot().size(), 1u);
  EXPECT_EQ(t.snapshot()[0].pair.from, 2u);
  EXPECT_EQ(t.updates(), 3u);
}

TEST(PairTables, CountersOutliveUpdates) {
  PairTables t(2, MediumPhy{});
  t.apply({{0, 1, -60}}, false);
  t.newest()->from(0).begin()->stats->delivered.add(5);
  t.apply({{0, 1, -65}}, false);
  EXPECT_EQ(t.newest()->from(0).begin()->rx_dbm, -65);
  EXPECT_EQ(t.snapshot()[0].stats->delivered.get(), 5u);
}

TEST(PairTables, ATableIsKeptUntilTheWorkerServesALaterOne) {
  PairTables t(2, MediumPhy{});
  const PairTable* first = t.newest();
  t.apply({{0, 1, -60}}, false);
  t.apply({{0, 1, -61}}, false);
  // The worker still serves version 1: it may be reading it.
  EXPECT_EQ(first->version, 1u);
  EXPECT_EQ(first->offsets.size(), 3u);  // still valid memory
  t.serve(t.newest()->version);
  t.reclaim();
  EXPECT_EQ(t.newest()->version, 3u);
}

}  // namespace
}  // namespace fastpath::medium
