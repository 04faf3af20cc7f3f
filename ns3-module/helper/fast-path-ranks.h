// SPDX-License-Identifier: GPL-2.0-only
// FastPathRanks: the processes of one partitioned run — this one's rank, the launcher's
// barrier and abort (Open MPI).
#pragma once

#include "ns3/fast-path-partition.h"
#include "ns3/fast-path-realtime-simulator-impl.h"

#include <string>

namespace ns3
{

/**
 * \ingroup fastpath
 * \brief The processes of one run, as the launcher started them.
 *
 * The rank comes from the global value FastPathPartition (`--FastPathPartition=i/K`) or
 * from the launcher's environment (FastPathPartition::Detect). Launched by Open MPI's
 * mpirun (OMPI_COMM_WORLD_SIZE set), the processes initialize MPI for its barrier and its
 * abort, never for frames: Barrier() is MPI_Barrier, Abort() is MPI_Abort, and a process
 * that dies makes mpirun end the others. Launched otherwise, there is no barrier
 * (HasBarrier() false): the emulation then waits for the shared plan in fastpathd.
 */
class FastPathRanks
{
  public:
    /// The ranks of this process (detected on first use; a malformed rank aborts).
    static FastPathRanks& Get();
    /// The value of the global value FastPathPartition ("" if unset).
    static std::string GetOption();

    const FastPathPartition::Rank& GetRank() const;
    bool IsPartitioned() const;
    /// The launcher gives a barrier (Open MPI).
    bool HasBarrier() const;
    /// Waits until every process has called Barrier() as often (no-op without a barrier).
    void Barrier();
    /// Prints `message` and ends every process of the run (MPI_Abort; without MPI, this one
    /// with status 1).
    [[noreturn]] void Abort(const std::string& message);
    /// Ends MPI's part (idempotent; also at exit).
    void Finalize();

  private:
    FastPathRanks() = default;
    FastPathPartition::Rank m_rank;
    bool m_mpi = false;
    bool m_finalized = false;
};

} // namespace ns3
