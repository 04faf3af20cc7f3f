#!/bin/bash
# The conformance subset with two bounded CPU hogs (as 2026-11-27-timed-delivery/run.sh,
# timed devices only), from the worktree, as root, through `/work/wt/busy --ns`.
cd "$(git rev-parse --show-toplevel)"
out=${1:-/tmp/timed-segments-conf}
timeout 300 sh -c 'while :; do :; done' & h1=$!
timeout 300 sh -c 'while :; do :; done' & h2=$!
python3 bench/conformance/conformance.py --build-dir build --check --subset --out "$out"
echo "conformance rc=$?"
kill $h1 $h2 2>/dev/null; wait $h1 $h2 2>/dev/null
