// SPDX-License-Identifier: GPL-2.0-only
// formatLinkParams and applyLinkParamWords are one contract: the words written for any
// valid LinkParams read back as the same LinkParams. Checked per parameter (each value
// and unit boundary) and on seeded random combinations.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "fastpath/link_params.h"

namespace fastpath {
namespace {

std::vector<std::string> words(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

/// Formats `p` both ways, reads each back onto LinkParams{} and expects `p`.
void expectRoundTrip(const LinkParams& p) {
  for (auto which : {LinkParamsWords::kAll, LinkParamsWords::kChanged}) {
    const std::string text = formatLinkParams(p, which);
    LinkParams back;
    auto st = applyLinkParamWords(words(text), &back);
    ASSERT_TRUE(st.ok()) << "\"" << text << "\": " << st.error().message;
    EXPECT_TRUE(back == p) << "\"" << text << "\" reads back as \"" << formatLinkParams(back)
                           << "\"";
  }
}

TEST(LinkParamsRoundTrip, TheDefaultsAndEveryParameterAlone) {
  expectRoundTrip(LinkParams{});
  EXPECT_EQ(formatLinkParams(LinkParams{}, LinkParamsWords::kChanged), "");
  EXPECT_EQ(formatLinkParams(LinkParams{}), "rate unlimited delay 0ms limit 100");

  for (uint64_t r : {1000ull, 1001ull, 999999ull, 1000000ull, 1500000ull, 1234567ull,
                     999999999ull, 1000000000ull, 1234567891ull, 10000000001ull,
                     1000000000000000ull, 999999999999999ull}) {
    SCOPED_TRACE("rate " + std::to_string(r));
    LinkParams p;
    p.rate_bps = r;
    expectRoundTrip(p);
  }
  for (int32_t o : {1, 2, 24, 1024, -1, -12, -64}) {
    LinkParams p;
    p.overhead_bytes = o;
    expectRoundTrip(p);
  }
  for (uint32_t m : {1u, 60u, 1024u}) {
    LinkParams p;
    p.mpu_bytes = m;
    expectRoundTrip(p);
  }
  for (uint64_t t : {1ull, 999ull, 1000ull, 1001ull, 123456ull, 999999ull, 1000000ull,
                     1234567ull, 999999999ull, 1000000000ull, 1500000000ull, 59999999999ull,
                     60000000000ull}) {
    SCOPED_TRACE("time " + std::to_string(t));
    LinkParams p;
    p.delay_ns = t;
    expectRoundTrip(p);
    LinkParams q;
    q.jitter_ns = t;
    expectRoundTrip(q);
  }
  for (auto d : {LinkParams::Jitter::kUniform, LinkParams::Jitter::kNormal,
                 LinkParams::Jitter::kParetoNormal}) {
    SCOPED_TRACE(jitterDistributionName(d));
    LinkParams p;
    p.jitter_ns = 5000000;
    p.jitter_dist = d;
    expectRoundTrip(p);
    p.reorder = true;
    expectRoundTrip(p);
    p.jitter_ns = 0;  // distribution and reorder are kept without jitter too
    expectRoundTrip(p);
  }
  for (uint32_t l : {1u, 99u, 101u, 1000000u}) {
    LinkParams p;
    p.limit_packets = l;
    expectRoundTrip(p);
  }
  for (uint64_t b : {1ull, 1500ull, 65536ull, 1ull << 30}) {
    LinkParams p;
    p.limit_bytes = b;
    expectRoundTrip(p);
  }
  for (double v : {1e-9, 0.0001, 0.001, 0.005, 0.01, 0.07, 0.1, 0.123456789, 0.29, 0.5,
                   0.57, 0.9999999, 1.0}) {
    SCOPED_TRACE("probability " + std::to_string(v));
    for (double LinkParams::*field : {&LinkParams::loss, &LinkParams::duplicate,
                                      &LinkParams::corrupt}) {
      LinkParams p;
      p.*field = v;
      expectRoundTrip(p);
    }
    LinkParams ge;
    ge.gilbert_elliott = true;
    ge.ge_p = v;
    ge.ge_r = 1 - v;
    ge.ge_loss_bad = v;
    ge.ge_loss_good = v / 3;
    expectRoundTrip(ge);
  }
  for (uint64_t s : {uint64_t(1), uint64_t(42), kMaxLinkSeed}) {
    LinkParams p;
    p.seed = s;
    expectRoundTrip(p);
  }
}

TEST(LinkParamsRoundTrip, NoParameterIsWrittenInAFormTheParserRefuses) {
  // The words fpctl's `link list` used to print for a normal jitter ("jitter 5ms normal")
  // were refused when given back.
  LinkParams p;
  p.jitter_ns = 5000000;
  p.jitter_dist = LinkParams::Jitter::kNormal;
  EXPECT_EQ(formatLinkParams(p, LinkParamsWords::kChanged), "jitter 5ms distribution normal");
  EXPECT_EQ(formatRate(1500000), "1.5mbit");
  EXPECT_EQ(formatRate(1234567), "1.234567mbit") << "exact, not 1.23457mbit";
  EXPECT_EQ(formatTime(1234567), "1.234567ms");
  EXPECT_EQ(formatTime(100000), "100us");
  EXPECT_EQ(formatTime(250), "250ns");
  EXPECT_EQ(formatProbability(0.01), "1%");
  EXPECT_EQ(formatProbability(0.005), "0.5%");
}

/// A random valid LinkParams: each field set with probability 1/2, from values across its
/// whole range (integers of any size, probabilities of any magnitude).
LinkParams randomParams(std::mt19937_64& rng) {
  auto coin = [&] { return rng() & 1; };
  auto in = [&](uint64_t lo, uint64_t hi) {
    return std::uniform_int_distribution<uint64_t>(lo, hi)(rng);
  };
  auto prob = [&]() -> double {
    switch (in(0, 3)) {
      case 0: return double(in(0, 100)) / 100;                          // whole percent
      case 1: return double(in(0, 10000)) / 10000;                      // 0.01 % steps
      case 2: return std::uniform_real_distribution<double>(0, 1)(rng);  // any double
      default: return std::pow(10.0, -double(in(1, 12))) * double(in(1, 9));
    }
  };
  LinkParams p;
  if (coin()) p.rate_bps = in(0, 3) == 0 ? in(1, 1000) * 1000000 : in(1000, 1000000000000000ull);
  if (coin()) p.overhead_bytes = int32_t(in(0, 1088)) - 64;
  if (coin()) p.mpu_bytes = uint32_t(in(0, 1024));
  if (coin()) p.delay_ns = coin() ? in(0, 60000) * 1000000 : in(0, 60000000000ull);
  if (coin()) p.jitter_ns = coin() ? in(0, 1000) * 1000 : in(0, 60000000000ull);
  if (coin()) p.jitter_dist = LinkParams::Jitter(in(0, 2));
  if (coin()) p.reorder = true;
  if (coin()) p.limit_packets = uint32_t(in(1, 1000000));
  if (coin()) p.limit_bytes = in(0, 1ull << 30);
  if (coin()) {
    // Gilbert-Elliott replaces Bernoulli loss: its values exist only while it is on.
    p.gilbert_elliott = true;
    p.ge_p = prob();
    p.ge_r = prob();
    p.ge_loss_bad = prob();
    p.ge_loss_good = prob();
  } else if (coin()) {
    p.loss = prob();
  }
  if (coin()) p.duplicate = prob();
  if (coin()) p.corrupt = prob();
  if (coin()) p.seed = rng() & kMaxLinkSeed;
  if (coin()) {
    // A queue discipline's values exist only while one is on.
    p.aqm = coin() ? LinkParams::Aqm::kCoDel : LinkParams::Aqm::kCobalt;
    if (coin()) {
      // RED's settings exist only while it is the discipline.
      p.aqm = LinkParams::Aqm::kRed;
      LinkParams::Red& r = p.red;
      if (coin()) {
        r.min_th = double(in(0, 1000)) / 7;
        r.max_th = r.min_th + double(in(0, 1000)) / 3;
      }
      if (coin()) r.qw = coin() ? -double(in(0, 2)) : prob() * 0.5 + 1e-6;
      if (coin()) r.l_interm = double(in(1, 1000));
      if (coin()) r.gentle = false;
      if (coin()) r.mean_pkt_size = uint32_t(in(1, 65535));
      if (coin()) r.wait = false;
      if (coin()) r.hard_drop = false;
      if (coin()) r.ns1_compat = true;
      if (coin()) r.ared = true;
      else if (coin()) r.adapt_max_p = true;
      else if (coin()) r.feng = true;
      if (coin()) r.interval_ns = in(1, 60000000000ull);
      if (coin()) r.target_ns = in(0, 60000000000ull);
      if (coin()) r.alpha = prob();
      if (coin()) r.beta = prob();
      if (coin()) r.top = prob();
      if (coin()) r.bottom = prob();
      if (coin()) r.last_set_ns = in(0, 60000000000ull);
      if (coin()) r.rtt_ns = in(0, 60000000000ull);
      if (coin()) r.feng_alpha = 1 + double(in(0, 100)) / 8;
      if (coin()) r.feng_beta = 1 + double(in(0, 100)) / 8;
      if (coin()) r.nonlinear = true;
      if (coin()) r.link_bps = in(1000, 1000000000);
      if (coin()) r.link_delay_ns = in(0, 60000000000ull);
    }
    if (coin()) p.aqm_blue_increment = prob();
    if (coin()) p.aqm_blue_decrement = prob();
    if (coin()) p.aqm_blue_threshold_ns = in(0, 60000000000ull);
    if (coin()) {
      p.aqm_limit_packets = uint32_t(in(1, 1000000));
      p.aqm_limit_bytes = 0;
    } else {
      p.aqm_limit_bytes = in(1, 1ull << 30);
    }
    if (coin()) p.aqm_target_ns = in(1, 60000000000ull);
    if (coin()) p.aqm_interval_ns = coin() ? in(1, 1000) * 1000000 : in(1, 60000000000ull);
    if (coin()) p.aqm_min_bytes = uint32_t(in(0, 1u << 30));
    if (coin()) p.aqm_ecn = true;
    if (coin()) p.aqm_ce_threshold_ns = in(0, 60000000000ull);
  }
  return p;
}

TEST(LinkParamsRoundTrip, RandomCombinations) {
  std::mt19937_64 rng(20261127);
  for (int i = 0; i < 20000; ++i) {
    const LinkParams p = randomParams(rng);
    ASSERT_TRUE(validateLinkParams(p).ok()) << formatLinkParams(p);
    SCOPED_TRACE("case " + std::to_string(i));
    expectRoundTrip(p);
    if (::testing::Test::HasFailure()) break;  // one counterexample is enough to read
  }
}

TEST(LinkParamsWords, LossAfterGilbertElliottLeavesNoGilbertElliottValues) {
  LinkParams mixed;
  ASSERT_TRUE(applyLinkParamWords(words("gemodel 1% 10% 70% 0.1% loss 2%"), &mixed).ok());
  LinkParams plain;
  ASSERT_TRUE(applyLinkParamWords(words("loss 2%"), &plain).ok());
  EXPECT_TRUE(mixed == plain) << formatLinkParams(mixed);
  expectRoundTrip(mixed);
}

TEST(LinkParamsWords, AQueueDisciplineHasNs3sCoDelDefaultsAndClearErrors) {
  LinkParams p;
  ASSERT_TRUE(applyLinkParamWords(words("rate 10mbit limit 3 aqm codel"), &p));
  EXPECT_EQ(p.aqm, LinkParams::Aqm::kCoDel);
  EXPECT_EQ(p.aqm_target_ns, 5000000u);
  EXPECT_EQ(p.aqm_interval_ns, 100000000u);
  EXPECT_EQ(p.aqm_limit_bytes, 1500000u);
  EXPECT_EQ(formatLinkParams(p, LinkParamsWords::kChanged), "rate 10mbit limit 3 aqm codel");
  ASSERT_TRUE(applyLinkParamWords(words("aqm-limit 200 target 4ms ecn ce-threshold 1ms"), &p));
  EXPECT_EQ(p.aqm_limit_packets, 200u);
  EXPECT_EQ(p.aqm_limit_bytes, 0u) << "one unit, as ns-3's MaxSize";
  EXPECT_EQ(formatLinkParams(p),
            "rate 10mbit delay 0ms limit 3 aqm codel aqm-limit 200 target 4ms interval 100ms "
            "ecn ce-threshold 1ms");
  expectRoundTrip(p);
  auto bad = applyLinkParamWords(words("aqm pie"), &p);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("aqm \"pie\": use none, codel, cobalt, red or fq_codel"), std::string::npos)
      << bad.error().message;
  auto zero = applyLinkParamWords(words("target 0ms"), &p);
  ASSERT_FALSE(zero);
  EXPECT_NE(zero.error().message.find("target 0ms is outside 1ns .. 60s"), std::string::npos)
      << zero.error().message;
  EXPECT_EQ(p.aqm_target_ns, 4000000u) << "a refused change leaves the parameters as they were";
  // Off: the discipline's words are not written.
  ASSERT_TRUE(applyLinkParamWords(words("aqm none"), &p));
  EXPECT_EQ(formatLinkParams(p).find("aqm"), std::string::npos);
}

TEST(LinkParamsWords, FqCoDelsWordsReadBackAndBadValuesAreRefusedByName) {
  LinkParams p;
  ASSERT_TRUE(applyLinkParamWords({"aqm", "fq_codel", "aqm-limit", "10240", "flows", "256",
                                   "quantum", "300", "drop-batch", "8", "perturbation", "5",
                                   "set-associative", "set-ways", "4", "ecn"},
                                  &p));
  EXPECT_EQ(p.aqm, LinkParams::Aqm::kFqCoDel);
  EXPECT_EQ(p.aqm_fq_flows, 256u);
  EXPECT_EQ(p.aqm_fq_quantum, 300u);
  EXPECT_EQ(p.aqm_fq_drop_batch, 8u);
  EXPECT_EQ(p.aqm_fq_perturbation, 5u);
  EXPECT_TRUE(p.aqm_fq_set_associative);
  EXPECT_EQ(p.aqm_fq_set_ways, 4u);
  // Printed, then read back: the same values.
  for (auto which : {LinkParamsWords::kChanged, LinkParamsWords::kAll}) {
    LinkParams q;
    ASSERT_TRUE(applyLinkParamWords(splitWords(formatLinkParams(p, which), " "), &q))
        << formatLinkParams(p, which);
    EXPECT_TRUE(q == p) << formatLinkParams(p, which);
  }
  EXPECT_NE(formatLinkParams(p).find("aqm fq_codel"), std::string::npos);
  // The defaults are ns-3's.
  const LinkParams d;
  EXPECT_EQ(d.aqm_fq_flows, 1024u);
  EXPECT_EQ(d.aqm_fq_drop_batch, 64u);
  EXPECT_EQ(d.aqm_fq_set_ways, 8u);
  auto err = [](std::vector<std::string> w) {
    LinkParams x;
    auto st = applyLinkParamWords(w, &x);
    return st ? std::string() : st.error().message;
  };
  EXPECT_NE(err({"aqm", "fq_codel", "flows", "0"}).find("flows \"0\": expected 1 .. 65536"),
            std::string::npos);
  EXPECT_NE(err({"aqm", "fq_codel", "quantum"}).find("quantum: expects a number"),
            std::string::npos);
  EXPECT_NE(err({"aqm", "fq_codel", "flows", "100", "set-associative", "set-ways", "8"})
                .find("set-ways 8 must divide flows 100"),
            std::string::npos);
  EXPECT_NE(err({"aqm", "fq"}).find("use none, codel, cobalt, red or fq_codel"), std::string::npos);
}

TEST(LinkParamsWords, OverheadMayBeNegativeAndMpuSetsTheSmallestFrame) {
  LinkParams p;
  ASSERT_TRUE(applyLinkParamWords({"overhead", "-12", "mpu", "60"}, &p));
  EXPECT_EQ(p.overhead_bytes, -12);
  EXPECT_EQ(p.mpu_bytes, 60u);
  EXPECT_EQ(formatLinkParams(p, LinkParamsWords::kChanged), "overhead -12 mpu 60");
  auto low = applyLinkParamWords({"overhead", "-65"}, &p);
  ASSERT_FALSE(low);
  EXPECT_NE(low.error().message.find("overhead -65 is outside -64 .. 1024 bytes"),
            std::string::npos)
      << low.error().message;
  EXPECT_FALSE(applyLinkParamWords({"mpu", "2000"}, &p));
  EXPECT_FALSE(applyLinkParamWords({"mpu", "-1"}, &p));
  EXPECT_EQ(p.overhead_bytes, -12) << "a refused change leaves the parameters as they were";
}

TEST(LinkFrameBytes, TheLargerOfLengthAndMpuPlusOverheadNeverBelowZero) {
  // ns-3's PointToPointNetDevice: IP + 2 (PPP) for an Ethernet frame of IP + 14.
  EXPECT_EQ(linkFrameBytes(14 + 500, -12, 0), 502u);
  EXPECT_EQ(linkFrameBytes(14 + 40, -12, 0), 42u);
  // ns-3's CsmaNetDevice: payload padded to 46, header 14, FCS 4.
  EXPECT_EQ(linkFrameBytes(14 + 28, 4, 60), 64u);
  EXPECT_EQ(linkFrameBytes(14 + 46, 4, 60), 64u);
  EXPECT_EQ(linkFrameBytes(14 + 47, 4, 60), 65u);
  EXPECT_EQ(linkFrameBytes(14 + 1500, 4, 60), 1518u);
  EXPECT_EQ(linkFrameBytes(10, -64, 0), 0u);
  LinkParams p;
  p.overhead_bytes = 24;
  EXPECT_EQ(linkFrameBytes(100, p), 124u);
}

// RED's words: every setting by name, read back as written; bad values named.
TEST(LinkParamsWords, RedTakesNs3sAttributesAndRefusesBadValues) {
  LinkParams p;
  ASSERT_TRUE(applyLinkParamWords(splitWords("rate 1mbit aqm red aqm-limit 1000 red-min 5 "
                                             "red-max 15 red-qw 0.002 red-mean-size 512 feng "
                                             "red-link-rate 1mbit red-link-delay 50ms nlred",
                                             " "),
                                  &p));
  EXPECT_EQ(p.aqm, LinkParams::Aqm::kRed);
  EXPECT_EQ(p.red.mean_pkt_size, 512u);
  EXPECT_TRUE(p.red.feng);
  EXPECT_TRUE(p.red.nonlinear);
  EXPECT_EQ(p.red.link_bps, 1000000u);
  EXPECT_EQ(p.red.link_delay_ns, 50000000u);
  LinkParams back;
  ASSERT_TRUE(applyLinkParamWords(splitWords(formatLinkParams(p, LinkParamsWords::kAll), " "), &back));
  EXPECT_TRUE(back == p) << formatLinkParams(p, LinkParamsWords::kAll);
  auto refused = [&](const char* words, const char* message) {
    LinkParams q = p;
    auto st = applyLinkParamWords(splitWords(words, " "), &q);
    ASSERT_FALSE(st) << words;
    EXPECT_NE(st.error().message.find(message), std::string::npos) << st.error().message;
    EXPECT_TRUE(q == p) << "unchanged";
  };
  refused("red-min 20 red-max 10", "red-min 20 and red-max 10");
  refused("red-qw 3", "red-qw 3");
  refused("red-linterm 0.5", "red-linterm 0.5");
  refused("ared", "choose one");
  refused("red-mean-size 0", "red-mean-size \"0\"");
  refused("red-alpha x", "red-alpha \"x\"");
  refused("red-min", "red-min: expects a value");
}

TEST(SplitWords, CutsAtEverySeparatorAndDropsEmptyWords) {
  using V = std::vector<std::string>;
  EXPECT_EQ(splitWords("rate 10mbit  delay\t5ms ", " \t"), (V{"rate", "10mbit", "delay", "5ms"}));
  EXPECT_EQ(splitWords("10.0.0.0/8,via=10.0.0.1 dev=eth0", ",= \t"),
            (V{"10.0.0.0/8", "via", "10.0.0.1", "dev", "eth0"}));
  EXPECT_EQ(splitWords("", " "), V{});
  EXPECT_EQ(splitWords("   ", " "), V{});
  EXPECT_EQ(splitWords("a=b", " "), V{"a=b"}) << "only the separators given cut";
  EXPECT_EQ(splitWords(std::string_view("a\0b", 3), std::string_view("\0", 1)), (V{"a", "b"}));
}

}  // namespace
}  // namespace fastpath
