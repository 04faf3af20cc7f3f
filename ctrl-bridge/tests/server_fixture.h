// SPDX-License-Identifier: GPL-2.0-only
// The server tests' fixture: a ServerHarness started per test, and a route built from text.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "fastpath/ctrl/client.h"
#include "server_harness.h"

namespace fastpath::ctrl::testing {

inline Route route(const std::string& prefix, const std::string& via, PortId port,
                   uint32_t metric = 0) {
  Route r;
  r.prefix = IpPrefix::parse(prefix).value();
  r.next_hop = via.empty() ? IpAddress{} : IpAddress::parse(via).value();
  r.next_hop.family = r.prefix.address.family;
  r.port = port;
  r.metric = metric;
  return r;
}

class ServerTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(h_.start()); }
  ServerHarness h_;
};

}  // namespace fastpath::ctrl::testing
