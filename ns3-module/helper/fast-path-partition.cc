// SPDX-License-Identifier: GPL-2.0-only
#include "fast-path-partition.h"

#include <metis.h>

#include <algorithm>
#include <cerrno>
#include <set>

namespace ns3
{

namespace
{

bool
ParseNumber(const std::string& s, uint32_t& out)
{
    if (s.empty() || s.size() > 9 ||
        !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }))
    {
        return false;
    }
    out = uint32_t(std::stoul(s));
    return true;
}

fastpath::Result<FastPathPartition::Rank>
Checked(uint32_t rank, uint32_t size, const std::string& source)
{
    if (size < 1 || size > 1024 || rank >= size)
    {
        return fastpath::makeError(-EINVAL,
                                   source + ": rank " + std::to_string(rank) + " of " +
                                       std::to_string(size) +
                                       " processes: need 0 <= rank < size <= 1024");
    }
    return FastPathPartition::Rank{rank, size, source};
}

} // namespace

fastpath::Result<FastPathPartition::Rank>
FastPathPartition::Parse(const std::string& text)
{
    const auto slash = text.find('/');
    uint32_t i = 0;
    uint32_t k = 0;
    if (slash == std::string::npos || !ParseNumber(text.substr(0, slash), i) ||
        !ParseNumber(text.substr(slash + 1), k))
    {
        return fastpath::makeError(-EINVAL,
                                   "--FastPathPartition=" + text +
                                       ": expected i/K, this process's rank i of K processes "
                                       "(e.g. 0/2 and 1/2)");
    }
    return Checked(i, k, "--FastPathPartition");
}

fastpath::Result<FastPathPartition::Rank>
FastPathPartition::Detect(const std::string& option,
                          const std::function<const char*(const char*)>& env)
{
    if (!option.empty())
    {
        return Parse(option);
    }
    // The launchers' variables, in order: Open MPI's mpirun, PMI (MPICH's hydra and others),
    // slurm's srun.
    static const char* const kPairs[][2] = {{"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
                                            {"PMI_RANK", "PMI_SIZE"},
                                            {"SLURM_PROCID", "SLURM_NTASKS"}};
    for (const auto& p : kPairs)
    {
        const char* r = env(p[0]);
        const char* s = env(p[1]);
        if (!r && !s)
        {
            continue;
        }
        uint32_t rank = 0;
        uint32_t size = 0;
        if (!r || !s || !ParseNumber(r, rank) || !ParseNumber(s, size))
        {
            return fastpath::makeError(-EINVAL,
                                       std::string(p[0]) + "=" + (r ? r : "(unset)") + ", " +
                                           p[1] + "=" + (s ? s : "(unset)") +
                                           ": the launcher's rank and size are not numbers "
                                           "(give --FastPathPartition=i/K instead)");
        }
        return Checked(rank, size, p[0]);
    }
    return Rank{0, 1, "single process"};
}

std::vector<uint32_t>
FastPathPartition::Balance(uint32_t vertices, const std::vector<Edge>& edges, uint32_t parts)
{
    std::vector<uint32_t> out(vertices, 0);
    if (parts <= 1 || vertices == 0)
    {
        return out;
    }
    if (parts >= vertices)
    {
        for (uint32_t v = 0; v < vertices; ++v)
        {
            out[v] = v;
        }
        return out;
    }
    // METIS takes the graph in CSR form, each undirected edge once per direction, without
    // self loops or repeats (parallel links weigh as one: they are cut together).
    std::vector<std::set<uint32_t>> adj(vertices);
    for (const auto& e : edges)
    {
        if (e.first != e.second && e.first < vertices && e.second < vertices)
        {
            adj[e.first].insert(e.second);
            adj[e.second].insert(e.first);
        }
    }
    std::vector<idx_t> xadj{0};
    std::vector<idx_t> adjncy;
    for (const auto& a : adj)
    {
        adjncy.insert(adjncy.end(), a.begin(), a.end());
        xadj.push_back(idx_t(adjncy.size()));
    }
    idx_t n = idx_t(vertices);
    idx_t ncon = 1;
    idx_t nparts = idx_t(parts);
    idx_t options[METIS_NOPTIONS];
    METIS_SetDefaultOptions(options);
    options[METIS_OPTION_SEED] = 1; // every process computes the same partition
    options[METIS_OPTION_NUMBERING] = 0;
    // Both of METIS's methods, the fewer cut links kept: k-way is made for many parts,
    // recursive bisection often cuts less for a few (a grid in 3: 16 links against 31).
    std::vector<idx_t> part;
    idx_t best = -1;
    for (auto method : {METIS_PartGraphKway, METIS_PartGraphRecursive})
    {
        std::vector<idx_t> p(vertices, 0);
        idx_t cut = 0;
        if (method(&n, &ncon, xadj.data(), adjncy.data(), nullptr, nullptr, nullptr, &nparts,
                   nullptr, nullptr, options, &cut, p.data()) == METIS_OK &&
            (best < 0 || cut < best))
        {
            best = cut;
            part = std::move(p);
        }
    }
    if (best < 0)
    {
        // Refused (it should not be): contiguous blocks of node numbers.
        for (uint32_t v = 0; v < vertices; ++v)
        {
            out[v] = uint32_t(uint64_t(v) * parts / vertices);
        }
        return out;
    }
    for (uint32_t v = 0; v < vertices; ++v)
    {
        out[v] = uint32_t(part[v]);
    }
    return out;
}

fastpath::Result<std::vector<uint32_t>>
FastPathPartition::Assign(const std::vector<uint32_t>& systemIds,
                          const std::vector<Edge>& edges,
                          uint32_t parts)
{
    const bool given =
        std::any_of(systemIds.begin(), systemIds.end(), [](uint32_t s) { return s != 0; });
    if (!given)
    {
        return Balance(uint32_t(systemIds.size()), edges, parts);
    }
    for (uint32_t n = 0; n < systemIds.size(); ++n)
    {
        if (systemIds[n] >= parts)
        {
            return fastpath::makeError(
                -EINVAL,
                "node " + std::to_string(n) + " has system id " + std::to_string(systemIds[n]) +
                    " but the run has " + std::to_string(parts) +
                    " processes: give it a system id below " + std::to_string(parts) +
                    " or start more processes (mpirun -np " + std::to_string(systemIds[n] + 1) +
                    ")");
        }
    }
    return systemIds;
}

uint32_t
FastPathPartition::CutEdges(const std::vector<uint32_t>& parts, const std::vector<Edge>& edges)
{
    uint32_t cut = 0;
    for (const auto& e : edges)
    {
        cut += e.first < parts.size() && e.second < parts.size() && parts[e.first] != parts[e.second];
    }
    return cut;
}

} // namespace ns3
