# SPDX-License-Identifier: GPL-2.0-only
# Sourced by make_corpus.sh and make_operator_corpus.sh, with $out (the corpus directory)
# and $proto (the proto/ directory) set: seed NAME FLAG 'request text'... writes one seed,
# the flag byte then the requests as length-delimited fastpath.v1.Request frames.
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
