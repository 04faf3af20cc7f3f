// SPDX-License-Identifier: GPL-2.0-only
// A fastpathd of an older protocol minor as far as one client can tell, for the tests that
// check the client library refuses (naming both versions) what that fastpathd would ignore.
#pragma once

#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "fastpath/v1/fastpath.pb.h"

namespace fastpath::ctrl::testing {

// A fastpathd of protocol 1.`minor` as far as one client can tell: it answers Hello with
// that version and every other request with OK, and keeps what it was asked. It serves one
// connection, on a Unix socket in a fresh temporary directory.
class OlderServer {
 public:
  explicit OlderServer(uint32_t minor);
  ~OlderServer();
  OlderServer(const OlderServer&) = delete;
  OlderServer& operator=(const OlderServer&) = delete;

  /// The socket's path; empty when the socket could not be set up.
  const std::string& path() const { return path_; }
  /// What the client sent, once it closed its connection.
  const std::vector<v1::Request>& requests();

 private:
  void serve();

  uint32_t minor_;
  std::string dir_, path_;
  int listen_ = -1;
  std::thread thread_;
  std::vector<v1::Request> requests_;
};

}  // namespace fastpath::ctrl::testing
