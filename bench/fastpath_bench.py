#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
# The benchmark harness's command (bench/fastpath_bench/ is the package; --help for the
# options). /usr/bin/python3: Debian's python3-matplotlib and python3-pyroute2 live there.
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fastpath_bench.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
