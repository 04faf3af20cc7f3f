# SPDX-License-Identifier: GPL-2.0-only
"""Where the harness finds the programs it drives, in a CMake build directory."""

import os


# Tool -> its path in the build tree (the CMake targets' output locations).
TOOL_PATHS = {
    "trafgen": "bench/fp-trafgen", "xdpgen": "bench/fp-xdpgen", "sink": "bench/fp-sink",
    "stack-sink": "bench/fp-stack-sink",
    "xdp": "bench/fp-xdpfwd", "rawfwd": "bench/fp-rawfwd",
    "afxdp-min": "bench/fp-afxdp-min",
    "ns3": "bench/fp-ns3-fdfwd",
    "fastpathd": "bin/fastpathd",
    "olsr": "ns3-module/examples/olsr-router",
    "fpctl": "bin/fpctl",
}


def find_tools(build_dir):
    """{tool: path} of the tools built in build_dir (executable files only)."""
    tools = {}
    for k, p in TOOL_PATHS.items():
        full = os.path.join(build_dir, p)
        if os.path.isfile(full) and os.access(full, os.X_OK):
            tools[k] = full
    return tools
