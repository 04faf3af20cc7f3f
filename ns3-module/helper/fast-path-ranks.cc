// SPDX-License-Identifier: GPL-2.0-only
#include "fast-path-ranks.h"

#include "ns3/abort.h"
#include "ns3/global-value.h"
#include "ns3/log.h"
#include "ns3/string.h"

// The C API only (Open MPI's deprecated C++ bindings need libmpi_cxx).
#define OMPI_SKIP_MPICXX 1
#include <mpi.h>

#include <cstdlib>
#include <iostream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FastPathRanks");

FastPathRanks&
FastPathRanks::Get()
{
    static FastPathRanks* ranks = [] {
        auto* r = new FastPathRanks();
        auto detected = FastPathPartition::Detect(GetOption(), [](const char* n) {
            return std::getenv(n);
        });
        NS_ABORT_MSG_IF(!detected.ok(), "fastpath: " << detected.error().message);
        r->m_rank = detected.value();
        // Open MPI's mpirun started us: its barrier and abort. (MPI_Init outside mpirun
        // would start a singleton, and refuses root without extra variables: only here.)
        if (r->m_rank.size > 1 && std::getenv("OMPI_COMM_WORLD_SIZE"))
        {
            int provided = 0;
            MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
            int rank = 0;
            int size = 1;
            MPI_Comm_rank(MPI_COMM_WORLD, &rank);
            MPI_Comm_size(MPI_COMM_WORLD, &size);
            NS_ABORT_MSG_IF(uint32_t(rank) != r->m_rank.rank || uint32_t(size) != r->m_rank.size,
                            "fastpath: MPI says rank " << rank << " of " << size << " but "
                                                       << r->m_rank.source << " says "
                                                       << r->m_rank.rank << " of "
                                                       << r->m_rank.size);
            r->m_mpi = true;
            std::atexit([] { FastPathRanks::Get().Finalize(); });
        }
        NS_LOG_INFO("rank " << r->m_rank.rank << " of " << r->m_rank.size << " ("
                            << r->m_rank.source << (r->m_mpi ? ", MPI" : "") << ")");
        return r;
    }();
    return *ranks;
}

std::string
FastPathRanks::GetOption()
{
    StringValue v;
    GlobalValue::GetValueByName("FastPathPartition", v);
    return v.Get();
}

const FastPathPartition::Rank&
FastPathRanks::GetRank() const
{
    return m_rank;
}

bool
FastPathRanks::IsPartitioned() const
{
    return m_rank.size > 1;
}

bool
FastPathRanks::HasBarrier() const
{
    return m_mpi && !m_finalized;
}

void
FastPathRanks::Barrier()
{
    if (HasBarrier())
    {
        MPI_Barrier(MPI_COMM_WORLD);
    }
}

void
FastPathRanks::Abort(const std::string& message)
{
    std::cerr << "rank " << m_rank.rank << ": " << message << std::endl;
    if (HasBarrier())
    {
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    std::exit(1);
}

void
FastPathRanks::Finalize()
{
    if (m_mpi && !m_finalized)
    {
        m_finalized = true;
        MPI_Finalize();
    }
}

} // namespace ns3
