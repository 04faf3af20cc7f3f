/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Contract between the benchmark tools: the payload fp-trafgen writes into every UDP
 * frame, and the maps the XDP sink (fp_bench_sink.bpf.c) fills and fp-sink reads.
 * Plain C with __u32-style types so both clang -target bpf and g++ include it.
 */
#ifndef FP_BENCH_H
#define FP_BENCH_H

#include <linux/types.h>

#define FP_BENCH_MAGIC 0x46504231u /* "FPB1" */
#define FP_BENCH_UDP_PORT 9000     /* default destination port of generated traffic */
#define FP_BENCH_MAX_FLOWS 1024
/* Latency histogram: 8 linear sub-buckets per power of two of nanoseconds. */
#define FP_BENCH_LAT_SUB_BITS 3
#define FP_BENCH_LAT_BUCKETS (64 << FP_BENCH_LAT_SUB_BITS)

/* First bytes of every generated UDP payload (network byte order is not used: the
 * generator and the sink run on the same host). */
struct fp_bench_payload {
	__u32 magic;
	__u32 flow;   /* 0 .. flows-1, also encoded in the UDP source port */
	__u64 seq;    /* per flow, from 0 */
	__u64 tx_ns;  /* CLOCK_MONOTONIC at send time == bpf_ktime_get_ns() */
};

/* Per flow, written only by the sink's single RX NAPI context. */
struct fp_bench_flow {
	__u64 packets;
	__u64 bytes;       /* UDP payload bytes */
	__u64 next_seq;    /* highest sequence seen + 1 */
	__u64 reordered;   /* frames whose sequence was below next_seq */
	__u64 first_ns;    /* arrival time of the first frame */
	__u64 last_ns;     /* arrival time of the last frame */
};

/* Global counters, index into fp_bench_global. */
enum fp_bench_counter {
	FP_BENCH_CNT_MATCHED = 0, /* bench frames counted and dropped */
	FP_BENCH_CNT_OTHER,       /* passed to the kernel (ARP, ICMP, TCP, ...) */
	FP_BENCH_CNT_BAD_FLOW,    /* bench frame with flow >= FP_BENCH_MAX_FLOWS */
	FP_BENCH_CNT_MAX,
};

#endif /* FP_BENCH_H */
