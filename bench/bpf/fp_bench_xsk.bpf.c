/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fp-afxdp-min's XDP program: every IPv4 frame to the AF_XDP socket of its RX queue
 * (fp_afxdp_xsks, one map per port: the forwarder loads one instance per interface),
 * everything else (ARP, IPv6) to the kernel. Without a socket in the slot the frame goes
 * to the kernel too (bpf_redirect_map's XDP_PASS fallback).
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

struct {
	__uint(type, BPF_MAP_TYPE_XSKMAP);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, __u32);
} fp_afxdp_xsks SEC(".maps");

SEC("xdp")
int xdp_fp_bench_to_xsk(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;

	if ((void *)(eth + 1) > data_end || eth->h_proto != bpf_htons(ETH_P_IP))
		return XDP_PASS;
	return bpf_redirect_map(&fp_afxdp_xsks, ctx->rx_queue_index, XDP_PASS);
}

char LICENSE[] SEC("license") = "GPL";
