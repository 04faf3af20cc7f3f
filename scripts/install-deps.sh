#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Installs what ns3-fastpath needs on Debian 12, only what is missing, and mounts bpffs.
# Idempotent: a second run installs nothing. Used by both README commands and CI.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  clang llvm libclang-rt-14-dev            # BPF objects; libFuzzer runtime
  libbpf-dev libxdp-dev xdp-tools bpftool libelf-dev zlib1g-dev
  libprotobuf-dev protobuf-compiler
  libyaml-cpp-dev                          # fastpathd --topology files
  nlohmann-json3-dev                       # fastpathd's port tuning state file
  libnl-3-dev libnl-route-3-dev            # fastpathd: VXLAN wires follow the underlay
  libgtest-dev libgmock-dev libbenchmark-dev
  libns3-dev libgsl-dev                    # ns-3 3.37; gsl is needed to link it
  ns3-doc                                  # ns-3's example sources: the conformance corpus
  openmpi-bin libopenmpi-dev               # mpirun launches a scenario's ns-3 partitions
  libmetis-dev                             # balanced partition of a scenario's nodes
  libpcap-dev                              # fpctl capture: filters and pcap files
  iproute2 ethtool iputils-ping iputils-tracepath traceroute tcpdump
  iperf3                                   # the demo's real hosts (demo/diamond.sh)
  bird2                                    # real RIP peer for the ns-3 RIP example
  python3 python3-matplotlib               # bench plots
  python3-pyroute2 python3-pytest          # bench: netlink (NAPI threads), unit tests
)

if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps: must run as root (apt-get, bpffs mount)" >&2
  exit 1
fi

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [ "$status" = "install ok installed" ] || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${missing[@]}" >/dev/null
  # bird2's package starts a daemon in the root namespace; we only run our own copies.
  if systemctl is-active --quiet bird 2>/dev/null; then systemctl stop bird || true; fi
else
  echo "install-deps: all packages present"
fi

if ! mount | grep -q ' /sys/fs/bpf type bpf'; then
  mount -t bpf bpf /sys/fs/bpf
  echo "install-deps: mounted bpffs at /sys/fs/bpf"
fi
