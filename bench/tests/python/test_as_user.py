# SPDX-License-Identifier: GPL-2.0-only
"""--napi-env starts every forwarder as a user starts it: fastpathd without --cores and
without --fastpathd-args, every process at nice 0 in a session of its own; the full run's
forwarders keep the harness's priority and fastpathd its --cores. No processes are
started: the spawn is recorded."""
import io

import pytest

import fastpath_bench.forwarders as fw_mod
import fastpath_bench.proc as proc_mod
from fastpath_bench.forwarders import Forwarder
from fastpath_bench.proc import Cleanup


class FakeTopo:
    n = 1
    ipv6 = False
    r = ["fp-bench-1-m-r1"]
    s, d = "fp-bench-1-m-s", "fp-bench-1-m-d"

    def __init__(self, clean):
        self.clean = clean

    def r_in(self, i):
        return "fb1a"

    def r_out(self, i):
        return "fb1b"

    def routes(self, i):
        return [("198.18.1.0/24", "fb1b", "198.18.1.2", "02:00:00:00:00:02"),
                ("198.18.0.0/24", "fb1a", "198.18.0.2", "02:00:00:00:00:01")]

    def routes6(self):
        return []

    def pin_napi(self, forwarder_started=False):
        pass


class Spawned:
    def __init__(self, cmd, kw):
        self.cmd, self.kw, self.pid = cmd, kw, 424242

    def poll(self):
        return 0


@pytest.fixture
def spawns(monkeypatch):
    got = []

    def popen(cmd, **kw):
        got.append(Spawned(cmd, kw))
        return got[-1]
    monkeypatch.setattr(proc_mod.subprocess, "Popen", popen)
    monkeypatch.setattr(fw_mod, "sh", lambda *a, **k: 0)
    monkeypatch.setattr(fw_mod, "wait_fastpathd_ready", lambda *a, **k: None)
    monkeypatch.setattr(fw_mod, "read_json_line", lambda *a, **k: {"ready": True})
    # Log files and /proc/<pid>/autogroup: written to memory.
    monkeypatch.setattr(proc_mod, "open", lambda *a, **k: io.StringIO(), raising=False)
    return got


def start(kind, as_user):
    f = Forwarder(kind, {"fastpathd": "/b/fastpathd", "afxdp-min": "/b/fp-afxdp-min"},
                  FakeTopo(Cleanup()), fastpathd_args=["--busy-poll"], as_user=as_user)
    f.start()
    return f


def test_fastpathd_as_a_user_starts_it(spawns):
    start("fastpathd", True)
    cmd, kw = spawns[0].cmd, spawns[0].kw
    assert "nice" not in cmd and kw["start_new_session"] is True
    argv = cmd[cmd.index("/b/fastpathd"):]
    assert argv[:5] == ["/b/fastpathd", "--port", "fb1a", "--port", "fb1b"]
    # No --cores as a user starts it; arguments given with --fastpathd-args are passed on.
    assert "--cores" not in argv and argv[-1] == "--busy-poll"
    assert cmd[cmd.index("taskset"):cmd.index("taskset") + 3] == ["taskset", "-c", "1"]


def test_fastpathd_in_the_full_run_keeps_cores_and_priority(spawns):
    start("fastpathd", False)
    cmd, kw = spawns[0].cmd, spawns[0].kw
    assert cmd[4:7] == ["nice", "-n", "-10"] and kw["start_new_session"] is False
    argv = cmd[cmd.index("/b/fastpathd"):]
    assert argv[argv.index("--cores") + 1] == "1" and argv[-1] == "--busy-poll"


def test_afxdp_min_gets_the_routes_like_rawfwd(spawns):
    start("afxdp-min", True)
    argv = spawns[0].cmd[spawns[0].cmd.index("/b/fp-afxdp-min"):]
    assert argv == ["/b/fp-afxdp-min", "--ifname", "fb1a", "--ifname", "fb1b",
                    "--route", "198.18.1.0/24,fb1b,02:00:00:00:00:02",
                    "--route", "198.18.0.0/24,fb1a,02:00:00:00:00:01"]
