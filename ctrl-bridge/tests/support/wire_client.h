// SPDX-License-Identifier: GPL-2.0-only
// A client of the control socket for tests: the real library (connectOk) and raw bytes
// (hand-made frames, reading until EOF), to act as a well-behaved or a hostile peer.
#pragma once

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "fastpath/ctrl/client.h"
#include "framing.h"
#include "server_harness.h"
#include "wire_error.h"

namespace fastpath::ctrl::testing::wire {

inline std::unique_ptr<Client> connectOk(ServerHarness& h, ClientOptions opt = {}) {
  if (opt.node_name.empty()) opt.node_name = "test-node";
  auto c = Client::connect(h.socketPath(), opt);
  EXPECT_TRUE(c) << (c ? "" : c.error().message);
  return c ? std::move(c).value() : nullptr;
}

/// A raw connection for sending hand-made bytes.
inline int rawConnect(const std::string& path) {
  int s = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::strncpy(a.sun_path, path.c_str(), sizeof(a.sun_path) - 1);
  if (::connect(s, reinterpret_cast<sockaddr*>(&a), sizeof(a)) < 0) {
    ::close(s);
    return -1;
  }
  return s;
}

inline void sendFrame(int s, const google::protobuf::MessageLite& m) {
  std::string w;
  ASSERT_TRUE(encodeFrame(m, 64u << 20, &w));
  ASSERT_EQ(::send(s, w.data(), w.size(), MSG_NOSIGNAL), static_cast<ssize_t>(w.size()));
}

inline void sendHello(int s) {
  v1::Request r;
  r.set_id(1);
  r.mutable_hello()->mutable_version()->set_major(kProtocolMajor);
  sendFrame(s, r);
}

/// Reads until EOF (or 5 s); returns the decoded server messages and whether EOF came.
inline std::vector<v1::ServerMessage> readUntilEof(int s, bool* eof) {
  std::vector<v1::ServerMessage> out;
  FrameDecoder dec(64u << 20);
  *eof = false;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (std::chrono::steady_clock::now() < deadline) {
    pollfd p{s, POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;
    char buf[4096];
    ssize_t n = ::recv(s, buf, sizeof(buf), 0);
    if (n <= 0) {
      *eof = true;
      break;
    }
    dec.append(buf, n);
    v1::ServerMessage m;
    while (dec.next(&m) == FrameDecoder::State::kFrame) out.push_back(m);
  }
  return out;
}

}  // namespace fastpath::ctrl::testing::wire
