# SPDX-License-Identifier: GPL-2.0-only
"""Running commands and child processes inside the benchmark's namespaces, and removing
everything the harness created (Cleanup), also on error or Ctrl-C."""

import contextlib
import json
import os
import select
import signal
import subprocess
import time

from .settings import BENCH_NICE


def log(msg):
    print(f"[bench {time.strftime('%H:%M:%S')}] {msg}", flush=True)


def sh(cmd, check=True, capture=False, timeout=60):
    """Runs a command (list); raises with its stderr on failure when check."""
    r = subprocess.run(cmd, stdout=subprocess.PIPE if capture else subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True, timeout=timeout)
    if check and r.returncode != 0:
        raise RuntimeError(f"command failed ({r.returncode}): {' '.join(cmd)}: {r.stderr.strip()}")
    return r.stdout if capture else r.returncode


def run_cleaning_up(body, clean, failures):
    """Runs body(); returns the exit code (0, 1 on error - recorded in failures -, 130 when
    interrupted). Whatever `clean` holds is removed at the end, whatever happened."""
    try:
        body()
        return 0
    except KeyboardInterrupt as e:
        log(f"interrupted ({e}): cleaning up")
        return 130
    except Exception as e:
        log(f"error: {e}")
        failures.append(str(e))
        return 1
    finally:
        clean.all()


@contextlib.contextmanager
def failure_recorded(failures, what):
    """Runs the block; an error in it (not Ctrl-C, which stops the run) is appended to
    failures as "what: error" and logged, and the run goes on with the next measurement."""
    try:
        yield
    except KeyboardInterrupt:
        raise
    except Exception as e:
        failures.append(f"{what}: {e}")
        log(f"FAILED {what}: {e}")


class Cleanup:
    """Everything the harness created, removed in reverse order, also on error/Ctrl-C."""

    def __init__(self):
        self.procs = []       # Popen objects we started (stopped by PID)
        self.namespaces = []

    def spawn(self, ns, argv, cpu=None, stdin=None, name=None, log_path=None, as_user=False):
        """as_user: started as a user starts it (--napi-env): nice 0 in a session, and so a
        scheduler autogroup, of its own. That autogroup is raised to BENCH_NICE, as R's NAPI
        threads are in the environments of --napi-env: against each other they weigh what a
        user's forwarder and NAPI threads weigh (both nice 0), against the machine's other
        work (builds) both are raised."""
        cmd = ["ip", "netns", "exec", ns]
        if not as_user:
            cmd += ["nice", "-n", str(BENCH_NICE)]
        if cpu is not None:
            cmd += ["taskset", "-c", str(cpu)]
        cmd += argv
        out = open(log_path, "w") if log_path else subprocess.DEVNULL
        p = subprocess.Popen(cmd, stdin=stdin, stdout=subprocess.PIPE, stderr=out, text=True,
                             bufsize=1, start_new_session=as_user)
        p.fp_name = name or os.path.basename(argv[0])
        if as_user:
            try:
                with open(f"/proc/{p.pid}/autogroup", "w") as f:
                    f.write(str(BENCH_NICE))
            except OSError:
                pass  # no autogroup (kernel or container): nice 0 in its session
        self.procs.append(p)
        return p

    def stop(self, p, timeout=5.0):
        if p.poll() is None:
            try:
                os.kill(p.pid, signal.SIGTERM)
                p.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                os.kill(p.pid, signal.SIGKILL)
                p.wait(timeout=2)
            except ProcessLookupError:
                pass
        if p in self.procs:
            self.procs.remove(p)

    def add_ns(self, ns):
        sh(["ip", "netns", "add", ns])
        self.namespaces.append(ns)
        sh(["ip", "-n", ns, "link", "set", "lo", "up"])

    def del_ns(self, ns):
        sh(["ip", "netns", "del", ns], check=False)
        if ns in self.namespaces:
            self.namespaces.remove(ns)

    def all(self):
        for p in list(reversed(self.procs)):
            try:
                self.stop(p, timeout=3)
            except Exception as e:  # keep cleaning
                log(f"cleanup: stopping pid {p.pid}: {e}")
        for ns in list(reversed(self.namespaces)):
            self.del_ns(ns)


def read_json_line(p, timeout):
    """Next JSON line from a child's stdout, or None on timeout/EOF."""
    end = time.time() + timeout
    while time.time() < end:
        r, _, _ = select.select([p.stdout], [], [], max(0.0, end - time.time()))
        if not r:
            return None
        line = p.stdout.readline()
        if not line:
            return None
        line = line.strip()
        if line.startswith("{"):
            return json.loads(line)
    return None
