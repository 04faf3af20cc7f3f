// SPDX-License-Identifier: GPL-2.0-only
#include "fast-path-receive-thread.h"

#include "ns3/abort.h"

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>

namespace ns3
{

struct FastPathReceiveThread::State
{
    int epfd = -1;
    /// Wakes the thread to end it (when the last descriptor goes).
    int wakeFd = -1;
    std::thread thread;
    bool stopping = false;
    /// Held by the thread while it runs handlers, and by Add/Remove: a handler never runs
    /// after its Remove() returned.
    mutable std::mutex mutex;
    /// The thread's control (start, stop, join): Add and Remove only.
    std::mutex lifecycle;
    struct Entry
    {
        int fd;
        Handler onReadable;
    };
    std::map<uint64_t, Entry> handlers;
    uint64_t nextId = 1;

    void Run();
};

FastPathReceiveThread&
FastPathReceiveThread::Get()
{
    // Leaked on purpose: devices may be disposed by static destructors after main.
    static auto* instance = new FastPathReceiveThread();
    return *instance;
}

FastPathReceiveThread::FastPathReceiveThread()
    : m_state(new State)
{
    m_state->epfd = ::epoll_create1(EPOLL_CLOEXEC);
    m_state->wakeFd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    NS_ABORT_MSG_IF(m_state->epfd < 0 || m_state->wakeFd < 0,
                    "FastPathReceiveThread: epoll or eventfd failed: " << std::strerror(errno));
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = 0; // the wake descriptor
    NS_ABORT_MSG_IF(::epoll_ctl(m_state->epfd, EPOLL_CTL_ADD, m_state->wakeFd, &ev) != 0,
                    "FastPathReceiveThread: epoll_ctl failed: " << std::strerror(errno));
}

uint64_t
FastPathReceiveThread::Add(int fd, Handler onReadable)
{
    std::lock_guard<std::mutex> life(m_state->lifecycle);
    uint64_t id;
    {
        std::lock_guard<std::mutex> lock(m_state->mutex);
        id = m_state->nextId++;
        m_state->handlers.emplace(id, State::Entry{fd, std::move(onReadable)});
    }
    epoll_event ev{};
    // Level-triggered: a handler reads a bounded batch and is called again while frames wait.
    ev.events = EPOLLIN;
    ev.data.u64 = id;
    if (::epoll_ctl(m_state->epfd, EPOLL_CTL_ADD, fd, &ev) != 0)
    {
        const int err = errno;
        std::lock_guard<std::mutex> lock(m_state->mutex);
        m_state->handlers.erase(id);
        errno = err;
        return 0;
    }
    if (!m_state->thread.joinable())
    {
        m_state->stopping = false;
        m_state->thread = std::thread(&State::Run, m_state);
    }
    return id;
}

void
FastPathReceiveThread::Remove(uint64_t id)
{
    if (id == 0)
    {
        return;
    }
    std::lock_guard<std::mutex> life(m_state->lifecycle);
    bool last;
    {
        std::lock_guard<std::mutex> lock(m_state->mutex);
        auto it = m_state->handlers.find(id);
        if (it == m_state->handlers.end())
        {
            // Ended already (the thread let it go when its channel closed).
            last = m_state->handlers.empty();
        }
        else
        {
            ::epoll_ctl(m_state->epfd, EPOLL_CTL_DEL, it->second.fd, nullptr);
            m_state->handlers.erase(it);
            last = m_state->handlers.empty();
        }
        if (last)
        {
            m_state->stopping = true;
        }
    }
    if (last && m_state->thread.joinable())
    {
        const uint64_t one = 1;
        [[maybe_unused]] ssize_t n = ::write(m_state->wakeFd, &one, sizeof(one));
        m_state->thread.join();
        uint64_t drained;
        n = ::read(m_state->wakeFd, &drained, sizeof(drained));
    }
}

std::size_t
FastPathReceiveThread::GetWatchedCount() const
{
    std::lock_guard<std::mutex> lock(m_state->mutex);
    return m_state->handlers.size();
}

bool
FastPathReceiveThread::IsRunning() const
{
    return m_state->thread.joinable();
}

void
FastPathReceiveThread::State::Run()
{
    constexpr int kEvents = 64;
    epoll_event events[kEvents];
    for (;;)
    {
        const int n = ::epoll_wait(epfd, events, kEvents, -1);
        if (n < 0)
        {
            NS_ABORT_MSG_IF(errno != EINTR,
                            "FastPathReceiveThread: epoll_wait failed: " << std::strerror(errno));
            continue;
        }
        std::lock_guard<std::mutex> lock(mutex);
        if (stopping)
        {
            return;
        }
        for (int i = 0; i < n; ++i)
        {
            const uint64_t id = events[i].data.u64;
            // An id removed since epoll_wait returned is skipped: its device is gone.
            auto it = handlers.find(id);
            if (id == 0 || it == handlers.end())
            {
                continue;
            }
            if (!it->second.onReadable())
            {
                // The channel ended (as FdNetDevice's reader, reading stops): no longer
                // watched, else its end would be reported again at once.
                ::epoll_ctl(epfd, EPOLL_CTL_DEL, it->second.fd, nullptr);
                handlers.erase(it);
            }
        }
    }
}

} // namespace ns3
