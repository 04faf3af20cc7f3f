#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Regenerates the seed corpus of fp_ctrl_fuzz from the text-format requests below.
# Each seed: one flag byte (bit 0 = the harness says Hello first, bit 1 = that Hello binds
# the connection to node r1, bit 2 = the peer is an operator), then length-delimited
# fastpath.v1.Request frames. Needs protoc and python3.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
proto=$(cd "$here/../../proto" && pwd)
out="$here/corpus"
mkdir -p "$out"

. "$here/seed_frames.sh"

V4='prefix { address { bytes: "\306\022\002\000" } length: 24 }'
V6='prefix { address { bytes: "\040\001\000\002\000\000\000\001\000\000\000\000\000\000\000\000" } length: 64 }'
NH='next_hop { bytes: "\306\022\001\002" }'

seed hello 0 'id: 1 hello { version { major: 1 minor: 0 } node_name: "n1" client_name: "seed" }'
seed hello-v2 0 'id: 1 hello { version { major: 2 minor: 7 } }'
seed add-route 1 "id: 2 apply_routes { add { $V4 $NH port { id: 1 } metric: 5 } }" 'id: 3 get_routes {}'
seed add-v6-by-name 1 "id: 2 apply_routes { add { $V6 port { name: \"fp2\" } } }"
seed del-route 1 "id: 2 apply_routes { add { $V4 port { id: 0 } } }" \
  "id: 3 apply_routes { remove { address { bytes: \"\306\022\002\000\" } length: 24 } }" \
  "id: 4 apply_routes { remove { address { bytes: \"\306\022\002\000\" } length: 24 } }"
seed replace-all 1 "id: 2 apply_routes { replace_all: true add { $V4 port { id: 1 } } add { $V6 port { id: 2 } } }"
seed chunked 1 "id: 2 apply_routes { transaction_id: 9 chunk_index: 0 replace_all: true add { $V4 port { id: 1 } } }" \
  "id: 3 apply_routes { transaction_id: 9 chunk_index: 1 final_chunk: true add { $V6 port { id: 1 } } }"
seed chunk-out-of-order 1 "id: 2 apply_routes { transaction_id: 9 chunk_index: 1 add { $V4 port { id: 1 } } }"
seed bad-length 1 'id: 2 apply_routes { add { prefix { address { bytes: "\306\022\002\000" } length: 33 } port { id: 1 } } }'
seed host-bits 1 'id: 2 apply_routes { add { prefix { address { bytes: "\306\022\002\001" } length: 24 } port { id: 1 } } }'
seed neighbours 1 'id: 2 add_neighbour { address { bytes: "\306\022\001\002" } port { id: 1 } mac: "\002\000\000\000\000\011" }' \
  'id: 3 get_neighbours {}' 'id: 4 delete_neighbour { address { bytes: "\306\022\001\002" } port { id: 1 } }'
seed rules 1 'id: 2 set_control_rules { rules { kind: KIND_ETHERTYPE ethertype: 2054 } rules { kind: KIND_L4_PORT ip_proto: 17 port: 698 action: ACTION_PASS } rules { kind: KIND_LOCAL_ADDRESS address { bytes: "\306\022\001\001" } } }' \
  'id: 3 get_control_rules {}'
seed misc 1 'id: 2 get_ports {}' 'id: 3 get_stats {}' 'id: 4 subscribe { kinds: EVENT_KIND_ROUTE_MISS }' \
  'id: 5 open_control_channel { port { name: "fp1" } }' 'id: 6 get_routes { offset: 0 limit: 10 }'
# Nodes (protocol 1.3): requests for r1 (ports r1-eth0/1, ids 10/11) by Request.node and by
# the Hello binding; a port of another node; topology changes by an operator.
seed node-routes 1 "id: 2 node: \"r1\" apply_routes { add { $V4 $NH port { id: 10 } } }" \
  'id: 3 node: "r1" get_routes {}' 'id: 4 get_routes {}' \
  "id: 5 node: \"r1\" apply_routes { add { $V6 port { id: 1 } } }"
seed node-bound 3 "id: 2 apply_routes { transaction_id: 4 chunk_index: 0 add { $V4 port { name: \"r1-eth1\" } } }" \
  "id: 3 node: \"default\" apply_routes { transaction_id: 4 chunk_index: 1 final_chunk: true add { $V6 port { id: 0 } } }" \
  'id: 4 add_neighbour { address { bytes: "\306\022\001\002" } port { id: 11 } mac: "\002\000\000\000\000\011" }' \
  'id: 5 subscribe { all_nodes: true }' 'id: 6 open_control_channel { port { id: 10 } }' \
  'id: 7 node: "r9" get_ports {}' 'id: 8 node: "bad name" get_stats {}'
seed topology 5 'id: 2 create_node { name: "r5" host: "h1" }' \
  'id: 3 create_link { name: "l1" a { node: "r1" port: "to-r5" mtu: 9000 } b { node: "r5" mac: "\002\000\000\000\005\001" } }' \
  'id: 4 get_nodes {}' 'id: 5 get_links {}' 'id: 6 set_link_state { name: "l1" up: false }' \
  "id: 7 node: \"r5\" apply_routes { add { $V4 port { name: \"l1\" } } }" \
  'id: 8 delete_link { name: "l1" }' 'id: 9 delete_node { name: "r5" }'
seed topology-refused 1 'id: 2 create_node { name: "r5" }' \
  'id: 3 create_link { name: "l/1" a { node: "r1" } b { node: "r1" mac: "\001\000\136\000\000\001" } }'
# Link emulation (protocol 1.4): a link created with parameters, changed per direction,
# listed; values out of range, an unknown direction and distribution, no params.
seed link-emulation 5 'id: 2 create_link { name: "l1" a { node: "default" } b { node: "r1" } a_to_b { rate_bps: 10000000 delay_ns: 5000000 loss: 0.01 limit_packets: 50 } }' \
  'id: 3 set_link_params { name: "l1" direction: LINK_DIRECTION_B_TO_A params { delay_ns: 20000000 jitter_ns: 2000000 jitter_distribution: JITTER_NORMAL reorder: true gilbert_elliott { p: 0.01 r: 0.1 } duplicate: 0.005 corrupt: 0.001 seed: 7 } }' \
  'id: 4 set_link_params { name: "l1" params { rate_bps: 1000000000 overhead_bytes: 24 limit_bytes: 65536 } }' \
  'id: 5 get_links {}'
seed link-emulation-refused 5 'id: 2 create_link { name: "l1" a { node: "default" } b { node: "r1" } b_to_a { loss: 1.5 } }' \
  'id: 3 create_link { name: "l1" a { node: "default" } b { node: "r1" } }' \
  'id: 4 set_link_params { name: "l1" params { rate_bps: 10 } }' \
  'id: 5 set_link_params { name: "l1" direction: 7 params { } }' \
  'id: 6 set_link_params { name: "l1" params { jitter_distribution: 9 gilbert_elliott { loss_bad: 2 } } }' \
  'id: 7 set_link_params { name: "l1" }' 'id: 8 set_link_params { name: "nope" params { } }'
seed hello-node 0 'id: 1 hello { version { major: 1 minor: 3 } node: "r1" node_name: "n1" route_grace_period_ms: 100 }' \
  "id: 2 apply_routes { add { $V4 port { id: 11 } } }" 'id: 3 hello { version { major: 1 minor: 3 } node: "r2" }'
echo "corpus written to $out"
