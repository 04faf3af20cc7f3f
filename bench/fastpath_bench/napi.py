# SPDX-License-Identifier: GPL-2.0-only
"""The threaded-NAPI kernel threads of an interface: by name (any kernel), and exactly over
the netdev generic netlink family (NAPI_GET, Linux 6.8+) with pyroute2."""

import errno
import json
import os

from pyroute2.netlink import NLM_F_DUMP, NLM_F_REQUEST, genlmsg
from pyroute2.netlink.generic import GenericNetlinkSocket
from pyroute2.netns import popns, pushns

from .proc import sh


def napi_threads():
    """{pid: comm} of all napi/* kernel threads (names are global: every namespace's)."""
    res = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/comm") as f:
                comm = f.read().strip()
        except OSError:
            continue
        if comm.startswith("napi/"):
            res[int(d)] = comm
    return res


# The netdev generic netlink family (kernel include/uapi/linux/netdev.h; Debian 12's
# headers and pyroute2 predate it): NETDEV_CMD_NAPI_GET and the NAPI attributes it returns.
_NETDEV_CMD_NAPI_GET = 11


class _NapiMsg(genlmsg):
    nla_map = (("NETDEV_A_NAPI_UNSPEC", "none"),
               ("NETDEV_A_NAPI_IFINDEX", "uint32"),
               ("NETDEV_A_NAPI_ID", "uint32"),
               ("NETDEV_A_NAPI_IRQ", "uint32"),
               ("NETDEV_A_NAPI_PID", "uint32"))


def napi_thread_pids(ns, ifn):
    """pids of the threaded-NAPI kthreads of interface ifn of namespace ns, exactly (netdev
    netlink inside ns), or None when the kernel lacks NAPI_GET (before Linux 6.8)."""
    ifindex = json.loads(sh(["ip", "-n", ns, "-j", "link", "show", ifn], capture=True))[0]["ifindex"]
    pushns(ns)
    try:
        sock = GenericNetlinkSocket()
    finally:
        popns()
    try:
        try:
            sock.bind("netdev", _NapiMsg)
        except Exception:  # no netdev family: a kernel before 6.5
            return None
        req = _NapiMsg()
        req["cmd"] = _NETDEV_CMD_NAPI_GET
        req["version"] = 1
        req["attrs"] = [("NETDEV_A_NAPI_IFINDEX", ifindex)]
        try:
            napis = sock.nlm_request(req, msg_type=sock.prid,
                                     msg_flags=NLM_F_REQUEST | NLM_F_DUMP)
        except OSError as e:
            if e.errno in (errno.ENOENT, errno.EOPNOTSUPP):
                return None
            raise
    finally:
        sock.close()
    return sorted(m.get_attr("NETDEV_A_NAPI_PID") for m in napis
                  if m.get_attr("NETDEV_A_NAPI_PID") is not None
                  and m.get_attr("NETDEV_A_NAPI_IFINDEX") == ifindex)
