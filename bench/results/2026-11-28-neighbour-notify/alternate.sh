#!/usr/bin/env bash
# The 8x8 grid emulated as one process (run-grid.sh, its default nice), alternating the
# module library before the change (BEFORE_LIB: a folder holding that libns3-fastpath.so,
# put ahead of the binaries' RUNPATH with LD_LIBRARY_PATH) and the build's own (after):
# PAIRS pairs, before first. Each run's output in OUT/{before,after}-N.out, with the library
# its process mapped (read from /proc 15 s into the run). GRID_ARGS: arguments for grid
# (after run-grid.sh's --).
set -u
cd "$(git -C "$(dirname "$0")" rev-parse --show-toplevel)"
out=${OUT:?OUT folder}
before=${BEFORE_LIB:?BEFORE_LIB folder}
pairs=${PAIRS:-3}
build=${BUILD_DIR:-build}
read -r -a grid_args <<<"${GRID_ARGS:-}"
mkdir -p "$out"
echo "grid arguments: ${grid_args[*]:-(none)}" >"$out/grid-args.txt"
uptime >"$out/uptime-start.txt"
mapped() {
  sleep 15
  for p in $(pgrep -x grid); do
    grep -o '/[^ ]*libns3-fastpath.so[^ ]*' "/proc/$p/maps" 2>/dev/null | sort -u
  done | sort | uniq -c
}
for i in $(seq "$pairs"); do
  for which in before after; do
    f="$out/$which-$i.out"
    mapped >"$f.lib" &
    if [[ $which == before ]]; then
      LD_LIBRARY_PATH="$before" ns3-module/examples/run-grid.sh --build-dir "$build" -- "${grid_args[@]}" >"$f" 2>&1
    else
      ns3-module/examples/run-grid.sh --build-dir "$build" -- "${grid_args[@]}" >"$f" 2>&1
    fi
    wait
    echo "$which $i: $(grep -E 'UDP s -> d|per simulated second' "$f" | tr -s ' ' | tr '\n' ' ')"
  done
done | tee "$out/summary.txt"
uptime >"$out/uptime-end.txt"
