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
 *
 * Pacing is per frame, here: with gen_ns_per_frame_q10 set, slot k of the schedule is due
 * at gen_start_ns + k * ns-per-frame, and a run before the next slot is due drops its
 * frame (XDP_DROP, nothing sent, no sequence number used), so the test run spins until
 * the slot is due. A test run costs a fixed setup (a page pool per run, an RCU grace
 * period on teardown: milliseconds), so fp-xdpgen makes one long run and stops it with a
 * signal; frames cannot be paced by runs of a few hundred µs as fp-trafgen's chunks are.
 * When the generator is more than gen_max_lag_ns behind (it lost its CPU), the older
 * slots are skipped (never offered, counted in gen_skipped) instead of sent as a burst.
 * gen_limit (0: none) ends the frames: later runs drop.
 *
 * The counters are plain globals: one test run executes on one CPU with bottom halves
 * off, and fp-xdpgen runs one at a time.
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

/* Set by fp-xdpgen before the run (0: flat-out / no limit / skip nothing); gen_start_ns
 * by the first frame. */
__u64 gen_start_ns;
__u64 gen_ns_per_frame_q10; /* nanoseconds per frame x 1024 */
__u64 gen_max_lag_ns;
__u64 gen_limit;

/* Frames written so far (the next frame's number); read by fp-xdpgen. */
__u64 gen_frames;
/* The schedule's next slot, and the slots skipped because the generator was late. */
__u64 gen_slot;
__u64 gen_skipped;
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
	if (gen_limit && gen_frames >= gen_limit)
		return XDP_DROP;
	if (!gen_start_ns) /* the schedule starts with the first frame, after the run's setup */
		gen_start_ns = bpf_ktime_get_ns();
	if (gen_ns_per_frame_q10) {
		__u64 now = bpf_ktime_get_ns();
		__u64 due = gen_start_ns + ((gen_slot * gen_ns_per_frame_q10) >> 10);

		if (now < due)
			return XDP_DROP; /* not yet: spin */
		if (gen_max_lag_ns && now - due > gen_max_lag_ns) {
			__u64 behind = ((now - gen_max_lag_ns - gen_start_ns) << 10) /
				       gen_ns_per_frame_q10;

			if (behind > gen_slot) {
				gen_skipped += behind - gen_slot;
				gen_slot = behind;
			}
		}
		gen_slot++;
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
