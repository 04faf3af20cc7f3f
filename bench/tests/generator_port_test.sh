#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Both generators refuse a UDP destination port outside 1..65535 before they open anything
# (a port cut to 16 bits would send to port 0 or to another port than asked). The interface
# named does not exist, so nothing can be sent even if the check were missing: the tool then
# fails later, with another message, and this test fails.
set -uo pipefail
bin=$1
fail=0
for tool in fp-trafgen fp-xdpgen; do
  for port in 0 65536 -1; do
    out=$("$bin/$tool" --ifname fp-no-such-if --dst-mac 02:00:00:00:00:01 --src-ip 198.18.0.1 \
          --dst-ip 198.18.1.1 --dst-port "$port" --pps 1 --duration 1 2>&1)
    rc=$?
    if [ "$rc" -ne 2 ] || ! grep -q -- "--dst-port must be 1..65535" <<<"$out"; then
      echo "FAIL: $tool --dst-port $port: exit $rc, output: $out"; fail=1
    fi
  done
done
[ $fail -eq 0 ] && echo "both generators refuse ports outside 1..65535"
exit $fail
