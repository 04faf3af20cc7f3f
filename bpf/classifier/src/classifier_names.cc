// SPDX-License-Identifier: GPL-2.0-only
// Printable names of the classifier's verdicts and reasons (fpctl, logs, CounterSet).
#include "fastpath/classifier.h"

namespace fastpath {
namespace {

constexpr const char* kVerdictNames[] = {"data", "control", "punt", "pass", "drop"};
static_assert(sizeof(kVerdictNames) / sizeof(kVerdictNames[0]) == FP_VERDICT_MAX,
              "one name per enum fp_verdict");

constexpr const char* kReasonNames[] = {
    "data_ipv4",          "data_ipv6",         "ctrl_arp",          "ctrl_ethertype",
    "ctrl_ip_proto",      "ctrl_l4_port",      "ctrl_local_addr",   "ctrl_broadcast",
    "ctrl_multicast",     "ctrl_icmpv6_nd",    "punt_ipv4_options", "punt_ipv4_fragment",
    "punt_ttl_expired",   "drop_truncated",    "drop_bad_header",   "punt_ipv6_ext_depth",
    "punt_ipv6_fragment", "punt_unknown_l3",   "drop_vlan",         "pass_rule",
    "no_xsk_pass",        "no_xsk_drop",       "meta_failed",       "drop_other_host",
    "drop_own_source",    "drop_bad_checksum",
    // A wire between hosts (fp_config.wire):
    "pass_wire_link",     "pass_wire_probe",   "drop_wire_foreign_tag", "drop_wire_foreign_host",
    "drop_wire_untagged", "pass_wire_tx",      "drop_wire_headroom",
    // A VXLAN wire (fp_config.encap):
    "pass_wire_underlay", "drop_wire_unknown_vni", "drop_wire_bad_flags",
    // A VXLAN link's end:
    "drop_wire_no_next_hop",
};
static_assert(sizeof(kReasonNames) / sizeof(kReasonNames[0]) == FP_REASON_MAX,
              "one name per enum fp_reason");

}  // namespace

const char* verdictName(unsigned verdict) {
  return verdict < FP_VERDICT_MAX ? kVerdictNames[verdict] : "unknown";
}

const char* reasonName(unsigned reason) {
  return reason < FP_REASON_MAX ? kReasonNames[reason] : "unknown";
}

}  // namespace fastpath
