// SPDX-License-Identifier: GPL-2.0-only
// LinkResources without workers: the retire hand-off (retired -> listed in the worker's
// next table -> drained -> recycled) for queues and shapers, and shapers created, updated
// in place or replaced by a successor (larger, or built with FqCoDel).
#include "daemon/link_resources.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace fastpath {
namespace {

LinkParams delay(uint64_t ns) {
  LinkParams p;
  p.delay_ns = ns;
  return p;
}

bool contains(const std::vector<LinkQueue*>& v, LinkQueue* q) {
  return std::find(v.begin(), v.end(), q) != v.end();
}
bool contains(const std::vector<LinkShaper*>& v, LinkShaper* s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

TEST(LinkResources, RetiredQueuesAreListedPerWorkerAndReusedOnceDrained) {
  EpochDomain epoch;
  LinkResources r(epoch);
  LinkQueue* q0 = r.takeQueue();
  LinkQueue* q1 = r.takeQueue();
  ASSERT_NE(q0, q1);
  EXPECT_EQ(r.queues(), 2u);
  r.retireQueues({q0, q1});  // index = worker
  EXPECT_FALSE(q0->drained());
  LinkPortTable t0, t1;
  r.retiredFor(0, t0);
  r.retiredFor(1, t1);
  EXPECT_EQ(t0.retired, std::vector<LinkQueue*>{q0});
  EXPECT_EQ(t1.retired, std::vector<LinkQueue*>{q1});
  // Not drained yet: nothing comes back.
  r.recycle();
  EXPECT_EQ(r.retiredQueues(), 2u);
  // Worker 0 drained its queue: that one is free again, worker 1's still waits.
  q0->markDrained();
  r.recycle();
  EXPECT_EQ(r.retiredQueues(), 1u);
  EXPECT_TRUE(q0->drained());
  LinkPortTable again;
  r.retiredFor(0, again);
  EXPECT_FALSE(contains(again.retired, q0));
  EXPECT_EQ(r.takeQueue(), q0);
  EXPECT_EQ(r.queues(), 2u);  // reused, not a new one
}

TEST(LinkResources, ShapingCreatesUpdatesInPlaceAndGrowsThroughASuccessor) {
  EpochDomain epoch;
  LinkResources r(epoch);
  std::vector<LinkShaper*> shapers;
  r.applyShaping(shapers, 2, "link/x", LinkParams{});
  EXPECT_TRUE(shapers.empty());  // nothing to emulate: frames pass at once
  r.applyShaping(shapers, 2, "link/x", delay(1000000));
  ASSERT_EQ(shapers.size(), 2u);
  EXPECT_EQ(r.shapers(), 2u);
  const std::vector<LinkShaper*> first = shapers;
  // Room enough: the same shapers take the new parameters.
  r.applyShaping(shapers, 2, "link/x", delay(500000));
  EXPECT_EQ(shapers, first);
  EXPECT_EQ(shapers[0]->params().delay_ns, 500000u);
  // More frames in flight than they hold: successors take over, the old ones retire.
  r.applyShaping(shapers, 2, "link/x", delay(50000000));
  ASSERT_EQ(shapers.size(), 2u);
  for (size_t w = 0; w < 2; ++w) {
    EXPECT_NE(shapers[w], first[w]);
    EXPECT_EQ(first[w]->successor, shapers[w]);
    EXPECT_FALSE(first[w]->drained());
    LinkPortTable t;
    r.retiredFor(uint32_t(w), t);
    EXPECT_TRUE(contains(t.retired_shapers, first[w]));
  }
  EXPECT_EQ(r.retiredShapers(), 2u);
  EXPECT_EQ(r.shapers(), 4u);
  for (LinkShaper* s : first) s->markDrained();
  r.recycle();
  EXPECT_EQ(r.retiredShapers(), 0u);
  EXPECT_EQ(r.shapers(), 2u);
  EXPECT_TRUE(epoch.synchronize());  // frees the old ones
}

TEST(LinkResources, FqCoDelSwitchedOnAtRunTimeComesBuiltInASuccessor) {
  // Its pool and flow table are allocated here, on the control thread: built by the
  // worker at the link's next frame, they held that frame past its model time.
  EpochDomain epoch;
  LinkResources r(epoch);
  std::vector<LinkShaper*> shapers;
  LinkParams p = delay(1000000);
  r.applyShaping(shapers, 2, "link/x", p);
  ASSERT_EQ(shapers.size(), 2u);
  const std::vector<LinkShaper*> first = shapers;
  EXPECT_EQ(first[0]->fqCoDel(), nullptr);
  p.aqm = LinkParams::Aqm::kFqCoDel;
  p.aqm_limit_packets = 1024;
  r.applyShaping(shapers, 2, "link/x", p);
  for (size_t w = 0; w < 2; ++w) {
    ASSERT_NE(shapers[w], first[w]);
    EXPECT_EQ(first[w]->successor, shapers[w]);
    ASSERT_NE(shapers[w]->fqCoDel(), nullptr);
    EXPECT_TRUE(shapers[w]->fqCoDel()->empty());
  }
  // Already on: a change of its parameters is made in place.
  const std::vector<LinkShaper*> with = shapers;
  p.aqm_fq_quantum = 300;
  r.applyShaping(shapers, 2, "link/x", p);
  EXPECT_EQ(shapers, with);
  EXPECT_EQ(shapers[0]->params().aqm_fq_quantum, 300u);
}

TEST(LinkResources, ASegmentsShapersAndTheirSuccessorsModelASharedMedium) {
  EpochDomain epoch;
  LinkResources r(epoch);
  std::vector<LinkShaper*> link, segment;
  r.applyShaping(link, 2, "link/x", delay(1000000));
  r.applyShaping(segment, 2, "segment/s", delay(1000000), LinkShaper::Medium::kShared);
  ASSERT_EQ(link.size(), 2u);
  ASSERT_EQ(segment.size(), 2u);
  const std::vector<LinkShaper*> first = segment;
  r.applyShaping(segment, 2, "segment/s", delay(50000000), LinkShaper::Medium::kShared);
  for (size_t w = 0; w < 2; ++w) {
    EXPECT_EQ(link[w]->medium(), LinkShaper::Medium::kPointToPoint);
    EXPECT_EQ(first[w]->medium(), LinkShaper::Medium::kShared);
    ASSERT_NE(segment[w], first[w]);  // grown: a successor
    EXPECT_EQ(segment[w]->medium(), LinkShaper::Medium::kShared);
  }
}

TEST(LinkResources, RetiringShapersEmptiesTheOwnersList) {
  EpochDomain epoch;
  LinkResources r(epoch);
  std::vector<LinkShaper*> shapers;
  r.applyShaping(shapers, 3, "port/fp0", delay(1000000));
  ASSERT_EQ(shapers.size(), 3u);
  LinkShaper* w2 = shapers[2];
  r.retireShapers(shapers);
  EXPECT_TRUE(shapers.empty());
  EXPECT_EQ(r.retiredShapers(), 3u);
  LinkPortTable t;
  r.retiredFor(2, t);
  EXPECT_EQ(t.retired_shapers, std::vector<LinkShaper*>{w2});
  EXPECT_EQ(w2->successor, nullptr);  // drained (frames counted), not moved
  r.clear();
  EXPECT_EQ(r.shapers(), 0u);
}

}  // namespace
}  // namespace fastpath
