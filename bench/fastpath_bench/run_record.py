# SPDX-License-Identifier: GPL-2.0-only
"""A bench script's run folder, written the same way by every script that has one.

`results.md` starts with one line saying what ran: the command, when (UTC), the CPUs, the
1-minute load average when it started and how long it took; the script's own tables follow.
`results.json` holds the same facts (argv, date, duration, load at the start and at the end,
machine, the commit the tree was at and the source files that differed from it) beside the
script's own data. A figure in the docs can then be traced to the command, the commit and
the machine that gave it.

    run = RunRecord("bench/wifi/wifi_conformance.py", argv)
    ... measure ...
    run.write(out_dir, {"rows": rows}, table_markdown)
"""
import json
import os
import platform
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# The folders whose sources make the programs a bench runs (fastpathd, fpctl, the ns-3
# module): a change there that is not committed makes the commit alone not enough.
SOURCE_DIRS = ("bpf", "common", "ctrl-bridge", "fastpath", "ns3-module", "proto")


def source(root=ROOT):
    """The commit of the tree and the program sources that differ from it (git status)."""
    r = subprocess.run(["git", "-C", root, "rev-parse", "HEAD"], capture_output=True, text=True)
    if r.returncode != 0:
        return {"tree": root, "commit": "unknown"}
    dirty = subprocess.run(["git", "-C", root, "status", "--short", "-uno", "--"] +
                           list(SOURCE_DIRS), capture_output=True, text=True).stdout
    return {"tree": root, "commit": r.stdout.strip(), "uncommitted": dirty.splitlines()}


def machine(**extra):
    """Host name, kernel and CPU count, and whatever else the script found worth keeping."""
    return {"host": platform.node(), "kernel": platform.release(), "cpus": os.cpu_count(),
            **extra}


class RunRecord:
    """Started when the run starts (load and commit then); written once at the end."""

    def __init__(self, script, argv=None):
        if os.path.isabs(script) or script.startswith(".."):
            raise ValueError(f"script: a path inside the repository, not '{script}'")
        self.script = script
        self.argv = list(sys.argv[1:] if argv is None else argv)
        self.started = time.time()
        self.load_start = os.getloadavg()[0]
        self.source = source()

    def command(self):
        return " ".join([self.script] + self.argv)

    def heading(self, now=None):
        """`command` (date UTC, N CPUs, load L, S s): the first line of results.md."""
        now = time.time() if now is None else now
        return (f"`{self.command()}` ({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime(now))}, "
                f"{os.cpu_count()} CPUs, load {self.load_start:.2f}, "
                f"{now - self.started:.0f} s)\n\n")

    def write(self, out, data, md, machine_extra=None):
        """results.md (heading + md) and results.json (the run's facts + data) in `out`
        (created). `data` may not use the record's own keys."""
        clash = sorted(set(data) & {"argv", "date", "duration_s", "load_average", "machine",
                                    "source"})
        if clash:
            raise ValueError(f"data: keys {clash} belong to the run record")
        os.makedirs(out, exist_ok=True)
        now = time.time()
        record = {"argv": [self.script] + self.argv,
                  "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.started)),
                  "duration_s": round(now - self.started, 1),
                  "load_average": {"start": self.load_start, "end": os.getloadavg()[0]},
                  "machine": machine(**(machine_extra or {})), "source": self.source, **data}
        with open(os.path.join(out, "results.md"), "w") as f:
            f.write(self.heading(now) + md)
        with open(os.path.join(out, "results.json"), "w") as f:
            json.dump(record, f, indent=1, default=str)
        return record
