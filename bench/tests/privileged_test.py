# SPDX-License-Identifier: GPL-2.0-only
"""What every privileged bench test script (bench/tests/*_test.py) does around its checks:
its command line (--build-dir), exit 77 (skipped) when not root, the tools it needs, one
Cleanup for everything it sets up (removed at the end, also on failure) and the failures,
printed one a line; exit 1 when there is any."""

import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from fastpath_bench.proc import Cleanup  # noqa: E402
from fastpath_bench.tools import find_tools  # noqa: E402


def run_privileged_test(name, doc, needs, root_for, check):
    """name: the script's name in its messages; doc: its docstring (the first line is the
    --help description); needs: the tools (find_tools keys) it runs; root_for: what root is
    needed for. check(tools, clean, failures) appends a line to failures for each thing
    wrong; an exception of the setup (RuntimeError, a failed command, ...) is one more.
    Returns the exit code."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--build-dir", required=True)
    args = ap.parse_args()
    if os.geteuid() != 0:
        print(f"{name}: needs root ({root_for})", file=sys.stderr)
        return 77
    tools = find_tools(args.build_dir)
    missing = [t for t in needs if t not in tools]
    if missing:
        print(f"{name}: not built in {args.build_dir}: {', '.join(missing)}", file=sys.stderr)
        return 1
    clean = Cleanup()
    failures = []
    try:
        check(tools, clean, failures)
    except (RuntimeError, subprocess.SubprocessError, OSError, ValueError, KeyError) as e:
        failures.append(str(e))
    finally:
        clean.all()
    for f in failures:
        print(f"FAILURE: {f}", file=sys.stderr)
    return 1 if failures else 0
