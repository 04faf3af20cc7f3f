/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * XDP-only IPv4/IPv6 router, the machine's practical forwarding limit in the benchmark:
 * LPM lookup of the destination, MAC rewrite, TTL decrement with incremental checksum
 * (RFC 1624) or hop-limit decrement (IPv6 has no header checksum), bpf_redirect_map()
 * through a devmap. Anything it cannot handle (not IP, IPv4 options, TTL/hop limit <= 1,
 * no route) goes to the kernel with XDP_PASS.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#define FP_XDPFWD_MAX_PORTS 64

struct fp_xdpfwd_lpm_key {
	__u32 prefixlen;
	__u32 addr; /* network byte order */
};

struct fp_xdpfwd_lpm6_key {
	__u32 prefixlen;
	__u8 addr[16];
};

struct fp_xdpfwd_nexthop {
	__u32 port;        /* index into fp_xdpfwd_ports */
	__u8 src_mac[6];
	__u8 dst_mac[6];
};

struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(max_entries, 1024);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct fp_xdpfwd_lpm_key);
	__type(value, struct fp_xdpfwd_nexthop);
} fp_xdpfwd_routes SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(max_entries, 1024);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct fp_xdpfwd_lpm6_key);
	__type(value, struct fp_xdpfwd_nexthop);
} fp_xdpfwd_routes6 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP);
	__uint(max_entries, FP_XDPFWD_MAX_PORTS);
	__type(key, __u32);
	__type(value, __u32);
} fp_xdpfwd_ports SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u64);
} fp_xdpfwd_stats SEC(".maps"); /* 0: redirected, 1: passed to the kernel */

static __always_inline int stat_and(__u32 idx, int verdict)
{
	__u64 *v = bpf_map_lookup_elem(&fp_xdpfwd_stats, &idx);

	if (v)
		*v += 1;
	return verdict;
}

static __always_inline int redirect(struct ethhdr *eth, struct fp_xdpfwd_nexthop *nh)
{
	__builtin_memcpy(eth->h_dest, nh->dst_mac, 6);
	__builtin_memcpy(eth->h_source, nh->src_mac, 6);
	stat_and(0, 0);
	return bpf_redirect_map(&fp_xdpfwd_ports, nh->port, 0);
}

static __always_inline int forward6(struct ethhdr *eth, void *data_end)
{
	struct ipv6hdr *ip6 = (void *)(eth + 1);
	struct fp_xdpfwd_lpm6_key key;
	struct fp_xdpfwd_nexthop *nh;

	if ((void *)(ip6 + 1) > data_end || ip6->hop_limit <= 1)
		return stat_and(1, XDP_PASS);
	key.prefixlen = 128;
	__builtin_memcpy(key.addr, &ip6->daddr, 16);
	nh = bpf_map_lookup_elem(&fp_xdpfwd_routes6, &key);
	if (!nh)
		return stat_and(1, XDP_PASS);
	ip6->hop_limit--;
	return redirect(eth, nh);
}

SEC("xdp")
int xdp_fp_bench_fwd(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct fp_xdpfwd_lpm_key key;
	struct fp_xdpfwd_nexthop *nh;
	struct iphdr *ip;
	__u32 sum;

	if ((void *)(eth + 1) > data_end)
		return stat_and(1, XDP_PASS);
	if (eth->h_proto == bpf_htons(ETH_P_IPV6))
		return forward6(eth, data_end);
	if (eth->h_proto != bpf_htons(ETH_P_IP))
		return stat_and(1, XDP_PASS);
	ip = (void *)(eth + 1);
	if ((void *)(ip + 1) > data_end || ip->ihl != 5 || ip->ttl <= 1)
		return stat_and(1, XDP_PASS);
	key.prefixlen = 32;
	key.addr = ip->daddr;
	nh = bpf_map_lookup_elem(&fp_xdpfwd_routes, &key);
	if (!nh)
		return stat_and(1, XDP_PASS);

	/* RFC 1624: HC' = ~(~HC + ~m + m'); the TTL is the high byte of its word. */
	ip->ttl--;
	sum = (__u32)ip->check + bpf_htons(0x0100);
	ip->check = (__u16)(sum + (sum >= 0xffff));
	return redirect(eth, nh);
}

char LICENSE[] SEC("license") = "GPL";
