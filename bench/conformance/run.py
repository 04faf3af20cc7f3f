# SPDX-License-Identifier: GPL-2.0-only
"""Running one built example: simulated, or emulated by a fastpathd of its own started from a
topology of `nodes: []` in a scratch namespace fp-conf-<pid> (docs/guides/ns3-emulation.md),
the example as nobody. Every run is bounded in time and killed with its process group when it
overruns; fastpathd and the namespace are removed on any exit."""
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time

# A measured run may take this much longer than its simulated time (start-up, build of the
# emulated network, a loaded machine) before it is killed.
SLACK_S = 60
# FastPathTag of the emulated runs: fastpathd's nodes are named TAG-NAME.
TAG = "conf"


class Fastpathd:
    """fastpathd in a namespace of its own, from an empty topology; close() removes both."""

    def __init__(self, fastpathd, workdir):
        self.ns = f"fp-conf-{os.getpid()}"
        # A Unix socket's path has 108 bytes at most: the socket lives in a short folder of
        # its own (the run's folder may be deep in a build tree), reachable by nobody.
        self.sockdir = tempfile.mkdtemp(prefix="fp-conf-")
        os.chmod(self.sockdir, 0o755)
        self.sock = os.path.join(self.sockdir, "fastpathd.sock")
        self.logpath = os.path.join(workdir, "fastpathd.log")
        self.proc = None
        nobody = pwd.getpwnam("nobody")
        subprocess.run(["ip", "netns", "del", self.ns], stderr=subprocess.DEVNULL)
        subprocess.run(["ip", "netns", "add", self.ns], check=True)
        try:
            subprocess.run(["ip", "-n", self.ns, "link", "set", "lo", "up"], check=True)
            topology = os.path.join(workdir, "empty.yaml")
            with open(topology, "w") as f:
                f.write("nodes: []\n")
            self.proc = subprocess.Popen(
                ["ip", "netns", "exec", self.ns, fastpathd, "--topology", topology,
                 "--socket", self.sock, "--socket-uid", str(nobody.pw_uid),
                 "--socket-gid", str(nobody.pw_gid)],
                stdout=open(self.logpath, "w"), stderr=subprocess.STDOUT,
                start_new_session=True)
            for _ in range(100):
                if os.path.exists(self.sock) or self.proc.poll() is not None:
                    break
                time.sleep(0.1)
            if not os.path.exists(self.sock):
                raise RuntimeError("fastpathd did not start: " + open(self.logpath).read()[-500:])
        except BaseException:
            self.close()
            raise

    def created_nodes(self):
        """Whether the script created nodes here (its connections show in the log)."""
        return f"@{TAG}-" in open(self.logpath, errors="replace").read()

    def close(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        subprocess.run(["ip", "netns", "del", self.ns], stderr=subprocess.DEVNULL)
        shutil.rmtree(self.sockdir, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


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
        env_extra["NS_GLOBAL_VALUE"] = \
            f"FastPathEmulation=1;FastPathSocket={fpd.sock};FastPathTag={TAG}"
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
