/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The wire roles of xdp_fp_classify (fp_abi.h, enum fp_wire_role): a wire between hosts
 * and a cross-host link's wire-side end, over 802.1Q (classify_wire, wire_untag, wire_tag)
 * or VXLAN (classify_vxlan_wire, wire_decap, wire_vxlan). The program's classify() and
 * deliver() call them; their decisions are mirrored by the userspace twin.
 */
#ifndef FP_CLASSIFY_WIRE_H
#define FP_CLASSIFY_WIRE_H

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/udp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "fp_abi.h"
#include "fp_classify_maps.h"
#include "fp_classify_parse.h"

/*
 * A wire between hosts carries each cross-host link on its own 802.1Q VLAN (fp_abi.h,
 * enum fp_wire_role). A frame of a plan's VLAN sent by that link's peer end is untagged
 * and redirected to the link's wire-side veth end (deliver()); the daemons' probes go to
 * the kernel (fastpathd's probe socket); anything else is dropped here, counted, so a flood
 * of foreign frames costs no more than this check.
 */
static __always_inline void classify_wire(const struct fp_frame *f, struct fp_cls *c)
{
	struct ethhdr *eth = fp_at(f, 0, sizeof(*eth));
	struct fp_wire_tag *tag;
	__u8 *tci;
	__u16 vid;

	if (!eth) {
		fp_drop(c, FP_REASON_DROP_TRUNCATED);
		return;
	}
	if (eth->h_proto == bpf_htons(FP_ETH_P_WIRE_PROBE)) {
		fp_set(c, FP_VERDICT_PASS, FP_REASON_PASS_WIRE_PROBE);
		return;
	}
	if (eth->h_proto == bpf_htons(ETH_P_8021AD)) {
		fp_drop(c, FP_REASON_DROP_WIRE_FOREIGN_TAG);
		return;
	}
	if (eth->h_proto != bpf_htons(ETH_P_8021Q)) {
		fp_drop(c, FP_REASON_DROP_WIRE_UNTAGGED);
		return;
	}
	/* The tag and the inner EtherType. */
	tci = fp_at(f, sizeof(*eth), 4);
	if (!tci) {
		fp_drop(c, FP_REASON_DROP_TRUNCATED);
		return;
	}
	vid = ((tci[0] & 0x0f) << 8) | tci[1];
	tag = bpf_map_lookup_elem(&fp_wire_tags, &vid);
	if (!tag) {
		fp_drop(c, FP_REASON_DROP_WIRE_FOREIGN_TAG);
		return;
	}
	if (!mac_eq(eth->h_source, tag->peer_mac)) {
		fp_drop(c, FP_REASON_DROP_WIRE_FOREIGN_HOST);
		return;
	}
	c->redirect = tag->ifindex;
	fp_set(c, FP_VERDICT_PASS, FP_REASON_PASS_WIRE_LINK);
}

/* A wire's link frame: the tag taken out (the MACs moved over it), on to the link's end. */
static __always_inline int wire_untag(struct xdp_md *ctx, __u32 ifindex)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	__u8 macs[12];

	if (data + 18 > end) /* classify_wire checked it */
		return XDP_DROP;
	__builtin_memcpy(macs, data, 12);
	__builtin_memcpy(data + 4, macs, 12);
	if (bpf_xdp_adjust_head(ctx, 4))
		return XDP_DROP;
	return bpf_redirect(ifindex, 0);
}

/* A link's wire-side end: what the node sent, tagged with the link's VLAN, to the wire. */
static __always_inline int wire_tag(struct xdp_md *ctx, const struct fp_config *cfg, __u64 bytes)
{
	void *data, *end;
	__u8 macs[12];

	if (bytes < sizeof(struct ethhdr)) {
		fp_count(FP_VERDICT_DROP, FP_REASON_DROP_TRUNCATED, bytes);
		return XDP_DROP;
	}
	if (bpf_xdp_adjust_head(ctx, -4)) {
		fp_count(FP_VERDICT_DROP, FP_REASON_DROP_WIRE_HEADROOM, bytes);
		return XDP_DROP;
	}
	data = (void *)(long)ctx->data;
	end = (void *)(long)ctx->data_end;
	if (data + 18 > end) {
		fp_count(FP_VERDICT_DROP, FP_REASON_DROP_TRUNCATED, bytes);
		return XDP_DROP;
	}
	__builtin_memcpy(macs, data + 4, 12);
	__builtin_memcpy(data, macs, 12);
	*(__be16 *)(data + 12) = bpf_htons(ETH_P_8021Q);
	*(__be16 *)(data + 14) = bpf_htons(cfg->wire_vlan & 0x0fff);
	fp_count(FP_VERDICT_PASS, FP_REASON_PASS_WIRE_TX, bytes);
	return bpf_redirect(cfg->wire_ifindex, 0);
}

/*
 * A VXLAN wire (RFC 7348) carries each cross-host link as one VNI in UDP between the two
 * hosts' underlay addresses, routed: the wire is this host's interface on the underlay, so
 * everything that is not VXLAN to this host's underlay address and port (ARP, the probes,
 * routing, management) goes to the kernel as before. VXLAN to it: a VNI of the plan from
 * its link's peer's underlay address is stripped of its outer headers and redirected to the
 * link's wire-side end; anything else is dropped here and counted. Reserved bits are
 * ignored on receipt (RFC 7348 5); the I flag must be set.
 */
static __always_inline void classify_vxlan_wire(const struct fp_frame *f,
						const struct fp_config *cfg, struct fp_cls *c)
{
	struct ethhdr *eth = fp_at(f, 0, sizeof(*eth));
	struct fp_wire_vni *v;
	struct iphdr *iph;
	struct udphdr *udp;
	__u32 l4, ip_end, vni;
	__u8 *vx;

	if (!eth) {
		fp_drop(c, FP_REASON_DROP_TRUNCATED);
		return;
	}
	iph = fp_at(f, sizeof(*eth), sizeof(*iph));
	/* Not IPv4 to us, or not a first piece of UDP: the kernel judges it. */
	if (eth->h_proto != bpf_htons(ETH_P_IP) || !iph || iph->version != 4 || iph->ihl < 5 ||
	    iph->protocol != IPPROTO_UDP || iph->daddr != cfg->underlay_addr ||
	    (bpf_ntohs(iph->frag_off) & (FP_IP_MF | FP_IP_OFFSET))) {
		fp_set(c, FP_VERDICT_PASS, FP_REASON_PASS_WIRE_UNDERLAY);
		return;
	}
	l4 = sizeof(*eth) + iph->ihl * 4;
	udp = fp_at(f, l4, sizeof(*udp));
	if (!udp || udp->dest != cfg->vxlan_port) {
		fp_set(c, FP_VERDICT_PASS, FP_REASON_PASS_WIRE_UNDERLAY);
		return;
	}
	/* VXLAN to us: the header and an inner Ethernet header must be there. */
	ip_end = sizeof(*eth) + bpf_ntohs(iph->tot_len);
	vx = fp_at(f, l4 + sizeof(*udp), 8);
	if (!vx || ip_end > f->len || l4 + sizeof(*udp) + 8 + sizeof(struct ethhdr) > ip_end ||
	    !fp_at(f, l4 + sizeof(*udp) + 8, sizeof(struct ethhdr))) {
		fp_drop(c, FP_REASON_DROP_TRUNCATED);
		return;
	}
	if (!(vx[0] & FP_VXLAN_FLAG_I)) {
		fp_drop(c, FP_REASON_DROP_WIRE_BAD_FLAGS);
		return;
	}
	vni = ((__u32)vx[4] << 16) | ((__u32)vx[5] << 8) | vx[6];
	v = bpf_map_lookup_elem(&fp_wire_vnis, &vni);
	if (!v) {
		fp_drop(c, FP_REASON_DROP_WIRE_UNKNOWN_VNI);
		return;
	}
	if (iph->saddr != v->peer_addr) {
		fp_drop(c, FP_REASON_DROP_WIRE_FOREIGN_HOST);
		return;
	}
	c->redirect = v->ifindex;
	c->strip = l4 + sizeof(*udp) + 8;
	fp_set(c, FP_VERDICT_PASS, FP_REASON_PASS_WIRE_LINK);
}

/* A VXLAN wire's link frame: the outer headers taken off, on to the link's end. */
static __always_inline int wire_decap(struct xdp_md *ctx, __u32 strip, __u32 ifindex)
{
	if (bpf_xdp_adjust_head(ctx, (int)(strip & FP_OFF_MASK)))
		return XDP_DROP;
	return bpf_redirect(ifindex, 0);
}

/* A flow's hash for the UDP source port (RFC 7348 5: from the inner headers, so that the
 * underlay's ECMP keeps a flow on one path): the inner MACs and EtherType, and for IPv4
 * its addresses, protocol and, without options, the first 4 bytes of the transport header. */
static __always_inline __u32 vxlan_flow_hash(const struct fp_frame *f)
{
	__u32 h = 2166136261U;
	__u8 *p = fp_at(f, 0, 14);
	__u8 *ip;
	int i;

	if (!p)
		return h;
#pragma unroll
	for (i = 0; i < 14; i++)
		h = (h ^ p[i]) * 16777619U;
	if (p[12] != 0x08 || p[13] != 0x00)
		return h;
	ip = fp_at(f, 14, 24);
	if (!ip)
		return h;
	h = (h ^ ip[9]) * 16777619U;
#pragma unroll
	for (i = 12; i < 20; i++)
		h = (h ^ ip[i]) * 16777619U;
	if (ip[0] == 0x45 && !(((ip[6] << 8) | ip[7]) & (FP_IP_MF | FP_IP_OFFSET)))
#pragma unroll
		for (i = 20; i < 24; i++)
			h = (h ^ ip[i]) * 16777619U;
	return h;
}

/* A link's wire-side end on a VXLAN wire: the node's frame behind the link's outer headers
 * (fp_config.vxlan_hdr, its destination MAC the next hop's of fp_vxlan_hop when there is
 * an entry), lengths, checksum and source port filled in, to the wire. */
static __always_inline int wire_vxlan(struct xdp_md *ctx, const struct fp_frame *f,
				      const struct fp_config *cfg)
{
	const struct fp_vxlan_hop *hop;
	__u64 bytes = f->len;
	__u32 hash, csum, zero = 0;
	struct iphdr *iph;
	struct udphdr *udp;
	void *data, *end;

	if (bytes < sizeof(struct ethhdr)) {
		fp_count(FP_VERDICT_DROP, FP_REASON_DROP_TRUNCATED, bytes);
		return XDP_DROP;
	}
	hop = bpf_map_lookup_elem(&fp_vxlan_hop, &zero);
	if (hop && !hop->up) {
		fp_count(FP_VERDICT_DROP, FP_REASON_DROP_WIRE_NO_NEXT_HOP, bytes);
		return XDP_DROP;
	}
	hash = vxlan_flow_hash(f);
	if (bpf_xdp_adjust_head(ctx, -FP_VXLAN_OVERHEAD)) {
		fp_count(FP_VERDICT_DROP, FP_REASON_DROP_WIRE_HEADROOM, bytes);
		return XDP_DROP;
	}
	data = (void *)(long)ctx->data;
	end = (void *)(long)ctx->data_end;
	if (data + FP_VXLAN_OVERHEAD + sizeof(struct ethhdr) > end) {
		fp_count(FP_VERDICT_DROP, FP_REASON_DROP_TRUNCATED, bytes);
		return XDP_DROP;
	}
	__builtin_memcpy(data, cfg->vxlan_hdr, FP_VXLAN_OVERHEAD);
	if (hop)
		__builtin_memcpy(data, hop->mac, 6);
	iph = data + sizeof(struct ethhdr);
	udp = (void *)(iph + 1);
	iph->tot_len = bpf_htons((__u16)(bytes + FP_VXLAN_OVERHEAD - sizeof(struct ethhdr)));
	/* The template's checksum covers a total length of 0: add the length (RFC 1624). */
	csum = (__u16)~iph->check;
	csum += iph->tot_len;
	csum = (csum & 0xffff) + (csum >> 16);
	csum = (csum & 0xffff) + (csum >> 16);
	iph->check = (__u16)~csum;
	udp->source = bpf_htons((__u16)(49152 | (hash & 0x3fff)));
	udp->len = bpf_htons((__u16)(bytes + 16));
	udp->check = 0; /* allowed over IPv4 (RFC 7348 5) */
	fp_count(FP_VERDICT_PASS, FP_REASON_PASS_WIRE_TX, bytes);
	return bpf_redirect(cfg->wire_ifindex, 0);
}

#endif /* FP_CLASSIFY_WIRE_H */
