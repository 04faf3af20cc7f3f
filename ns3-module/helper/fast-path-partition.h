// SPDX-License-Identifier: GPL-2.0-only
// FastPathPartition: which of the K processes running one emulated script runs each node's
// control plane (routing, applications), and which process this one is.
#pragma once

#include "fastpath/result.h"

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup fastpath
 * \brief Placement of a script's nodes on K processes (ranks), as ns-3's distributed
 * simulations place them.
 *
 * The same script runs as K processes (launched by Open MPI's mpirun, another launcher, or
 * by hand with `--FastPathPartition=i/K`). A node runs in the process whose rank is its
 * system id (`NodeContainer::Create(n, systemId)`, Node::GetSystemId()); when the script
 * gives every node system id 0, the nodes are split automatically: a balanced partition of
 * the plan's graph (nodes, and links between them) with the fewest links cut, by METIS.
 * Pure functions: no ns-3 state, no fastpathd.
 */
class FastPathPartition
{
  public:
    /// This process's place among the processes of one run.
    struct Rank
    {
        uint32_t rank = 0;  ///< 0..size-1
        uint32_t size = 1;  ///< the number of processes
        std::string source; ///< where they came from ("OMPI_COMM_WORLD_RANK", "--FastPathPartition"...)
    };

    /// Parses "i/K" (0 <= i < K, 1 <= K <= 1024).
    static fastpath::Result<Rank> Parse(const std::string& text);
    /// The rank from `option` (the value of --FastPathPartition) when set, else from the
    /// launcher's environment read through `env`: OMPI_COMM_WORLD_RANK/SIZE (Open MPI's
    /// mpirun), PMI_RANK/PMI_SIZE (MPICH's hydra, PMI launchers), SLURM_PROCID/SLURM_NTASKS
    /// (srun); else 0/1. An environment that is set but malformed is an error.
    static fastpath::Result<Rank> Detect(const std::string& option,
                                         const std::function<const char*(const char*)>& env);

    using Edge = std::pair<uint32_t, uint32_t>;
    /// A balanced partition of the graph of `vertices` vertices and `edges` (either order;
    /// duplicates and self loops allowed) into `parts` parts with few cut edges: each
    /// vertex's part. METIS (k-way or recursive bisection, whichever cuts fewer).
    static std::vector<uint32_t> Balance(uint32_t vertices,
                                         const std::vector<Edge>& edges,
                                         uint32_t parts);
    /// The rank of each node: `systemIds` (one per node) when any is not 0, each checked to be
    /// below `parts`; else Balance().
    static fastpath::Result<std::vector<uint32_t>> Assign(const std::vector<uint32_t>& systemIds,
                                                          const std::vector<Edge>& edges,
                                                          uint32_t parts);
    /// The edges whose ends are in different parts.
    static uint32_t CutEdges(const std::vector<uint32_t>& parts, const std::vector<Edge>& edges);
};

} // namespace ns3
