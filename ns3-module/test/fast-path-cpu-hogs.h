// SPDX-License-Identifier: GPL-2.0-only
// Bounded CPU hogs for the timing tests: busy loops, each ended by `timeout` after 60 s at
// the latest, stopped by PID (never by name) when the test is done with them.
#pragma once

#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <vector>

namespace fastpath_ns3_test
{

class CpuHogs
{
  public:
    ~CpuHogs()
    {
        Stop();
    }

    /// Starts `n` busy loops.
    void Start(int n)
    {
        for (int i = 0; i < n; ++i)
        {
            pid_t pid = fork();
            if (pid == 0)
            {
                execlp("timeout", "timeout", "60", "sh", "-c", "while :; do :; done", nullptr);
                _exit(127);
            }
            ASSERT_GT(pid, 0);
            m_pids.push_back(pid);
        }
    }

    void Stop()
    {
        for (pid_t pid : m_pids)
        {
            kill(pid, SIGTERM);
            waitpid(pid, nullptr, 0);
        }
        m_pids.clear();
    }

  private:
    std::vector<pid_t> m_pids;
};

} // namespace fastpath_ns3_test
