// SPDX-License-Identifier: GPL-2.0-only
// OlderServer: a fastpathd of an older protocol minor as far as one client can tell, for
// the tests that a client refuses a feature the server would drop unseen.
#pragma once

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "fastpath/ctrl/protocol.h"
#include "fastpath/v1/fastpath.pb.h"
#include "framing.h"

namespace fastpath::ctrl::testing {

// A fastpathd of protocol 1.`minor` as far as one client can tell: it answers Hello with
// that version and every other request with OK, and keeps what it was asked.
class OlderServer {
 public:
  explicit OlderServer(uint32_t minor) : minor_(minor) {
    char dir[] = "/tmp/fp-older-server-XXXXXX";
    if (!mkdtemp(dir)) return;
    dir_ = dir;
    path_ = dir_ + "/sock";
    listen_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::strncpy(a.sun_path, path_.c_str(), sizeof(a.sun_path) - 1);
    if (::bind(listen_, reinterpret_cast<sockaddr*>(&a), sizeof(a)) < 0 ||
        ::listen(listen_, 1) < 0)
      return;
    thread_ = std::thread([this] { serve(); });
  }
  ~OlderServer() {
    if (thread_.joinable()) thread_.join();
    if (listen_ >= 0) ::close(listen_);
    ::unlink(path_.c_str());
    ::rmdir(dir_.c_str());
  }
  const std::string& path() const { return path_; }
  /// What the client sent, once it closed its connection.
  const std::vector<v1::Request>& requests() {
    if (thread_.joinable()) thread_.join();
    return requests_;
  }

 private:
  void serve() {
    const int c = ::accept4(listen_, nullptr, nullptr, SOCK_CLOEXEC);
    if (c < 0) return;
    FrameDecoder dec(64u << 20);
    char buf[4096];
    for (;;) {
      const ssize_t n = ::recv(c, buf, sizeof(buf), 0);
      if (n <= 0) break;
      dec.append(buf, size_t(n));
      v1::Request req;
      while (dec.next(&req) == FrameDecoder::State::kFrame) {
        requests_.push_back(req);
        v1::ServerMessage m;
        m.mutable_reply()->set_id(req.id());
        if (req.has_hello()) {
          m.mutable_reply()->mutable_hello()->mutable_version()->set_major(kProtocolMajor);
          m.mutable_reply()->mutable_hello()->mutable_version()->set_minor(minor_);
        }
        std::string w;
        if (!encodeFrame(m, 64u << 20, &w) ||
            ::send(c, w.data(), w.size(), MSG_NOSIGNAL) != ssize_t(w.size()))
          break;
      }
    }
    ::close(c);
  }

  uint32_t minor_;
  std::string dir_, path_;
  int listen_ = -1;
  std::thread thread_;
  std::vector<v1::Request> requests_;
};

}  // namespace fastpath::ctrl::testing
