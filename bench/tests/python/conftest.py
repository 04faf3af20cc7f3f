# SPDX-License-Identifier: GPL-2.0-only
# Makes the harness package importable as `fastpath_bench` from bench/.
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
