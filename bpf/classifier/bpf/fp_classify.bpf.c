// SPDX-License-Identifier: GPL-2.0-only
/*
 * xdp_fp_classify: sorts every frame at the NIC into DATA, CONTROL, PUNT or PASS
 * (bpf/fp_abi.h). DATA, CONTROL and PUNT go to the AF_XDP socket of the rx queue with a
 * struct fp_xdp_meta in front (bpf_xdp_adjust_meta), so fastpathd never parses twice.
 *
 * Order of decisions (first match wins):
 *   A wire between hosts (fp_config.wire, enum fp_wire_role): classify_wire() (802.1Q) or
 *   classify_vxlan_wire() alone on the wire, wire_tag() or wire_vxlan() alone on a link's
 *   wire-side end.
 *   L2: truncated Ethernet -> DROP; source MAC = the port's -> DROP; unicast to
 *       another MAC than the port's -> DROP (both with fp_config.port_mac_set);
 *       802.1Q/802.1ad tagged -> DROP (the port serves no VLAN); ARP -> CONTROL;
 *       EtherType rule; IPv4/IPv6 below; other EtherTypes: broadcast/multicast
 *       destination MAC per fp_config, else PUNT unknown_l3.
 *   IP: bad/truncated header, bad IPv4 header checksum -> DROP (junk is dropped here,
 *       before it takes a slot in the AF_XDP ring that valid frames need);
 *       (IPv6: extension headers walked, ND -> CONTROL);
 *       destination = local address; broadcast; multicast (IP or MAC); IP protocol rule;
 *       fragment -> PUNT; transport header truncated -> PUNT; UDP/TCP port rule;
 *       IPv4 options / IPv6 extension depth -> PUNT; TTL/hop limit <= 1 -> PUNT; DATA.
 * Control rules come before the TTL check because routing protocols talk with TTL 1
 * (RIP, OLSR): they are for this node, not expired transit traffic.
 *
 * When no socket is bound for the rx queue, fp_config.no_xsk_policy decides (PASS to the
 * kernel or DROP) and the frame is counted under FP_VERDICT_PASS/DROP with
 * FP_REASON_NO_XSK_*: every frame adds exactly one verdict and one reason counter
 * (FP_REASON_META_FAILED is an extra event counter, see deliver()).
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>
#include <xdp/xdp_helpers.h>

#include "fp_abi.h"
#include "fp_classify_maps.h"
#include "fp_classify_parse.h"
#include "fp_classify_wire.h"

/* libxdp dispatcher: our priority among coexisting programs, and XDP_PASS continues to
 * the next program (a frame we hand to the kernel may interest someone else). */
struct {
	__uint(priority, 10);
	__uint(XDP_PASS, 1);
} XDP_RUN_CONFIG(xdp_fp_classify);

/* RFC 1071 sum of a 20-byte IPv4 header: 0xffff when its checksum is right. */
static __always_inline int ipv4_csum_ok(const struct iphdr *iph)
{
	const __u16 *w = (const __u16 *)iph;
	__u32 s = 0;
	int i;

#pragma unroll
	for (i = 0; i < 10; i++)
		s += w[i];
	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	return s == 0xffff;
}

static __always_inline int addr_rule(struct fp_cls *c, __u32 family, const void *addr,
				     __u32 len)
{
	struct fp_addr_key key = { .family = family };

	__builtin_memcpy(key.addr, addr, 16);
	if (len == 4)
		__builtin_memset(key.addr + 4, 0, 12);
	return fp_apply_map(c, &fp_local_addrs, &key, FP_REASON_CTRL_LOCAL_ADDR);
}

static __always_inline int cast_rules(struct fp_cls *c, const struct fp_config *cfg,
				      int bcast, int mcast)
{
	if (bcast && fp_apply(c, cfg->broadcast_action, FP_REASON_CTRL_BROADCAST))
		return 1;
	if (mcast && fp_apply(c, cfg->multicast_action, FP_REASON_CTRL_MULTICAST))
		return 1;
	return 0;
}

static __always_inline int proto_rule(struct fp_cls *c, __u32 proto)
{
	return fp_apply_map(c, &fp_ctrl_ip_protos, &proto, FP_REASON_CTRL_IP_PROTO);
}

static __always_inline int classify_ipv4(const struct fp_frame *f, const struct fp_config *cfg,
					 struct fp_cls *c, __u32 off)
{
	struct iphdr *iph = fp_at(f, off, sizeof(*iph));
	__u32 hlen, tot, ip_end, l4_off;
	__u16 frag;
	__be32 dst;

	c->l3 = FP_L3_IPV4;
	if (!iph)
		return fp_drop(c, FP_REASON_DROP_TRUNCATED);
	if (iph->version != 4 || iph->ihl < 5)
		return fp_drop(c, FP_REASON_DROP_BAD_HEADER);
	hlen = iph->ihl * 4;
	tot = bpf_ntohs(iph->tot_len);
	if (tot < hlen)
		return fp_drop(c, FP_REASON_DROP_BAD_HEADER);
	ip_end = off + tot; /* Ethernet padding may follow */
	if (ip_end > f->len)
		return fp_drop(c, FP_REASON_DROP_TRUNCATED);
	/* With options the slow path checks it (the frame is punted below). */
	if (hlen == sizeof(*iph) && !ipv4_csum_ok(iph))
		return fp_drop(c, FP_REASON_DROP_BAD_CHECKSUM);
	c->l4_proto = iph->protocol;

	dst = iph->daddr;
	if (addr_rule(c, FP_AF_INET, &iph->daddr, 4))
		return 1;
	if (cast_rules(c, cfg, f->l2_bcast || dst == 0xffffffff,
		       f->l2_mcast || (dst & bpf_htonl(0xf0000000)) == bpf_htonl(0xe0000000)))
		return 1;
	if (proto_rule(c, iph->protocol))
		return 1;

	l4_off = off + hlen;
	frag = bpf_ntohs(iph->frag_off);
	if (frag & (FP_IP_MF | FP_IP_OFFSET)) {
		/* Only the first fragment carries the transport header. */
		if (!(frag & FP_IP_OFFSET))
			c->l4_off = l4_off;
		return fp_punt(c, FP_REASON_PUNT_IPV4_FRAGMENT);
	}
	c->l4_off = l4_off;
	if (fp_l4(f, c, iph->protocol, l4_off, ip_end, &fp_ctrl_l4_ports))
		return 1;
	if (hlen > sizeof(*iph))
		return fp_punt(c, FP_REASON_PUNT_IPV4_OPTIONS);
	if (iph->ttl <= 1)
		return fp_punt(c, FP_REASON_PUNT_TTL_EXPIRED);
	return fp_set(c, FP_VERDICT_DATA, FP_REASON_DATA_IPV4);
}

static __always_inline int classify_ipv6(const struct fp_frame *f, const struct fp_config *cfg,
					 struct fp_cls *c, __u32 off)
{
	struct ipv6hdr *ip6 = fp_at(f, off, sizeof(*ip6));
	int frag = 0, frag_later = 0, too_deep = 0;
	__u32 ip_end, pos;
	__u8 nh;
	int i;

	c->l3 = FP_L3_IPV6;
	if (!ip6)
		return fp_drop(c, FP_REASON_DROP_TRUNCATED);
	if (ip6->version != 6)
		return fp_drop(c, FP_REASON_DROP_BAD_HEADER);
	ip_end = off + sizeof(*ip6) + bpf_ntohs(ip6->payload_len);
	if (ip_end > f->len)
		return fp_drop(c, FP_REASON_DROP_TRUNCATED);

	nh = ip6->nexthdr;
	pos = off + sizeof(*ip6);
#pragma unroll
	for (i = 0; i < FP_IPV6_MAX_EXT_HDRS; i++) {
		__u8 *h;

		if (!fp_ipv6_is_ext(nh))
			break;
		if (pos + 8 > ip_end)
			return fp_drop(c, FP_REASON_DROP_TRUNCATED);
		h = fp_at(f, pos, 8);
		if (!h)
			return fp_drop(c, FP_REASON_DROP_TRUNCATED);
		if (nh == IPPROTO_FRAGMENT) {
			frag = 1;
			nh = h[0];
			pos += 8;
			if (bpf_ntohs(*(__be16 *)(h + 2)) & FP_IP6_FRAG_OFFSET) {
				frag_later = 1; /* no transport header in this fragment */
				break;
			}
			continue;
		}
		/* AH counts its length in 4-octet units (RFC 4302), the others in 8. */
		if (nh == IPPROTO_AH)
			pos += (h[1] + 2) * 4;
		else
			pos += (h[1] + 1) * 8;
		nh = h[0];
	}
	if (!frag_later && fp_ipv6_is_ext(nh))
		too_deep = 1;
	if (pos > ip_end)
		return fp_drop(c, FP_REASON_DROP_TRUNCATED);
	if (!too_deep && !frag_later) {
		c->l4_proto = nh;
		c->l4_off = pos;
	}

	/* Neighbour discovery (RFC 4861: RS, RA, NS, NA, redirect) is always control,
	 * whatever the multicast policy says. */
	if (c->l4_off && nh == IPPROTO_ICMPV6) {
		__u8 *icmp6;

		if (pos + 4 > ip_end)
			return fp_drop(c, FP_REASON_DROP_TRUNCATED);
		icmp6 = fp_at(f, pos, 4);
		if (!icmp6)
			return fp_drop(c, FP_REASON_DROP_TRUNCATED);
		if (icmp6[0] >= 133 && icmp6[0] <= 137)
			return fp_set(c, FP_VERDICT_CONTROL, FP_REASON_CTRL_ICMPV6_ND);
	}

	if (addr_rule(c, FP_AF_INET6, &ip6->daddr, 16))
		return 1;
	if (cast_rules(c, cfg, f->l2_bcast, f->l2_mcast || ip6->daddr.in6_u.u6_addr8[0] == 0xff))
		return 1;
	if (c->l4_off && proto_rule(c, nh))
		return 1;
	if (frag)
		return fp_punt(c, FP_REASON_PUNT_IPV6_FRAGMENT);
	if (too_deep)
		return fp_punt(c, FP_REASON_PUNT_IPV6_EXT_DEPTH);
	if (fp_l4(f, c, nh, pos, ip_end, &fp_ctrl_l4_ports))
		return 1;
	if (ip6->hop_limit <= 1)
		return fp_punt(c, FP_REASON_PUNT_TTL_EXPIRED);
	return fp_set(c, FP_VERDICT_DATA, FP_REASON_DATA_IPV6);
}

static __always_inline void classify(const struct fp_frame *f, const struct fp_config *cfg,
				     struct fp_cls *c)
{
	struct ethhdr *eth = fp_at(f, 0, sizeof(*eth));
	__be16 proto;
	__u32 off;

	if (cfg->wire == FP_WIRE_PORT) {
		if (cfg->encap == FP_ENCAP_VXLAN)
			classify_vxlan_wire(f, cfg, c);
		else
			classify_wire(f, c);
		return;
	}
	if (!eth) {
		fp_drop(c, FP_REASON_DROP_TRUNCATED);
		return;
	}
	if (cfg->port_mac_set) {
		const __u8 *m = cfg->port_mac;

		if (mac_eq(eth->h_source, m)) {
			fp_drop(c, FP_REASON_DROP_OWN_SOURCE);
			return;
		}
		/* Only frames addressed to this port are routed; broadcast and multicast go
		 * to the rules below. */
		if (!f->l2_bcast && !f->l2_mcast && !mac_eq(eth->h_dest, m)) {
			fp_drop(c, FP_REASON_DROP_OTHER_HOST);
			return;
		}
	}
	proto = eth->h_proto;
	off = sizeof(*eth);
	/* The port serves no VLAN: a tagged frame would be routed out untagged, hopping
	 * VLANs. A per-port VLAN (tagged frames of that VLAN as data, the egress tagging its
	 * own) would be decided here. */
	if (proto == bpf_htons(ETH_P_8021Q) || proto == bpf_htons(ETH_P_8021AD)) {
		fp_drop(c, FP_REASON_DROP_VLAN);
		return;
	}
	c->l3_off = off;

	if (proto == bpf_htons(ETH_P_ARP)) {
		c->l3 = FP_L3_ARP;
		if (!fp_at(f, off, 8)) /* fixed part of the ARP header */
			fp_drop(c, FP_REASON_DROP_TRUNCATED);
		else
			fp_set(c, FP_VERDICT_CONTROL, FP_REASON_CTRL_ARP);
		return;
	}
	if (fp_apply_map(c, &fp_ctrl_ethertypes, &proto, FP_REASON_CTRL_ETHERTYPE)) {
		if (proto == bpf_htons(ETH_P_IP))
			c->l3 = FP_L3_IPV4;
		else if (proto == bpf_htons(ETH_P_IPV6))
			c->l3 = FP_L3_IPV6;
		return;
	}
	if (proto == bpf_htons(ETH_P_IP)) {
		classify_ipv4(f, cfg, c, off);
		return;
	}
	if (proto == bpf_htons(ETH_P_IPV6)) {
		classify_ipv6(f, cfg, c, off);
		return;
	}
	if (cast_rules(c, cfg, f->l2_bcast, f->l2_mcast))
		return;
	fp_punt(c, FP_REASON_PUNT_UNKNOWN_L3);
}

/*
 * Sends the frame where the verdict says. If bpf_xdp_adjust_meta() fails (a driver
 * without metadata support, or no headroom), the frame is still delivered to the XSK,
 * without metadata: FP_REASON_META_FAILED is counted and fastpathd, seeing no
 * FP_META_MAGIC, parses the frame itself.
 */
static __always_inline int deliver(struct xdp_md *ctx, const struct fp_config *cfg,
				   const struct fp_cls *c, __u64 bytes)
{
	__u32 policy = cfg ? cfg->no_xsk_policy : FP_NO_XSK_PASS;
	__u32 queue = ctx->rx_queue_index;
	struct fp_xdp_meta *meta;
	void *data;

	if (c->verdict == FP_VERDICT_PASS) {
		fp_count(FP_VERDICT_PASS, c->reason, bytes);
		if (!c->redirect)
			return XDP_PASS;
		return c->strip ? wire_decap(ctx, c->strip, c->redirect) :
				  wire_untag(ctx, c->redirect);
	}
	if (c->verdict == FP_VERDICT_DROP) {
		fp_count(FP_VERDICT_DROP, c->reason, bytes);
		return XDP_DROP;
	}
	/* XSKMAP lookups from XDP (kernel >= 5.3) tell us whether a socket is bound, so the
	 * fallback is decided and counted here instead of vanishing in bpf_redirect_map. */
	if (!bpf_map_lookup_elem(&xsks_map, &queue)) {
		if (policy == FP_NO_XSK_DROP) {
			fp_count(FP_VERDICT_DROP, FP_REASON_NO_XSK_DROP, bytes);
			return XDP_DROP;
		}
		fp_count(FP_VERDICT_PASS, FP_REASON_NO_XSK_PASS, bytes);
		return XDP_PASS;
	}
	if (bpf_xdp_adjust_meta(ctx, -(int)sizeof(*meta)) == 0) {
		meta = (void *)(long)ctx->data_meta;
		data = (void *)(long)ctx->data;
		if ((void *)(meta + 1) <= data) {
			meta->magic = FP_META_MAGIC;
			meta->verdict = c->verdict;
			meta->reason = c->reason;
			meta->l3_proto = c->l3;
			meta->l4_proto = c->l4_proto;
			meta->l3_offset = c->l3_off;
			meta->l4_offset = c->l4_off;
			meta->pad = 0;
			meta->rx_ns = bpf_ktime_get_ns();
		} else {
			fp_count_reason(FP_REASON_META_FAILED, bytes);
		}
	} else {
		fp_count_reason(FP_REASON_META_FAILED, bytes);
	}
	fp_count(c->verdict, c->reason, bytes);
	/* The socket may go away between the lookup and here: the policy is the fallback. */
	return bpf_redirect_map(&xsks_map, queue, policy == FP_NO_XSK_DROP ? XDP_DROP : XDP_PASS);
}

SEC("xdp")
int xdp_fp_classify(struct xdp_md *ctx)
{
	struct fp_frame f = {
		.data = (void *)(long)ctx->data,
		.data_end = (void *)(long)ctx->data_end,
	};
	struct fp_cls c = {};
	const struct fp_config *cfg;
	__u32 zero = 0;
	struct ethhdr *eth;

	f.len = f.data_end - f.data;
	eth = fp_at(&f, 0, sizeof(*eth));
	if (eth) {
		const __u8 *d = eth->h_dest;

		f.l2_bcast = (d[0] & d[1] & d[2] & d[3] & d[4] & d[5]) == 0xff;
		f.l2_mcast = !f.l2_bcast && (d[0] & 1);
	}
	cfg = bpf_map_lookup_elem(&fp_config, &zero);
	if (cfg && cfg->wire == FP_WIRE_LINK_END)
		return cfg->encap == FP_ENCAP_VXLAN ? wire_vxlan(ctx, &f, cfg) :
						      wire_tag(ctx, cfg, f.len);
	if (cfg) {
		classify(&f, cfg, &c);
	} else {
		struct fp_config none = {};

		classify(&f, &none, &c);
	}
	return deliver(ctx, cfg, &c, f.len);
}

char LICENSE[] SEC("license") = "GPL";
