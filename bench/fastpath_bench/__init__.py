# SPDX-License-Identifier: GPL-2.0-only
"""ns3-fastpath benchmark harness.

Builds S -- R -- D (and a line S -- R1 .. RN -- D) in network namespaces fp-bench-<pid>-*,
runs the same traffic through every forwarder at R, and writes CSV, Markdown and PNG plots.

Forwarders: ns-3 FdNetDevice (fp-ns3-fdfwd), raw-socket userspace (fp-rawfwd), Linux
kernel forwarding, XDP-only redirect (fp-xdpfwd), fastpathd (static routes); in the line
only, fastpathd-nodes (one fastpathd hosting the N routers as nodes joined by internal
links, from a generated topology file). A forwarder whose binary is missing is skipped with
a message; no number is ever invented.

CPU placement (2 cores): CPU 0 = generator, sink and S/D's receive work; CPU 1 = the
forwarder and the router veths' receive work. veth would otherwise do R's kernel work on
the sender's CPU: RPS on every veth RX queue steers the backlog to the right CPU, and
where XDP gives a veth a NAPI (XDP forwarder, fastpathd, the sink) NAPI runs threaded
and its kthread is pinned. GRO is off (TCP must stay MTU-sized for the packet-socket
forwarders), TSO/GSO off.

--family 6 (or 4,6) runs the S -- R -- D UDP sweeps in IPv6 (2001:2::/48) for the
forwarders that forward IPv6 (kernel, XDP, fastpathd); results get a family column.

Modules, in the order a run uses them: settings, tools, proc (processes, cleanup),
topology, napi, forwarders, meter, scenarios, stats, plots, report; cli ties them together.
Run as root:  python3 bench/fastpath_bench.py [--quick | --smoke] [--family 4,6] [--out DIR]
"""
