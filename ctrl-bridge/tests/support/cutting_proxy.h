// SPDX-License-Identifier: GPL-2.0-only
// A Unix-socket proxy between a client and the control server that can lose a reply:
// armed with cutAtReply(n), it forwards the server's messages until the n-th, and instead
// of that one closes both of the connection's sockets. The server has carried out the
// request by then; the client sees its connection break without the reply, which is what
// a resend after reconnecting must cope with. One client connection at a time; messages
// are re-framed whole (no descriptors pass).
#pragma once

#include <poll.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>

#include "fastpath/v1/fastpath.pb.h"
#include "framing.h"

namespace fastpath::ctrl::testing {

class CuttingProxy {
 public:
  /// Listens on `dir`/proxy.sock and connects each client to `upstream`.
  CuttingProxy(std::string upstream, const std::string& dir)
      : upstream_(std::move(upstream)), path_(dir + "/proxy.sock") {
    listen_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un a = address(path_);
    if (listen_ < 0 || ::bind(listen_, reinterpret_cast<sockaddr*>(&a), sizeof(a)) < 0 ||
        ::listen(listen_, 4) < 0)
      return;
    thread_ = std::thread([this] { loop(); });
  }
  ~CuttingProxy() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    closePair();
    if (listen_ >= 0) ::close(listen_);
    ::unlink(path_.c_str());
  }

  const std::string& path() const { return path_; }
  bool listening() const { return thread_.joinable(); }
  /// The n-th server message from now (1 = the next) is not delivered: the connection is
  /// cut in its place.
  void cutAtReply(int n) { cut_at_ = n; }
  /// Connections cut so far.
  int cuts() const { return cuts_; }

 private:
  static sockaddr_un address(const std::string& path) {
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::strncpy(a.sun_path, path.c_str(), sizeof(a.sun_path) - 1);
    return a;
  }
  void closePair() {
    if (client_ >= 0) ::close(client_);
    if (server_ >= 0) ::close(server_);
    client_ = server_ = -1;
  }
  void accept() {
    int c = ::accept4(listen_, nullptr, nullptr, SOCK_CLOEXEC);
    if (c < 0) return;
    closePair();
    int s = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un a = address(upstream_);
    if (s < 0 || ::connect(s, reinterpret_cast<sockaddr*>(&a), sizeof(a)) < 0) {
      if (s >= 0) ::close(s);
      ::close(c);
      return;
    }
    client_ = c;
    server_ = s;
    from_server_ = FrameDecoder(64u << 20);
  }
  static bool sendAll(int fd, const std::string& bytes) {
    std::size_t off = 0;
    while (off < bytes.size()) {
      ssize_t n = ::send(fd, bytes.data() + off, bytes.size() - off, MSG_NOSIGNAL);
      if (n <= 0) return false;
      off += std::size_t(n);
    }
    return true;
  }
  /// Client bytes go up unchanged; server messages come down one by one, or the cut.
  void pump(bool from_client) {
    char buf[64 * 1024];
    ssize_t n = ::recv(from_client ? client_ : server_, buf, sizeof(buf), 0);
    if (n <= 0) return closePair();
    if (from_client) {
      if (!sendAll(server_, std::string(buf, std::size_t(n)))) closePair();
      return;
    }
    from_server_.append(buf, std::size_t(n));
    v1::ServerMessage m;
    while (from_server_.next(&m) == FrameDecoder::State::kFrame) {
      if (cut_at_ > 0 && --cut_at_ == 0) {
        ++cuts_;
        return closePair();
      }
      std::string frame;
      if (!encodeFrame(m, 64u << 20, &frame) || !sendAll(client_, frame)) return closePair();
    }
  }
  void loop() {
    while (!stop_) {
      pollfd p[3] = {{listen_, POLLIN, 0}, {client_, POLLIN, 0}, {server_, POLLIN, 0}};
      if (::poll(p, client_ >= 0 ? 3 : 1, 20) <= 0) continue;
      if (p[0].revents) accept();
      else if (client_ >= 0 && p[1].revents) pump(true);
      else if (server_ >= 0 && p[2].revents) pump(false);
    }
  }

  std::string upstream_, path_;
  int listen_ = -1, client_ = -1, server_ = -1;
  FrameDecoder from_server_{64u << 20};
  std::atomic<int> cut_at_{0};
  std::atomic<int> cuts_{0};
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace fastpath::ctrl::testing
