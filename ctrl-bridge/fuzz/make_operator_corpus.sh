#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Regenerates the seed corpus of fp_topology_requests_fuzz from the text-format requests
# below. Each seed: one flag byte (bit 0 = root, else an operator; bit 1 = fastpathd
# --attachable "v*,eth0"), then length-delimited fastpath.v1.Request frames (the harness
# says Hello first). Needs protoc and python3.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
proto=$(cd "$here/../../proto" && pwd)
out="$here/corpus-fp_topology_requests_fuzz"
mkdir -p "$out"

. "$here/seed_frames.sh"

A52='address { bytes: "\306\022\005\002" } length: 24'
A51='address { bytes: "\306\022\005\001" } length: 24'
LINK='create_link { name: "l1" a { node: "r1" } b { node: "default" } }'

seed node-link 1 'id: 2 create_node { name: "r2" host: "local" }' \
  'id: 3 create_link { name: "l2" a { node: "r1" } b { node: "r2" mtu: 9000 } }' \
  'id: 4 set_link_state { name: "l2" up: false }' 'id: 5 delete_node { name: "r2" }'
seed link-seed 1 "id: 2 $LINK" \
  'id: 3 set_link_params { name: "l1" params { seed: 18446744073709551611 rate_bps: 10000000 } }' \
  'id: 4 set_link_params { name: "l1" direction: LINK_DIRECTION_A_TO_B params { seed: 7 loss: 0.01 } }' \
  'id: 5 get_links {}'
seed hosts 1 "id: 2 create_host { name: \"h1\" node: \"r1\" addresses { $A52 } gateways { bytes: \"\306\022\005\001\" } }" \
  "id: 3 create_host { name: \"h2\" node: \"r1\" addresses { $A52 } }" \
  "id: 4 create_host { name: \"h3\" node: \"default\" addresses { $A52 } mtu: 9000 }" \
  'id: 5 get_hosts {}' 'id: 6 delete_host { name: "h1" }'
seed host-own-address 1 \
  'id: 2 set_control_rules { rules { kind: KIND_LOCAL_ADDRESS address { bytes: "\306\022\005\001" } } }' \
  "id: 3 create_host { name: \"h1\" node: \"default\" addresses { $A51 } }"
seed segment 1 'id: 2 create_segment { name: "s1" ports { node: "r1" } ports { node: "default" } }' \
  'id: 3 set_segment_state { name: "s1" node: "r2" up: false }' \
  'id: 4 set_segment_params { name: "s1" params { delay_ns: 1000000 } }' \
  'id: 5 delete_segment { name: "s1" }'
seed attach-root 1 'id: 2 attach_interface { node: "r1" ifname: "lo" }' \
  'id: 3 attach_interface { node: "r1" ifname: "eth0" }' \
  'id: 4 attach_interface { node: "r1" ifname: "bond-m0" }' \
  'id: 5 attach_interface { node: "r1" ifname: "veth1" }' \
  'id: 6 detach_interface { node: "r1" ifname: "veth1" }'
seed attach-operator 2 'id: 2 attach_interface { node: "r1" ifname: "veth1" }' \
  'id: 3 attach_interface { node: "r1" ifname: "tap0" }' \
  'id: 4 attach_interface { node: "r1" ifname: "eth0" }' \
  'id: 5 attach_interface { node: "r1" ifname: "xdp0" }'
seed operator-default 0 'id: 2 attach_interface { node: "r1" ifname: "veth1" }' \
  "id: 3 create_host { name: \"h1\" node: \"r1\" addresses { $A52 } }"
seed bad-names 1 'id: 2 create_node { name: "../x" }' 'id: 3 create_host { name: "a;b" node: "r1" }' \
  'id: 4 delete_host { name: "" }' 'id: 5 attach_interface { node: "r1" ifname: "a/b" }'
