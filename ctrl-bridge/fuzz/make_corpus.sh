#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Regenerates the seed corpus of fp_ctrl_fuzz from the text-format requests below.
# Each seed: one flag byte (low bit 1 = the harness says Hello first), then
# length-delimited fastpath.v1.Request frames. Needs protoc and python3.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
proto=$(cd "$here/../../proto" && pwd)
out="$here/corpus"
mkdir -p "$out"

seed() {  # seed NAME FLAG 'request text' ['request text' ...]
  name=$1; flag=$2; shift 2
  python3 - "$out/$name" "$flag" "$proto" "$@" <<'PY'
import subprocess, sys
path, flag, proto, reqs = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]
def varint(n):
    b = bytearray()
    while True:
        if n < 0x80:
            b.append(n); return bytes(b)
        b.append((n & 0x7f) | 0x80); n >>= 7
data = bytes([flag])
for r in reqs:
    msg = subprocess.run(["protoc", "-I" + proto, "--encode=fastpath.v1.Request",
                          "fastpath/v1/fastpath.proto"], input=r.encode(),
                         capture_output=True, check=True).stdout
    data += varint(len(msg)) + msg
open(path, "wb").write(data)
PY
}

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
echo "corpus written to $out"
