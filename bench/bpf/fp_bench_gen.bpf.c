/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fp-xdpgen's frame writer, run by BPF_PROG_TEST_RUN in live-frames mode
 * (BPF_F_TEST_XDP_LIVE_FRAMES, kernel >= 5.18): the kernel runs it once per frame on a
 * copy of fp-xdpgen's IPv4/UDP template and transmits what it redirects. It fills in what
 * differs between frames -- the UDP source port, the payload's flow, per-flow sequence
 * and send time -- and redirects the frame out of the generator's interface
 * (ndo_xdp_xmit: on a veth straight into the peer's XDP ring).
 *
 * Flows take turns as in fp-trafgen: frame n belongs to flow n % flows and is that flow's
 * (n / flows)-th frame, so the sink's per-flow sequence check sees the same numbering.
 * The frame counter is a plain global: one test run executes on one CPU with bottom
 * halves off, and fp-xdpgen runs one at a time.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/udp.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include "fp_bench.h"

/* Set by fp-xdpgen before loading. */
const volatile __u32 gen_flows = 1;
const volatile __u32 gen_ifindex_out;
const volatile __u16 gen_src_port_base = 10000;

/* Frames written so far (the next frame's number); read and reset by fp-xdpgen. */
__u64 gen_frames;
/* Frames that were not fp-xdpgen's template (never expected; dropped). */
__u64 gen_bad_template;

SEC("xdp")
int xdp_fp_bench_gen(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip = (void *)(eth + 1);
	struct udphdr *udp = (void *)(ip + 1);
	struct fp_bench_payload *pl = (void *)(udp + 1);
	__u64 n;
	__u32 flow;

	if ((void *)(pl + 1) > data_end || pl->magic != FP_BENCH_MAGIC) {
		gen_bad_template++;
		return XDP_DROP;
	}
	n = gen_frames++;
	flow = (__u32)(n % gen_flows);
	/* IPv4's UDP checksum is 0 (not used): nothing to update for the new fields. */
	udp->source = bpf_htons((__u16)(gen_src_port_base + flow));
	pl->flow = flow;
	pl->seq = n / gen_flows;
	pl->tx_ns = bpf_ktime_get_ns();
	return bpf_redirect(gen_ifindex_out, 0);
}

char LICENSE[] SEC("license") = "GPL";
