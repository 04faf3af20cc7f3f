/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The contract between the XDP classifier (bpf/fp_classify.bpf.c) and userspace
 * (fastpath/, ctrl-bridge/): verdicts, reasons, the per-frame metadata, map keys and
 * values. Plain C with __u32-style types so both clang -target bpf and g++ include it.
 */
#ifndef FP_ABI_H
#define FP_ABI_H

#include <linux/types.h>

/* What the classifier decided for a frame. Indexes fp_verdict_stats. */
enum fp_verdict {
	FP_VERDICT_DATA = 0,    /* IPv4/IPv6 unicast to forward: to the XSK */
	FP_VERDICT_CONTROL = 1, /* for ns-3's control plane: to the XSK, marked */
	FP_VERDICT_PUNT = 2,    /* the fast path must not decide: to the XSK, marked */
	FP_VERDICT_PASS = 3,    /* to the host kernel, by explicit rule only */
	FP_VERDICT_DROP = 4,    /* only by explicit policy (no XSK bound + drop policy) */
	FP_VERDICT_MAX,
};

/* Why. Indexes fp_reason_stats. Append only: userspace prints these by number. */
enum fp_reason {
	FP_REASON_DATA_IPV4 = 0,
	FP_REASON_DATA_IPV6,
	FP_REASON_CTRL_ARP,
	FP_REASON_CTRL_ETHERTYPE,     /* rule in fp_ctrl_ethertypes */
	FP_REASON_CTRL_IP_PROTO,      /* rule in fp_ctrl_ip_protos */
	FP_REASON_CTRL_L4_PORT,       /* rule in fp_ctrl_l4_ports */
	FP_REASON_CTRL_LOCAL_ADDR,    /* destination is one of the node's addresses */
	FP_REASON_CTRL_BROADCAST,
	FP_REASON_CTRL_MULTICAST,
	FP_REASON_CTRL_ICMPV6_ND,     /* neighbour discovery / router solicitation */
	FP_REASON_PUNT_IPV4_OPTIONS,
	FP_REASON_PUNT_IPV4_FRAGMENT,
	FP_REASON_PUNT_TTL_EXPIRED,   /* TTL or hop limit <= 1 */
	FP_REASON_DROP_TRUNCATED,     /* headers cut short: dropped, nothing can use it */
	FP_REASON_DROP_BAD_HEADER,    /* bad version, IHL < 5, bad lengths: dropped */
	FP_REASON_PUNT_IPV6_EXT_DEPTH, /* more extension headers than we parse */
	FP_REASON_PUNT_IPV6_FRAGMENT,
	FP_REASON_PUNT_UNKNOWN_L3,    /* EtherType we do not forward and no rule names */
	FP_REASON_DROP_VLAN,          /* 802.1Q/802.1ad tagged: the port serves no VLAN */
	FP_REASON_PASS_RULE,          /* a rule's action was PASS */
	FP_REASON_NO_XSK_PASS,        /* no XSK bound for the queue: fell back to kernel */
	FP_REASON_NO_XSK_DROP,        /* no XSK bound for the queue: dropped by policy */
	/* Not a classification: counted in addition to the frame's reason when
	 * bpf_xdp_adjust_meta() failed; the frame is still delivered, without metadata. */
	FP_REASON_META_FAILED,
	/* Frames this router must not route, dropped before they take an AF_XDP ring slot
	 * (fp_config.port_mac_set): */
	FP_REASON_DROP_OTHER_HOST,    /* unicast to another host's MAC (shared segment, promisc) */
	FP_REASON_DROP_OWN_SOURCE,    /* sent from this port's own MAC: a reflection or a loop */
	FP_REASON_DROP_BAD_CHECKSUM,  /* IPv4 header checksum wrong (RFC 1812 5.2.2) */
	/* On a wire between hosts (fp_config.wire): */
	FP_REASON_PASS_WIRE_LINK,     /* a plan's VLAN from its link's peer end: untagged, to its port */
	FP_REASON_PASS_WIRE_PROBE,    /* the daemons' latency probe (FP_ETH_P_WIRE_PROBE) */
	FP_REASON_DROP_WIRE_FOREIGN_TAG,  /* a VLAN no link of the plan has, or an 802.1ad tag */
	FP_REASON_DROP_WIRE_FOREIGN_HOST, /* the link's VLAN from another source than its peer end */
	FP_REASON_DROP_WIRE_UNTAGGED, /* neither a link's frame nor a probe */
	/* On a link's end towards the wire (FP_WIRE_LINK_END): */
	FP_REASON_PASS_WIRE_TX,       /* tagged with the link's VLAN and sent on the wire */
	FP_REASON_DROP_WIRE_HEADROOM, /* no room to push the tag (bpf_xdp_adjust_head failed) */
	/* On a VXLAN wire (fp_config.encap FP_ENCAP_VXLAN): */
	FP_REASON_PASS_WIRE_UNDERLAY, /* not VXLAN to this host's underlay address: the kernel's */
	FP_REASON_DROP_WIRE_UNKNOWN_VNI, /* a VNI no link of the plan has */
	FP_REASON_DROP_WIRE_BAD_FLAGS,   /* VXLAN header without its I flag (RFC 7348 5) */
	/* On a VXLAN link's end: the underlay has no next hop to the peer (fp_vxlan_hop) */
	FP_REASON_DROP_WIRE_NO_NEXT_HOP,
	FP_REASON_MAX,
};

/* Policy when no AF_XDP socket is bound for the rx queue (fp_config.no_xsk_policy). */
enum fp_no_xsk_policy {
	FP_NO_XSK_PASS = 0, /* default: hand the frame to the kernel, counted */
	FP_NO_XSK_DROP = 1, /* drop it, counted */
};

/* Action stored as the value of every rule map. */
enum fp_rule_action {
	FP_ACTION_CONTROL = 1,
	FP_ACTION_PASS = 2,
};

#define FP_META_MAGIC 0xfa57c1a5U

/*
 * Written with bpf_xdp_adjust_meta() in front of every frame sent to an XSK; AF_XDP copies
 * it into the UMEM just before the frame (copy and zero-copy mode), so fastpathd reads it
 * at addr - sizeof(struct fp_xdp_meta) without parsing again. Size is a multiple of 8 (at most
 * 32 bytes: the kernel's limit for XDP metadata), rx_ns 8-byte aligned.
 */
struct fp_xdp_meta {
	__u32 magic;     /* FP_META_MAGIC */
	__u8 verdict;    /* enum fp_verdict */
	__u8 reason;     /* enum fp_reason */
	__u8 l3_proto;   /* FP_L3_* */
	__u8 l4_proto;   /* IPPROTO_* of the transport header, 0 if none */
	__u16 l3_offset; /* bytes from frame start to the IP/ARP header (after VLAN tags) */
	__u16 l4_offset; /* bytes from frame start to the transport header, 0 if none */
	__u32 pad;
	/* When the frame reached the port's XDP program: bpf_ktime_get_ns(), CLOCK_MONOTONIC.
	 * fastpathd emulates a link from this instant, not from when its worker took the frame
	 * off the RX ring. 0: no stamp (the userspace twin: a frame on an internal link has its
	 * model arrival time instead). */
	__u64 rx_ns;
};

enum fp_l3_proto {
	FP_L3_OTHER = 0,
	FP_L3_IPV4 = 1,
	FP_L3_IPV6 = 2,
	FP_L3_ARP = 3,
};

/* Key of fp_ctrl_ethertypes: __be16 EtherType as on the wire. fp_ctrl_ip_protos is an
 * array indexed by IP protocol / IPv6 upper-layer header (value 0 = no rule). */

/* Key of fp_ctrl_l4_ports: transport protocol and destination port (network order). */
struct fp_l4_port_key {
	__u8 l4_proto; /* IPPROTO_UDP or IPPROTO_TCP */
	__u8 pad;
	__be16 port;
};

/* Key of fp_local_addrs: one of the node's own addresses. IPv4 in addr[0..3]. */
struct fp_addr_key {
	__u32 family; /* AF_INET or AF_INET6 */
	__u8 addr[16];
};

/* What VXLAN adds to a frame: outer Ethernet 14, IPv4 20, UDP 8, VXLAN 8. */
#define FP_VXLAN_OVERHEAD 50

/* Value of fp_config[0]: runtime policy, written by the loader. */
struct fp_config {
	__u32 no_xsk_policy;        /* enum fp_no_xsk_policy */
	__u32 broadcast_action;     /* enum fp_rule_action, 0 = treat as data/punt rules */
	__u32 multicast_action;     /* enum fp_rule_action, 0 = ditto */
	__u32 port_mac_set;         /* 1: port_mac is the port's MAC, frames are checked against it */
	__u8 port_mac[6];
	__u16 pad;
	__u32 wire;         /* enum fp_wire_role */
	__u16 wire_vlan;    /* FP_WIRE_LINK_END: the link's VLAN id */
	__u16 pad2;
	__u32 wire_ifindex; /* FP_WIRE_LINK_END: the wire */
	/* Appended for VXLAN wires; zero is an 802.1Q wire as before. */
	__u32 encap;          /* enum fp_wire_encap, of the wire and of a link's end */
	__be32 underlay_addr; /* FP_WIRE_PORT, VXLAN: this host's underlay IPv4 address */
	__be16 vxlan_port;    /* FP_WIRE_PORT, VXLAN: the UDP port VXLAN arrives on */
	__u16 pad3;
	/* FP_WIRE_LINK_END, VXLAN: the outer headers every frame gets (Ethernet to the next
	 * hop, IPv4, UDP, VXLAN), IPv4 checksum over a total length of 0; the program fills
	 * the lengths, the checksum and the UDP source port. */
	__u8 vxlan_hdr[FP_VXLAN_OVERHEAD];
	__u16 pad4;
};

/*
 * A link between two hosts: on each host a veth pair, one end the node's port (classifier
 * and AF_XDP socket as any port), the other towards the wire. The wire's program takes the
 * link's frames off the wire, untags them and redirects them to the link's wire-side end
 * (so they arrive at the node's port); the wire-side end's program tags what the node sends
 * and redirects it to the wire. Only the plan's VLANs, each from its peer end's MAC, get in.
 */
enum fp_wire_role {
	FP_WIRE_NONE = 0,
	FP_WIRE_PORT = 1,     /* the wire: fp_wire_tags says which links it carries */
	FP_WIRE_LINK_END = 2, /* a link's wire-side veth end: tag with wire_vlan, to wire_ifindex */
};

/* How a wire carries its links: one 802.1Q VLAN each on a shared Ethernet segment, or
 * one VXLAN network identifier each (RFC 7348) in UDP over a routed IPv4 underlay. */
enum fp_wire_encap {
	FP_ENCAP_VLAN = 0,
	FP_ENCAP_VXLAN = 1,
};

/* Value of fp_wire_vnis (key: the VNI, __u32 host order). */
struct fp_wire_vni {
	__be32 peer_addr; /* the only source address accepted for this VNI: the peer's underlay */
	__u32 ifindex;    /* the link's wire-side end */
};

/* Value of fp_vxlan_hop[0] on a VXLAN link's end: the underlay's next hop as the kernel
 * has it now. Without an entry the outer Ethernet header is vxlan_hdr's own; with one, its
 * destination is `mac` when `up`, and without a next hop (up 0) the frame is dropped and
 * counted (FP_REASON_DROP_WIRE_NO_NEXT_HOP). A hash map without preallocation: an update
 * swaps the whole entry, so a frame never sees half of an old MAC and half of a new one. */
struct fp_vxlan_hop {
	__u8 mac[6];
	__u8 up;
	__u8 pad;
};

/* Value of fp_wire_tags (key: the VLAN id, __u16 host order). */
struct fp_wire_tag {
	__u8 peer_mac[6]; /* the only source MAC accepted on this VLAN: the link's peer end */
	__u16 pad;
	__u32 ifindex;    /* the link's wire-side end; 0: to the kernel */
};

/* EtherType of the probes fastpathd daemons exchange over a wire to measure its latency
 * (IEEE 802 local experimental EtherType 1). */
#define FP_ETH_P_WIRE_PROBE 0x88b5
#define FP_MAX_WIRE_TAGS 4094
#define FP_VXLAN_PORT 4789
#define FP_VXLAN_FLAG_I 0x08
#define FP_MAX_WIRE_VNIS 4094

/* Value of fp_verdict_stats and fp_reason_stats (per-CPU arrays). */
struct fp_counter {
	__u64 packets;
	__u64 bytes;
};

/* Map names as constants: userspace looks maps up through the skeleton, not by name,
 * but tests and fpctl print these. */
#define FP_MAP_XSKS "xsks_map"
#define FP_MAX_QUEUES 64
#define FP_MAX_LOCAL_ADDRS 1024
#define FP_MAX_L4_PORT_RULES 1024
#define FP_MAX_ETHERTYPE_RULES 64
#define FP_IPV6_MAX_EXT_HDRS 4 /* extension headers walked before punting */

#endif /* FP_ABI_H */
