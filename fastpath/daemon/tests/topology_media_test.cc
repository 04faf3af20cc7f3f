// SPDX-License-Identifier: GPL-2.0-only
// Radio media in topology files (`media:`): the members, the PHY (every key the file may
// set, rate control included) and the static pairs a valid file gives, and for each kind of
// mistake an error naming the line.
#include <gtest/gtest.h>

#include <string>

#include "daemon/topology.h"

namespace fastpath {
namespace {

const char* const kOrigin = "m.yaml";

const std::string kNodes = "nodes: [{name: r1}, {name: r2}, {name: r3}]\n";

Result<Topology> parse(const std::string& media) {
  return parseTopologyText(kNodes + "media:\n" + media, kOrigin);
}

/// The file is refused, and one of its messages names `line` and contains `needle`.
void expectError(const std::string& media, int line, const std::string& needle) {
  auto r = parse(media);
  ASSERT_FALSE(r.ok()) << "accepted; expected line " << line << ": " << needle;
  const std::string prefix = std::string(kOrigin) + ":" + std::to_string(line) + ": ";
  bool found = false;
  for (size_t at = r.error().message.find(prefix); at != std::string::npos;
       at = r.error().message.find(prefix, at + 1)) {
    const std::string one = r.error().message.substr(at, r.error().message.find('\n', at) - at);
    if (one.find(needle) != std::string::npos) found = true;
  }
  EXPECT_TRUE(found) << "'" << r.error().message << "' has no line " << prefix << "with '"
                     << needle << "'";
}

TEST(TopologyMedia, MembersPhyAndPairs) {
  auto t = parse(
      "  - name: air\n"  // line 3
      "    ports: [r1, {node: r2, port: wlan0, mac: \"02:00:00:00:aa:02\"}, r3]\n"
      "    phy:\n"
      "      data_rate_kbps: 11000\n"
      "      basic_rate_kbps: 2000\n"
      "      retry_limit: 4\n"
      "      error_model: yans\n"
      "      rts_threshold: 500\n"
      "      rate_control: arf\n"
      "      arf_success_threshold: 8\n"
      "      arf_timer_threshold: 12\n"
      "    pairs:\n"
      "      - {from: r1, to: r2, rx_dbm: -60, symmetric: true}\n"
      "      - {from: r2, to: r3, rx_dbm: -70.5}\n");
  ASSERT_TRUE(t.ok()) << t.error().message;
  ASSERT_EQ(t->media.size(), 1u);
  const TopologyMedium& m = t->media[0];
  EXPECT_EQ(m.line, 3);
  EXPECT_EQ(m.spec.name, "air");
  ASSERT_EQ(m.spec.ports.size(), 3u);
  EXPECT_EQ(m.spec.ports[0].port, "air") << "the port defaults to the medium's name";
  EXPECT_EQ(m.spec.ports[1].port, "wlan0");
  EXPECT_EQ(m.spec.ports[1].mac.toString(), "02:00:00:00:aa:02");
  EXPECT_EQ(m.spec.phy.data_rate_kbps, 11000u);
  EXPECT_EQ(m.spec.phy.basic_rate_kbps, 2000u);
  EXPECT_EQ(m.spec.phy.retry_limit, 4u);
  EXPECT_EQ(m.spec.phy.error_model, WifiErrorModel::kYans);
  EXPECT_EQ(m.spec.phy.rts_threshold, 500u);
  EXPECT_EQ(m.spec.phy.rate_control, RateControl::kArf);
  EXPECT_EQ(m.spec.phy.arf_success_threshold, 8u);
  EXPECT_EQ(m.spec.phy.arf_timer_threshold, 12u);
  EXPECT_EQ(m.spec.phy.cs_threshold_dbm, m.spec.phy.rx_sensitivity_dbm)
      << "carrier sense defaults to the sensitivity";
  ASSERT_EQ(m.spec.pairs.size(), 3u) << "symmetric: both directions";
  EXPECT_EQ(m.spec.pairs[1].from, "r2");
  EXPECT_EQ(m.spec.pairs[1].to, "r1");
  EXPECT_DOUBLE_EQ(m.spec.pairs[2].rx_power_dbm, -70.5);
}

TEST(TopologyMedia, RateControlDefaultsToConstantAndArfToNs3Thresholds) {
  auto t = parse("  - {name: air, ports: [r1, r2], phy: {rate_control: constant}}\n"
                 "  - {name: air2, ports: [r3], phy: {rate_control: arf}}\n");
  ASSERT_TRUE(t.ok()) << t.error().message;
  ASSERT_EQ(t->media.size(), 2u);
  EXPECT_EQ(t->media[0].spec.phy.rate_control, RateControl::kConstant);
  EXPECT_EQ(t->media[1].spec.phy.rate_control, RateControl::kArf);
  EXPECT_EQ(t->media[1].spec.phy.arf_success_threshold, 10u) << "ArfWifiManager's default";
  EXPECT_EQ(t->media[1].spec.phy.arf_timer_threshold, 15u) << "ArfWifiManager's default";
  auto none = parse("  - {name: air, ports: [r1, r2]}\n");
  ASSERT_TRUE(none.ok()) << none.error().message;
  EXPECT_EQ(none->media[0].spec.phy.rate_control, RateControl::kConstant);
}

TEST(TopologyMedia, BadPhyValuesNameTheirLine) {
  expectError(
      "  - name: air\n"
      "    ports: [r1, r2]\n"
      "    phy: {rate_control: minstrel}\n",  // line 5
      5, "rate_control must be constant or arf, not 'minstrel'");
  expectError(
      "  - name: air\n"
      "    ports: [r1, r2]\n"
      "    phy: {rate_control: arf, arf_success_threshold: 0}\n",
      5, "arf_success_threshold: 0 is outside 1 .. 65535");
  expectError(
      "  - name: air\n"
      "    ports: [r1, r2]\n"
      "    phy: {arf_timer_threshold: 70000}\n",
      5, "arf_timer_threshold must be an integer 0..65535, not '70000'");
  expectError(
      "  - name: air\n"
      "    ports: [r1, r2]\n"
      "    phy: {error_model: table}\n",
      5, "error_model must be nist or yans, not 'table'");
  expectError(
      "  - name: air\n"
      "    ports: [r1, r2]\n"
      "    phy: {rate_adaptation: arf}\n",
      5, "unknown key 'rate_adaptation'");
}

}  // namespace
}  // namespace fastpath
