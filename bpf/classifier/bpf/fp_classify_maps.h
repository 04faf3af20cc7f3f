/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Maps of xdp_fp_classify. Keys and values are the types of fp_abi.h; userspace fills
 * the rule maps (classifier/src/classifier_maps.cc) and reads the per-CPU counters.
 */
#ifndef FP_CLASSIFY_MAPS_H
#define FP_CLASSIFY_MAPS_H

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "fp_abi.h"

/* AF_XDP sockets, indexed by rx queue. */
struct {
	__uint(type, BPF_MAP_TYPE_XSKMAP);
	__uint(max_entries, FP_MAX_QUEUES);
	__type(key, __u32);
	__type(value, __u32);
} xsks_map SEC(".maps");

/* EtherType (network order, as on the wire) -> enum fp_rule_action. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FP_MAX_ETHERTYPE_RULES);
	__type(key, __be16);
	__type(value, __u32);
} fp_ctrl_ethertypes SEC(".maps");

/* IP protocol / IPv6 upper-layer header -> enum fp_rule_action, 0 = no rule. An array:
 * it is looked up for every IP frame and 256 entries cost nothing. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 256);
	__type(key, __u32);
	__type(value, __u32);
} fp_ctrl_ip_protos SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FP_MAX_L4_PORT_RULES);
	__type(key, struct fp_l4_port_key);
	__type(value, __u32);
} fp_ctrl_l4_ports SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FP_MAX_LOCAL_ADDRS);
	__type(key, struct fp_addr_key);
	__type(value, __u32);
} fp_local_addrs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fp_config);
} fp_config SEC(".maps");

/* VLAN id -> struct fp_wire_tag: the links a wire carries (fp_config.wire). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FP_MAX_WIRE_TAGS);
	__type(key, __u16);
	__type(value, struct fp_wire_tag);
} fp_wire_tags SEC(".maps");

/* VNI -> struct fp_wire_vni: the links a VXLAN wire carries (fp_config.encap). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FP_MAX_WIRE_VNIS);
	__type(key, __u32);
	__type(value, struct fp_wire_vni);
} fp_wire_vnis SEC(".maps");

/* [0] -> struct fp_vxlan_hop: a VXLAN link end's next hop, replaced as the kernel's route
 * or neighbour changes (no preallocation: an update is one pointer swap under RCU). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32);
	__type(value, struct fp_vxlan_hop);
} fp_vxlan_hop SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, FP_VERDICT_MAX);
	__type(key, __u32);
	__type(value, struct fp_counter);
} fp_verdict_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, FP_REASON_MAX);
	__type(key, __u32);
	__type(value, struct fp_counter);
} fp_reason_stats SEC(".maps");

static __always_inline void fp_count(__u32 verdict, __u32 reason, __u64 bytes)
{
	struct fp_counter *c;

	c = bpf_map_lookup_elem(&fp_verdict_stats, &verdict);
	if (c) {
		c->packets++;
		c->bytes += bytes;
	}
	c = bpf_map_lookup_elem(&fp_reason_stats, &reason);
	if (c) {
		c->packets++;
		c->bytes += bytes;
	}
}

/* Counts an event that is not a classification (e.g. FP_REASON_META_FAILED). */
static __always_inline void fp_count_reason(__u32 reason, __u64 bytes)
{
	struct fp_counter *c = bpf_map_lookup_elem(&fp_reason_stats, &reason);

	if (c) {
		c->packets++;
		c->bytes += bytes;
	}
}

#endif /* FP_CLASSIFY_MAPS_H */
