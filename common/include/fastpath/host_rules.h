// SPDX-License-Identifier: GPL-2.0-only
// The rule for a host's addresses, called by the control socket (before anything is made)
// and by the daemon (whoever calls it): one place, one message.
#pragma once

#include <cstddef>
#include <vector>

#include "fastpath/control_backend.h"
#include "fastpath/result.h"

namespace fastpath {

/// `spec`'s addresses against its node: each address once in `spec`, on no other host of
/// the same node (`hosts`: every host of the daemon; two hosts with one address behind one
/// node would both answer ARP/ND for it and split its traffic), and none of the node's own
/// addresses (`node_rules`' kLocalAddress rules: frames to them go to the node's control
/// plane, never to a host). Address families and unspecified addresses are the caller's.
/// On error, `*bad_index` (when given) is the index in spec.addresses of the refused one.
Status checkHostAddresses(const HostSpec& spec, const std::vector<HostInfo>& hosts,
                          const std::vector<ControlRule>& node_rules,
                          std::size_t* bad_index = nullptr);

}  // namespace fastpath
