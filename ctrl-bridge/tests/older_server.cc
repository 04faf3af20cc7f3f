// SPDX-License-Identifier: GPL-2.0-only
#include "older_server.h"

#include <stdlib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>

#include "fastpath/ctrl/protocol.h"
#include "framing.h"

namespace fastpath::ctrl::testing {

OlderServer::OlderServer(uint32_t minor) : minor_(minor) {
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

OlderServer::~OlderServer() {
  if (thread_.joinable()) thread_.join();
  if (listen_ >= 0) ::close(listen_);
  ::unlink(path_.c_str());
  ::rmdir(dir_.c_str());
}

const std::vector<v1::Request>& OlderServer::requests() {
  if (thread_.joinable()) thread_.join();
  return requests_;
}

void OlderServer::serve() {
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
      // Requests newer than the server: it does not know them (body not set for it).
      if (minor_ < 11 && (req.has_create_bridge() || req.has_delete_bridge() ||
                          req.has_get_bridges())) {
        m.mutable_reply()->mutable_error()->set_code(v1::UNIMPLEMENTED);
        m.mutable_reply()->mutable_error()->set_message("unknown request");
      }
      std::string w;
      if (!encodeFrame(m, 64u << 20, &w) ||
          ::send(c, w.data(), w.size(), MSG_NOSIGNAL) != ssize_t(w.size()))
        break;
    }
  }
  ::close(c);
}

}  // namespace fastpath::ctrl::testing
