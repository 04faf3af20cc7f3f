# SPDX-License-Identifier: GPL-2.0-only
"""CPU placement, priorities, addresses and the forwarders the harness knows; the
thesis's Appendix A ratios it reports against."""


GEN_CPU = 0


FWD_CPU = 1


# Benchmark processes and the NAPI kthreads they depend on run at this nice level so that
# other work on the machine (builds) steals less of their CPU; printed in the placement.
BENCH_NICE = -10


NAPI_RT_PRIO = 50


# The NAPI environments of R (--napi-env): how R's veths' threaded NAPI kthreads are
# scheduled. Both pin them to FWD_CPU. "default": the kernel's default priority
# (SCHED_OTHER, nice 0), what a user has; "rt": SCHED_FIFO NAPI_RT_PRIO, the precedence
# softirq has without threading (the harness's setting without --napi-env). "stack": as
# "default", and D is a kernel-stack host (STACK_ENVS): no XDP sink on D's veth but a UDP
# socket (fp-stack-sink), so D's receive work runs on FWD_CPU, where R transmits, as it
# does for the hosts a user attaches by veth.
NAPI_ENVS = {"default": None, "rt": NAPI_RT_PRIO, "stack": None}
STACK_ENVS = {"stack"}


GEN_RT_PRIO = 40  # paced fp-trafgen: SCHED_FIFO below the NAPI threads


# S's qdisc on its veth (--sender-qdisc): a veth is created with noqueue, and a veth without
# a qdisc drops every frame its peer's receive ring (256 frames) has no room for. With a
# qdisc (Linux 6.16+) veth stops its queue instead and the burst waits in S's qdisc, as it
# waits in a NIC's ring and qdisc. pfifo_fast (1000 frames) is the default qdisc of a NIC;
# the generator then sends through it (fp-trafgen --through-qdisc). "noqueue": a veth as
# created, the generator bypassing the qdisc layer.
SENDER_QDISC = "pfifo_fast"
SENDER_QDISCS = ("pfifo_fast", "pfifo", "noqueue")


UDP_PORT = 9000


TCP_PORT = 9100


S_IP, R_IN_IP, R_OUT_IP, D_IP = "198.18.0.2", "198.18.0.1", "198.18.1.1", "198.18.1.2"


NET_S, NET_D = "198.18.0.0/24", "198.18.1.0/24"


# IPv6 (--family 6), single router only: S, R's two interfaces and D on 2001:2:0:0::/64 and
# 2001:2:0:1::/64; the traffic goes to 2001:2:0:2::1, an address of D inside
# 2001:2:0:2::/64, which R routes via D.
S_IP6, R_IN_IP6, R_OUT_IP6, D_IP6 = "2001:2::2", "2001:2::1", "2001:2:0:1::1", "2001:2:0:1::2"


NET_S6, NET_D6, DST_IP6 = "2001:2::/64", "2001:2:0:2::/64", "2001:2:0:2::1"


# Forwarders that forward IPv6, and why the others are skipped in IPv6 runs.
V6_SKIP = {
    "ns3": "fp-ns3-fdfwd sets up IPv4 interfaces and routes only",
    "rawfwd": "fp-rawfwd's route table and TTL rewrite are IPv4 only",
    "afxdp-min": "fp-afxdp-min's route table and TTL rewrite are IPv4 only",
}


# Forwarders of the S — R — D sweeps (and of the line).
ALL_FORWARDERS = ["ns3", "rawfwd", "kernel", "xdp", "afxdp-min", "fastpathd"]


# Forwarders of the line scenario only: fastpathd-nodes is one fastpathd in one namespace R
# hosting the N routers as nodes n1..nN joined by internal links (a topology file).
LINE_ONLY = ["fastpathd-nodes"]


# Every forwarder of the line, in the order of its tables and plots.
LINE_FORWARDERS = ALL_FORWARDERS + LINE_ONLY


# Line forwarders that emulate the N routers inside one process in one namespace R (ns-3
# and fastpathd-nodes); the others run one forwarder per router namespace R1..RN.
ONE_PROCESS_LINE = ["ns3", "fastpathd-nodes"]


# The line's internal addressing: hop k = 0, 1, ... between routers k+1 and k+2 (a veth pair
# between namespaces, link l<k+1> of fastpathd-nodes) is 198.19.k.0/24, .1 on the S side,
# .2 on the D side.
LINE_LINK_NET = "198.19.{}.0/24"


# The line scenario's TTL (UDP, TCP, ping): 64 would expire at the 64th router.
LINE_TTL = 255


LABELS = {
    "ns3": "ns-3 FdNetDevice",
    "rawfwd": "raw socket (userspace)",
    "kernel": "Linux kernel",
    "xdp": "XDP redirect (limit)",
    "afxdp-min": "minimal AF_XDP forwarder",
    "fastpathd": "fastpathd (AF_XDP)",
    "fastpathd-nodes": "fastpathd, N nodes in one daemon",
    "ns3-olsr": "ns-3 OLSR, FdNetDevice",
    "fastpathd-olsr": "fastpathd + ns-3 OLSR",
}


# What each forwarder is in the line scenario (tables and plot of the line).
LINE_LABELS = {
    "ns3": "ns-3 FdNetDevice, N routers in one process",
    "rawfwd": "raw socket, N processes",
    "kernel": "Linux kernel, N namespaces",
    "xdp": "XDP redirect, N namespaces",
    "afxdp-min": "minimal AF_XDP, N processes",
    "fastpathd": "fastpathd, N daemons",
    "fastpathd-nodes": "fastpathd, N nodes in one daemon",
}


OLSR_KINDS = ["ns3-olsr", "fastpathd-olsr"]


# Thesis Appendix A ratios (160-byte UDP): (label, thesis value, numerator, denominator,
# key of ratios()). Max received rates: A.4 ns-3 14.38, A.5 userspace 31.67, A.6 kernel
# 68.45 (link-limited), A.7 ns-3/WMRP 9.27 vs A.8 userspace data plane 43.84 at 70.8,
# A.9 ns-3/OLSR 3.55 vs A.10 real routing 67.56 at 70.8 Mbit/s.
THESIS_ROWS = [
    ("userspace (raw socket) / ns-3, max received", "2.2x (A.5/A.4); 4.7x at 70.8 Mbit/s "
     "(A.8/A.7)", "rawfwd", "ns3", "saturation_pps"),
    ("kernel / ns-3, max received", "4.8x (A.6/A.4, 100 Mbit/s link-limited); 19x at "
     "70.8 Mbit/s (A.10/A.9)", "kernel", "ns3", "saturation_pps"),
    ("userspace / ns-3, loss-free rate", "2x (16 vs 8 Mbit/s, A.5/A.4)", "rawfwd", "ns3",
     "lossfree_pps"),
    ("kernel / ns-3, loss-free rate", ">= 4x (32 vs 8 Mbit/s, link-limited, A.6/A.4)",
     "kernel", "ns3", "lossfree_pps"),
    ("fastpathd / ns-3, max received", "(new; goal: beat 19x)", "fastpathd", "ns3",
     "saturation_pps"),
    ("fastpathd / kernel, max received", "(new)", "fastpathd", "kernel", "saturation_pps"),
    ("fastpathd / XDP redirect, max received", "(new)", "fastpathd", "xdp", "saturation_pps"),
    ("OLSR: fast data plane / ns-3 emulation, max received", "19x (A.10/A.9, real routing)",
     "fastpathd-olsr", "ns3-olsr", "saturation_pps"),
    ("OLSR: fast data plane / ns-3 emulation, loss-free", "8x (32 vs 4 Mbit/s, A.10/A.9)",
     "fastpathd-olsr", "ns3-olsr", "lossfree_pps"),
]
