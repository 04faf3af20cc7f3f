// SPDX-License-Identifier: GPL-2.0-only
// One wire of a host as a word, the way `fpctl multihost declare --wire` and the ns-3 hosts
// file write it: PEER=INTERFACE for an 802.1Q wire (a shared segment), and for a routed
// one PEER=INTERFACE,encap=vxlan,underlay=A,peer_underlay=B[,port=P], the keys of the
// topology file's `wires:`. One parser, so that both accept the same words.
#pragma once

#include <optional>
#include <string>

#include "fastpath/control_types.h"
#include "fastpath/result.h"

namespace fastpath {

struct WireWord {
  std::string peer;    ///< the peer host (a valid name)
  std::string ifname;  ///< this host's interface to it (a valid interface name)
  std::optional<WireVxlan> vxlan;  ///< a VXLAN wire's underlay; none: 802.1Q
};

/// Parses `word`; errors say what is wrong and how to write it (the caller says where the
/// word was): a bad peer or interface name with its rule (names.h), anything else as
/// "'WORD' is no wire (WHY): write ...".
Result<WireWord> parseWireWord(const std::string& word);
/// `w` written back as parseWireWord reads it.
std::string formatWireWord(const WireWord& w);

}  // namespace fastpath
