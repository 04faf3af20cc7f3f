// SPDX-License-Identifier: GPL-2.0-only
// A control server of fastpathd's (the real ControlServer) over an in-memory network of
// nodes and links (ctrl-bridge's MultiNodeBackend: fastpathd minus its workers and
// interfaces), on a Unix socket in a temporary folder: an emulating helper creates its nodes
// and links there as in fastpathd, without privileges. C++17-clean (the ns-3 tests' side).
#pragma once

#include <memory>
#include <string>

namespace ns3
{

class FastPathTestServer
{
  public:
    /// Started, polled by a thread of its own.
    FastPathTestServer();
    ~FastPathTestServer();
    FastPathTestServer(const FastPathTestServer&) = delete;
    FastPathTestServer& operator=(const FastPathTestServer&) = delete;

    /// The socket (the global value FastPathSocket of a script that uses it).
    std::string SocketPath() const;

  private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

} // namespace ns3
