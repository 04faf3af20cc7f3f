// SPDX-License-Identifier: GPL-2.0-only
// The process's one receive thread for every FastPathNetDevice's control channel: ns-3's
// FdNetDevice reads each device in a thread of its own with select(), which costs a thread
// per port, a wake-up of that thread per frame, and caps the descriptors below FD_SETSIZE.
// Here one thread waits on all channels with epoll and hands each frame read to its
// device's handler (which schedules it in the simulator, in the order read).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

namespace ns3
{

/**
 * \ingroup fastpath
 * \brief One epoll thread reading every registered descriptor of the process.
 *
 * Add() registers a descriptor with its handler; the thread calls the handler (on the
 * receive thread) each time the descriptor is readable; the handler reads what it can
 * without blocking and returns false when the channel ended (the descriptor is then no
 * longer watched). Only this thread reads a registered descriptor, so frames keep their
 * order per descriptor. Remove() returns once the handler is not running and will not run
 * again. The thread starts with the first descriptor and ends with the last.
 */
class FastPathReceiveThread
{
  public:
    using Handler = std::function<bool()>;

    /// The process's receive thread (created on first use, never destroyed).
    static FastPathReceiveThread& Get();

    /// Watches `fd`; returns the registration's id (0: epoll refused it, errno set).
    uint64_t Add(int fd, Handler onReadable);
    /// Stops watching the registration `id` (an unknown or 0 id: nothing). Not from a handler.
    void Remove(uint64_t id);
    /// Descriptors watched, and whether the thread runs (tests, diagnostics).
    std::size_t GetWatchedCount() const;
    bool IsRunning() const;

  private:
    FastPathReceiveThread();
    struct State;
    State* m_state;
};

} // namespace ns3
