# SPDX-License-Identifier: GPL-2.0-only
"""Running one built example: simulated, or emulated by a fastpathd of its own started from a
topology of `nodes: []` in a scratch namespace fp-conf-<pid> (docs/guides/ns3-emulation.md),
the example as nobody. Every run is bounded in time and killed with its process group when it
overruns; fastpathd and the namespace are removed on any exit."""
import os
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from fastpathd_process import Fastpathd as FastpathdProcess  # noqa: E402

# A measured run may take this much longer than its simulated time (start-up, build of the
# emulated network, a loaded machine) before it is killed.
SLACK_S = 60
# FastPathTag of the emulated runs: fastpathd's nodes are named TAG-NAME.
TAG = "conf"


class Fastpathd(FastpathdProcess):
    """fastpathd in a namespace fp-conf-PID of its own, from an empty topology; close()
    removes both."""

    def __init__(self, fastpathd, workdir):
        super().__init__(fastpathd, workdir, "fp-conf")

    def created_nodes(self):
        """Whether the script created nodes here (its connections show in the log)."""
        return super().created_nodes(TAG)


def _kill_group(proc):
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait()


def run_example(exe, args, rundir, env_extra, timeout_s, fpd=None):
    """Runs the program once in rundir (its output files land there). Returns {"rc", "timeout",
    "wall_s", "stdout", "stderr"} (stdout/stderr: the lines). Emulated when fpd is given."""
    os.makedirs(rundir, exist_ok=True)
    argv = [exe] + list(args)
    env_extra = dict(env_extra)
    if fpd is not None:
        # The documented switch as ns-3 global values from the environment: it also reaches
        # an example that never parses its command line (cobalt-vs-codel).
        switch = f"FastPathEmulation=1;FastPathSocket={fpd.sock};FastPathTag={TAG}"
        env_extra["NS_GLOBAL_VALUE"] = ";".join(
            v for v in (env_extra.get("NS_GLOBAL_VALUE"), switch) if v)
        argv = ["ip", "netns", "exec", fpd.ns, "setpriv", "--reuid=nobody", "--regid=nogroup",
                "--clear-groups"] + argv
        for d, _, files in os.walk(rundir):
            shutil.chown(d, "nobody")
            for f in files:
                shutil.chown(os.path.join(d, f), "nobody")
    env = dict(os.environ, **env_extra)
    out, err = os.path.join(rundir, "stdout.txt"), os.path.join(rundir, "stderr.txt")
    with open(out, "w") as fo, open(err, "w") as fe:
        fo.flush()
        t0 = time.monotonic()
        proc = subprocess.Popen(argv, cwd=rundir, env=env, stdout=fo, stderr=fe,
                                start_new_session=True)
        timed_out = False
        try:
            proc.wait(timeout_s)
        except subprocess.TimeoutExpired:
            timed_out = True
        finally:
            if proc.poll() is None:
                _kill_group(proc)
        wall = time.monotonic() - t0
    with open(os.path.join(rundir, "command.txt"), "w") as f:
        f.write(" ".join(f"{k}={v}" for k, v in env_extra.items()) + " " + " ".join(argv) + "\n")
    return {"rc": proc.returncode, "timeout": timed_out, "wall_s": round(wall, 2),
            "stdout": open(out, errors="replace").read().splitlines(),
            "stderr": open(err, errors="replace").read().splitlines()}


def make_writable(path):
    """The emulated run's files are written as nobody: its run directory is nobody's."""
    os.makedirs(path, exist_ok=True)
    shutil.chown(path, "nobody")
