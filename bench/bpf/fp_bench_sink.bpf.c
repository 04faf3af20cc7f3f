/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * XDP sink of the benchmark: counts fp-trafgen frames per flow (packets, bytes, sequence
 * gaps, reordering) and their one-way latency (payload send time vs bpf_ktime_get_ns(),
 * both CLOCK_MONOTONIC on the same host) into a histogram, then drops them, so counting
 * costs no userspace work. Everything else (ARP, ICMP, TCP) goes to the kernel.
 * IPv4 (no options) and IPv6 (UDP directly after the fixed header) frames count alike;
 * the UDP checksum is not verified (the forwarders under test must not break it).
 * Attached in native mode on D's veth, it is also the XDP program a devmap redirect
 * into that veth needs on the receiving side.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include "fp_bench.h"

const volatile __u16 bench_udp_port = FP_BENCH_UDP_PORT;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, FP_BENCH_MAX_FLOWS);
	__type(key, __u32);
	__type(value, struct fp_bench_flow);
} fp_bench_flows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, FP_BENCH_LAT_BUCKETS);
	__type(key, __u32);
	__type(value, __u64);
} fp_bench_latency SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, FP_BENCH_CNT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} fp_bench_global SEC(".maps");

static __always_inline void count(__u32 idx)
{
	__u64 *v = bpf_map_lookup_elem(&fp_bench_global, &idx);

	if (v)
		__sync_fetch_and_add(v, 1);
}

/* Bucket = 8 * msb(ns) + next 3 bits below the msb: ~12% resolution, 0 ns .. 2^63 ns. */
static __always_inline __u32 latency_bucket(__u64 ns)
{
	__u32 msb = 0;
	__u64 v = ns;

	if (v >> 32) { msb += 32; v >>= 32; }
	if (v >> 16) { msb += 16; v >>= 16; }
	if (v >> 8) { msb += 8; v >>= 8; }
	if (v >> 4) { msb += 4; v >>= 4; }
	if (v >> 2) { msb += 2; v >>= 2; }
	if (v >> 1) { msb += 1; }
	if (msb < FP_BENCH_LAT_SUB_BITS)
		return (__u32)ns;
	return (msb << FP_BENCH_LAT_SUB_BITS) |
	       ((__u32)(ns >> (msb - FP_BENCH_LAT_SUB_BITS)) & ((1u << FP_BENCH_LAT_SUB_BITS) - 1));
}

/* Counts one frame whose UDP header is at udp; XDP_PASS when it is not a bench frame. */
static __always_inline int count_udp(struct udphdr *udp, void *data_end)
{
	struct fp_bench_payload *pl;
	struct fp_bench_flow *fl;
	__u64 now, lat;
	__u32 flow, bucket;

	if ((void *)(udp + 1) > data_end || udp->dest != bpf_htons(bench_udp_port))
		goto other;
	pl = (void *)(udp + 1);
	if ((void *)(pl + 1) > data_end || pl->magic != FP_BENCH_MAGIC)
		goto other;

	now = bpf_ktime_get_ns();
	flow = pl->flow;
	if (flow >= FP_BENCH_MAX_FLOWS) {
		count(FP_BENCH_CNT_BAD_FLOW);
		return XDP_DROP;
	}
	fl = bpf_map_lookup_elem(&fp_bench_flows, &flow);
	if (!fl)
		return XDP_DROP;
	/* One RX queue and one NAPI context write a flow: plain updates are safe. */
	fl->packets++;
	fl->bytes += bpf_ntohs(udp->len) - sizeof(*udp);
	if (pl->seq + 1 > fl->next_seq)
		fl->next_seq = pl->seq + 1;
	else
		fl->reordered++;
	if (!fl->first_ns)
		fl->first_ns = now;
	fl->last_ns = now;

	lat = now > pl->tx_ns ? now - pl->tx_ns : 0;
	bucket = latency_bucket(lat);
	if (bucket < FP_BENCH_LAT_BUCKETS) {
		__u64 *b = bpf_map_lookup_elem(&fp_bench_latency, &bucket);

		if (b)
			__sync_fetch_and_add(b, 1);
	}
	count(FP_BENCH_CNT_MATCHED);
	return XDP_DROP;
other:
	count(FP_BENCH_CNT_OTHER);
	return XDP_PASS;
}

SEC("xdp")
int xdp_fp_bench_sink(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;

	if ((void *)(eth + 1) > data_end)
		goto other;
	if (eth->h_proto == bpf_htons(ETH_P_IP)) {
		struct iphdr *ip = (void *)(eth + 1);

		if ((void *)(ip + 1) > data_end || ip->ihl != 5 || ip->protocol != IPPROTO_UDP)
			goto other;
		return count_udp((void *)(ip + 1), data_end);
	}
	if (eth->h_proto == bpf_htons(ETH_P_IPV6)) {
		struct ipv6hdr *ip6 = (void *)(eth + 1);

		/* No extension headers: the generator sends none. */
		if ((void *)(ip6 + 1) > data_end || ip6->nexthdr != IPPROTO_UDP)
			goto other;
		return count_udp((void *)(ip6 + 1), data_end);
	}
other:
	count(FP_BENCH_CNT_OTHER);
	return XDP_PASS;
}

/* Attached on a veth peer that must accept devmap redirects but do nothing else. */
SEC("xdp")
int xdp_fp_bench_pass(struct xdp_md *ctx)
{
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
