/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Bounded header parsing for xdp_fp_classify. Offsets are kept as scalars and compared
 * against the frame and IP lengths; every packet read is additionally guarded by a pointer
 * check against data_end so the verifier sees it. Offsets are masked with FP_OFF_MASK
 * (larger than any header chain we walk) to give the verifier an upper bound.
 */
#ifndef FP_CLASSIFY_PARSE_H
#define FP_CLASSIFY_PARSE_H

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "fp_abi.h"

#define FP_OFF_MASK 0x3fff
#define FP_AF_INET 2
#define FP_AF_INET6 10

#define FP_IP_MF 0x2000
#define FP_IP_OFFSET 0x1fff
#define FP_IP6_FRAG_OFFSET 0xfff8

/* Result of classifying one frame; becomes struct fp_xdp_meta for the XSK. */
struct fp_cls {
	__u8 verdict;
	__u8 reason;
	__u8 l3;
	__u8 l4_proto;
	__u16 l3_off;
	__u16 l4_off;
	__u32 redirect; /* a wire's link frame: the ifindex it goes to, untagged */
	__u32 strip;    /* a VXLAN wire's link frame: the outer headers' length */
};

/* The parts of the frame every rule looks at. */
struct fp_frame {
	void *data;
	void *data_end;
	__u32 len;     /* data_end - data */
	__u8 l2_bcast; /* destination MAC ff:ff:ff:ff:ff:ff */
	__u8 l2_mcast; /* group bit set, not broadcast */
};

static __always_inline int mac_eq(const __u8 *a, const __u8 *b)
{
	return ((a[0] ^ b[0]) | (a[1] ^ b[1]) | (a[2] ^ b[2]) | (a[3] ^ b[3]) | (a[4] ^ b[4]) |
		(a[5] ^ b[5])) == 0;
}

static __always_inline int fp_set(struct fp_cls *c, __u8 verdict, __u8 reason)
{
	c->verdict = verdict;
	c->reason = reason;
	return 1;
}

static __always_inline int fp_punt(struct fp_cls *c, __u8 reason)
{
	return fp_set(c, FP_VERDICT_PUNT, reason);
}

/* Malformed: nothing downstream (fastpathd, ns-3) could use it; dropped in XDP so that it
 * never takes a slot in the AF_XDP ring. */
static __always_inline int fp_drop(struct fp_cls *c, __u8 reason)
{
	return fp_set(c, FP_VERDICT_DROP, reason);
}

/* Applies a rule's action; returns 0 (rule ignored) for anything but CONTROL or PASS. */
static __always_inline int fp_apply(struct fp_cls *c, __u32 action, __u8 reason)
{
	if (action == FP_ACTION_CONTROL)
		return fp_set(c, FP_VERDICT_CONTROL, reason);
	if (action == FP_ACTION_PASS)
		return fp_set(c, FP_VERDICT_PASS, FP_REASON_PASS_RULE);
	return 0;
}

static __always_inline int fp_apply_map(struct fp_cls *c, void *map, const void *key,
					__u8 reason)
{
	__u32 *action = bpf_map_lookup_elem(map, key);

	return action ? fp_apply(c, *action, reason) : 0;
}

/* Pointer to `size` bytes at offset `off`, or NULL if the frame is shorter. */
static __always_inline void *fp_at(const struct fp_frame *f, __u32 off, __u32 size)
{
	void *p = f->data + (off & FP_OFF_MASK);

	if (p + size > f->data_end)
		return NULL;
	return p;
}

static __always_inline int fp_ipv6_is_ext(__u8 nh)
{
	switch (nh) {
	case IPPROTO_HOPOPTS:
	case IPPROTO_ROUTING:
	case IPPROTO_FRAGMENT:
	case IPPROTO_AH:
	case IPPROTO_DSTOPTS:
	case 135: /* mobility */
	case 139: /* HIP */
	case 140: /* shim6 */
		return 1;
	}
	return 0;
}

/*
 * Checks the transport header at l4_off (bounded by ip_end) and applies port rules.
 * Returns 1 when it decided (truncated, bad header, port rule), 0 otherwise.
 */
static __always_inline int fp_l4(const struct fp_frame *f, struct fp_cls *c, __u8 proto,
				 __u32 l4_off, __u32 ip_end, void *port_rules)
{
	struct fp_l4_port_key key = {};
	__u32 need;
	__u8 *p;

	switch (proto) {
	case IPPROTO_UDP:
		need = 8;
		break;
	case IPPROTO_TCP:
		need = 20;
		break;
	case IPPROTO_ICMP:
		need = 8;
		break;
	case IPPROTO_ICMPV6:
		need = 4;
		break;
	default:
		return 0;
	}
	if (l4_off + need > ip_end)
		return fp_drop(c, FP_REASON_DROP_TRUNCATED);
	if (proto != IPPROTO_UDP && proto != IPPROTO_TCP)
		return 0;
	p = fp_at(f, l4_off, 20);
	if (proto == IPPROTO_TCP) {
		__u32 doff;

		if (!p)
			return fp_drop(c, FP_REASON_DROP_TRUNCATED);
		doff = (p[12] >> 4) * 4;
		if (doff < 20)
			return fp_drop(c, FP_REASON_DROP_BAD_HEADER);
		if (l4_off + doff > ip_end)
			return fp_drop(c, FP_REASON_DROP_TRUNCATED);
	} else {
		p = fp_at(f, l4_off, 8);
		if (!p)
			return fp_drop(c, FP_REASON_DROP_TRUNCATED);
	}
	key.l4_proto = proto;
	key.port = *(__be16 *)(p + 2); /* destination port, same place in UDP and TCP */
	return fp_apply_map(c, port_rules, &key, FP_REASON_CTRL_L4_PORT);
}

#endif /* FP_CLASSIFY_PARSE_H */
