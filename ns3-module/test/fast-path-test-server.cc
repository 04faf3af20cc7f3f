// SPDX-License-Identifier: GPL-2.0-only
// Compiled as C++20 (ctrl-bridge's test support); its header is C++17-clean.
#include "fast-path-test-server.h"

#include "multi_node_backend.h"
#include "server_harness.h"

#include <stdexcept>

namespace ns3
{

struct FastPathTestServer::Impl
{
    fastpath::ctrl::testing::ServerHarness harness{
        fastpath::ctrl::ServerOptions{},
        std::make_unique<fastpath::ctrl::testing::MultiNodeBackend>()};
};

FastPathTestServer::FastPathTestServer()
    : m_impl(std::make_unique<Impl>())
{
    if (auto st = m_impl->harness.start(); !st)
    {
        throw std::runtime_error("control server: " + st.error().message);
    }
}

FastPathTestServer::~FastPathTestServer() = default;

std::string
FastPathTestServer::SocketPath() const
{
    return m_impl->harness.socketPath();
}

} // namespace ns3
