# SPDX-License-Identifier: GPL-2.0-only
#
# emulation-runner.sh: what the run-*.sh examples share, sourced once they have read their
# options (they set `build`): the binaries checked, and fastpathd started in a scratch
# namespace for the example to create its nodes and links in, with everything removed on
# any exit (fastpathd, the namespace, the scratch directory). Not run on its own.

# fp_binaries SCRIPT EXAMPLE TARGET: sets fpd and example to the build's fastpathd and
# ns-3 example EXAMPLE (CMake target TARGET); exit status 2 when either is not built.
fp_binaries() {
  local script=$1 name=$2 target=$3
  example="$build/ns3-module/examples/$name"
  fpd="$build/bin/fastpathd"
  [[ -x "$example" && -x "$fpd" ]] || {
    echo "$script: build fastpathd and $target in $build first" \
         "(cmake --build $build --target fastpathd $target)" >&2
    exit 2
  }
}

# fp_start_fastpathd SCRIPT NAME [FASTPATHD OPTION...]: as root, fastpathd in namespace
# fp-NAME-PID from an empty topology file (no node, no port: the example creates its own
# nodes and links), its socket $dir/fastpathd.sock owned by nobody
# (--socket-uid: an operator, which may create nodes and links); sets ns, dir, fpd_pid.
fp_start_fastpathd() {
  local script=$1 name=$2
  shift 2
  [[ $(id -u) == 0 ]] || { echo "$script: emulated needs root (fastpathd)" >&2; exit 2; }
  ns="fp-$name-$$"
  dir=$(mktemp -d "/tmp/fp-$name-XXXXXX")
  chmod 755 "$dir"
  fpd_pid=""
  trap fp_cleanup EXIT INT TERM

  ip netns add "$ns"
  ip -n "$ns" link set lo up
  echo 'nodes: []' >"$dir/empty.yaml"
  ip netns exec "$ns" "$fpd" --topology "$dir/empty.yaml" --socket "$dir/fastpathd.sock" \
    --socket-uid "$(id -u nobody)" "$@" >"$dir/fastpathd.log" 2>&1 &
  fpd_pid=$!
  for _ in $(seq 50); do [[ -S "$dir/fastpathd.sock" ]] && break; sleep 0.1; done
  [[ -S "$dir/fastpathd.sock" ]] || { cat "$dir/fastpathd.log" >&2; exit 1; }
}

fp_cleanup() {
  [[ -n "$fpd_pid" ]] && kill "$fpd_pid" 2>/dev/null && wait "$fpd_pid" 2>/dev/null || true
  ip netns del "$ns" 2>/dev/null || true
  rm -rf "$dir"
}

# fp_as_nobody: sets as_nobody to the command prefix that runs the example as nobody, or
# to nothing when nobody cannot run it (a build directory nobody cannot read).
fp_as_nobody() {
  as_nobody=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
  "${as_nobody[@]}" test -x "$example" || as_nobody=()
}
