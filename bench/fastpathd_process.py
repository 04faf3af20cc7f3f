# SPDX-License-Identifier: GPL-2.0-only
"""A fastpathd of a bench's own: started in a scratch network namespace from a topology of
`nodes: []` (no node, no port: the ns-3 script creates its own), its socket reachable by
nobody (the script runs unprivileged), stopped by its PID and the namespace removed on close()
or on leaving a `with` block. Used by the conformance harness and the fidelity benchmarks."""
import os
import pwd
import shutil
import subprocess
import tempfile
import time

# How long fastpathd may take to create its socket.
START_TIMEOUT_S = 10


class Fastpathd:
    """fastpathd in namespace PREFIX-PID; `sock` is its socket, `proc` its process, `logpath`
    its log (in `workdir`)."""

    def __init__(self, fastpathd, workdir, ns_prefix):
        self.ns = f"{ns_prefix}-{os.getpid()}"
        # A Unix socket's path has 108 bytes at most: the socket lives in a short folder of
        # its own (the work folder may be deep in a build tree), reachable by nobody.
        self.sockdir = tempfile.mkdtemp(prefix=ns_prefix + "-")
        os.chmod(self.sockdir, 0o755)
        self.sock = os.path.join(self.sockdir, "fastpathd.sock")
        self.logpath = os.path.join(workdir, "fastpathd.log")
        self.proc = None
        nobody = pwd.getpwnam("nobody")
        # What a killed run of the same process id may have left.
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
            deadline = time.monotonic() + START_TIMEOUT_S
            while time.monotonic() < deadline:
                if os.path.exists(self.sock) or self.proc.poll() is not None:
                    break
                time.sleep(0.1)
            if not os.path.exists(self.sock):
                raise RuntimeError(f"fastpathd did not start within {START_TIMEOUT_S} s: " +
                                   open(self.logpath, errors="replace").read()[-2000:])
        except BaseException:
            self.close()
            raise

    def created_nodes(self, tag):
        """Whether a script with FastPathTag `tag` created nodes here (its connections show in
        the log)."""
        return f"@{tag}-" in open(self.logpath, errors="replace").read()

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
