#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# perfsum.sh DATA: share by thread; inclusive shares of key kernel paths
f=$1
echo "== by thread (% of CPU 1 samples)"; perf report -i $f --no-children --sort comm -g none -q 2>/dev/null | head -8
echo "== inclusive (children) shares of key functions"
perf report -i $f --children --sort sym -g none -q 2>/dev/null | grep -E " (__xsk_generic_xmit|process_backlog|__sys_sendto|veth_xmit|veth_poll|xsk_rcv|__xsk_rcv|xdp_do_redirect|sock_def_readable|udp_queue_rcv_one_skb|do_sys_poll|__x64_sys_ppoll|__x64_sys_poll|schedule|Worker::pollOnce|Worker::process|\[k\] bpf_prog_[0-9a-f]+_xdp.*)$" | head -30
