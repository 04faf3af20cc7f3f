// SPDX-License-Identifier: GPL-2.0-only
// FastPathRanks: the processes of one partitioned run — this one's rank, the launcher's
// barrier and abort (Open MPI), and the simulator that starts every process's clock at once.
#pragma once

#include "ns3/fast-path-partition.h"
#include "ns3/realtime-simulator-impl.h"

#include <atomic>
#include <functional>
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

/**
 * \ingroup fastpath
 * \brief The realtime simulator of a partitioned emulation: before the clock starts, it runs
 * the work set with SetBeforeRun() (placement, attaching this process's nodes, the start
 * barrier), so that every process's clock starts at the same moment.
 *
 * Nodes another process runs are inert here: once SetLocalNodes() says which nodes are this
 * process's, an event whose context is another node never runs (Node::Initialize, hence
 * the node's routing timers and applications, included). Events scheduled before that
 * (ns-3 schedules each node's initialization when the node is created) are checked when
 * they are due; later ones are dropped when scheduled. Each is counted (GetInertEvents()).
 * Events without a node (Simulator::NO_CONTEXT: the script's own global events) and of
 * this process's nodes run as usual.
 *
 * FastPathEmulation selects it (SimulatorImplementationType) instead of
 * ns3::RealtimeSimulatorImpl when the run has more than one process.
 */
class FastPathRealtimeSimulatorImpl : public RealtimeSimulatorImpl
{
  public:
    static TypeId GetTypeId();
    void Run() override;
    /// Called once, by the next Run() before the clock starts.
    static void SetBeforeRun(std::function<void()> work);

    /// Which nodes (by id, the events' context) this process runs. Set before the clock
    /// starts (the work of SetBeforeRun() does); empty = every node.
    void SetLocalNodes(std::function<bool(uint32_t)> isLocal);
    /// Events of other processes' nodes that were dropped instead of run.
    uint64_t GetInertEvents() const;
    /// Does the context belong to this process (always, without SetLocalNodes())?
    bool IsLocalContext(uint32_t context) const;
    void ScheduleWithContext(uint32_t context, const Time& delay, EventImpl* event) override;

  private:
    /// An event scheduled before SetLocalNodes(): runs the event if its node is local.
    class DueCheck;
    std::function<bool(uint32_t)> m_isLocal;
    std::atomic<uint64_t> m_inertEvents{0};
};

} // namespace ns3
