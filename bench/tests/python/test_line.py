# SPDX-License-Identifier: GPL-2.0-only
"""The line scenario without privileges: the topology file of fastpathd-nodes (a frame
walked through its routes and neighbours gets from S to D and back), its YAML, the
loss-free search and the line's summary."""
import ipaddress

import pytest

from fastpath_bench.scenarios import line_search, nice_rate
from fastpath_bench.stats import line_summary
from fastpath_bench.topology import node_line_topology, topology_yaml

S_IP, D_IP = "198.18.0.2", "198.18.1.2"
S_MAC, D_MAC = "0a:00:00:00:00:01", "0a:00:00:00:00:02"


def line(n):
    return node_line_topology(n, "fb1a", "fb1b", S_IP, S_MAC, D_IP, D_MAC)


def lookup(node, dst):
    """Longest-prefix match in a node's routes: (via, dev)."""
    best = None
    for r in node["routes"]:
        net = ipaddress.ip_network(r["prefix"])
        if ipaddress.ip_address(dst) in net and (best is None or
                                                 net.prefixlen > best[0].prefixlen):
            best = (net, r)
    assert best, f"{node['name']}: no route to {dst}"
    return best[1]["via"], best[1]["dev"]


def walk(doc, start, dst):
    """Forwards a frame for dst from node `start` the way fastpathd would: route, neighbour
    (its MAC must be the MAC of the port that receives the frame), next node. Returns the
    nodes crossed and the interface and MAC the frame finally leaves with."""
    nodes = {n["name"]: n for n in doc["nodes"]}
    ends = {}  # (node, port) -> (link, its MAC, the peer node, the peer's port)
    for link in doc.get("links", []):
        a, b = link["a"], link["b"]
        pa, pb = a.get("port", link["name"]), b.get("port", link["name"])
        ends[(a["node"], pa)] = (a["mac"], b["node"], pb, b["mac"])
        ends[(b["node"], pb)] = (b["mac"], a["node"], pa, a["mac"])
    crossed, name = [], start
    for _ in range(len(nodes) + 1):
        node = nodes[name]
        crossed.append(name)
        via, dev = lookup(node, dst)
        neigh = [x for x in node["neighbours"] if x["ip"] == via and x["dev"] == dev]
        assert len(neigh) == 1, f"{name}: neighbour {via} on {dev}"
        if (name, dev) not in ends:
            assert dev in node.get("interfaces", []), f"{name}: {dev} is no port"
            return crossed, dev, neigh[0]["mac"]
        _, peer, _, peer_mac = ends[(name, dev)]
        assert neigh[0]["mac"] == peer_mac, f"{name}: neighbour MAC is not the peer's port"
        name = peer
    raise AssertionError("routing loop")


@pytest.mark.parametrize("n", [1, 2, 4, 8, 16, 32, 64])
def test_a_frame_crosses_every_node_in_both_directions(n):
    doc = line(n)
    assert [x["name"] for x in doc["nodes"]] == [f"n{i}" for i in range(1, n + 1)]
    assert len(doc.get("links", [])) == n - 1
    crossed, dev, mac = walk(doc, "n1", D_IP)
    assert crossed == [f"n{i}" for i in range(1, n + 1)]
    assert (dev, mac) == ("fb1b", D_MAC)
    crossed, dev, mac = walk(doc, f"n{n}", S_IP)
    assert crossed == [f"n{i}" for i in range(n, 0, -1)]
    assert (dev, mac) == ("fb1a", S_MAC)


def test_interfaces_ports_and_macs():
    doc = line(3)
    assert doc["nodes"][0]["interfaces"] == ["fb1a"]
    assert "interfaces" not in doc["nodes"][1]
    assert doc["nodes"][2]["interfaces"] == ["fb1b"]
    assert line(1)["nodes"][0]["interfaces"] == ["fb1a", "fb1b"]
    assert "links" not in line(1)
    macs = [e["mac"] for link in line(64)["links"] for e in (link["a"], link["b"])]
    assert len(set(macs)) == len(macs) == 126
    assert all(int(m.split(":")[0], 16) & 3 == 2 for m in macs)  # unicast, local
    with pytest.raises(ValueError):
        line(0)


def test_yaml_reads_back_as_the_same_topology():
    yaml = pytest.importorskip("yaml")
    for n in (1, 2, 5):
        text = topology_yaml(line(n), "a comment\nover two lines")
        assert text.startswith("# a comment\n# over two lines\nnodes:\n")
        assert yaml.safe_load(text) == line(n)
    # MACs are quoted (some readers take digits and colons for a number), names are not.
    text = topology_yaml(line(2))
    assert '  - name: n1\n' in text and 'mac: "02:66:70:00:01:01"' in text


def test_line_search_doubles_then_refines_between_the_last_good_and_the_first_bad():
    seen = []

    def measure(rate):
        seen.append(rate)
        return rate <= 130000
    res = line_search(measure, 12500, 800000)
    # 12.5k .. 100k good, 200k and 400k bad (two in a row), then 130k good, 160k bad.
    assert seen == [12500, 25000, 50000, 100000, 200000, 400000, 130000, 160000]
    assert max(r for r, ok in res.items() if ok) == 130000


def test_line_search_one_unlucky_rate_does_not_end_it():
    res = line_search(lambda r: r != 25000, 12500, 100000)
    assert list(res) == [12500, 25000, 50000, 100000]
    assert res[100000]


def test_line_search_goes_down_when_the_first_rate_is_lossy_and_stops_at_the_cap():
    res = line_search(lambda r: r <= 3200, 12500, 800000)
    assert list(res)[:4] == [12500, 25000, 6250, 3125]
    assert max(r for r, ok in res.items() if ok) == 3125
    assert 3125 < min(r for r in list(res)[4:]) < 6250  # refined between 3125 and 6250
    # Halving rounds down (3,125 -> 1,562): still refined between the two.
    res = line_search(lambda r: r <= 1600, 12500, 800000)
    assert list(res) == [12500, 25000, 6250, 3125, 1562, 2000]
    assert list(line_search(lambda r: True, 12500, 50000)) == [12500, 25000, 50000]
    assert list(line_search(lambda r: False, 12500, 0)) == [12500]
    assert list(line_search(lambda r: False, 4000, 4000, floor=1000)) == [4000, 2000, 1000]


def test_nice_rate():
    assert nice_rate(15749) == 16000
    assert nice_rate(125992) == 130000
    assert nice_rate(99) == 99


def point(fw, n, offered, loss, gen=None, **extra):
    r = {"forwarder": fw, "routers": n, "offered_pps": offered, "loss_pct": loss,
         "loss_pct_median": loss, "gen_pps": offered if gen is None else gen,
         "rx_pps": offered * (1 - loss / 100), "cpu_ns_per_pkt": 1000.0,
         "lat_p99_us": 50.0, "rtt_ms": 0.1, "cpu1_foreign_pct": 1.0}
    r.update(extra)
    return r


def test_line_summary_takes_the_highest_loss_free_rate_and_marks_bounds():
    pts = [point("kernel", 32, 12500, 0.0, lat_p99_us=20.0),
           point("kernel", 32, 25000, 0.1, cpu_ns_per_pkt=900.0),
           point("kernel", 32, 50000, 30.0),
           point("fastpathd-nodes", 32, 12500, 0.0), point("fastpathd-nodes", 32, 25000, 0.0),
           point("ns3", 32, 12500, 60.0, lat_p99_us=1e5),
           point("xdp", 1, 12500, 0.0), point("xdp", 1, 25000, 0.0, gen=20000.0)]
    tcp = [{"forwarder": "kernel", "routers": 32, "tcp_mbps": 100.0, "tcp_mbps_ci": 5.0}]
    res = {(r["forwarder"], r["routers"]): r for r in line_summary(pts, tcp, 12500)}
    k = res[("kernel", 32)]
    assert k["lossfree_pps"] == 25000 and not k["lossfree_bound"]
    assert k["cpu_ns_per_pkt_lossfree"] == 900.0 and k["lat_p99_us_base"] == 20.0
    assert k["tcp_mbps"] == 100.0
    assert res[("fastpathd-nodes", 32)]["lossfree_bound"] == 1  # nothing lossy found
    assert res[("ns3", 32)]["lossfree_pps"] == 0 and res[("ns3", 32)]["lat_p99_us_base"] == 1e5
    x = res[("xdp", 1)]
    assert x["lossfree_pps"] == 12500 and x["lossfree_gen_limited"] == 1
    # Tables and plot keep the line's order: ns-3 first, fastpathd-nodes last.
    order = [r["forwarder"] for r in line_summary(pts, tcp, 12500)]
    assert order == ["ns3", "kernel", "xdp", "fastpathd-nodes"]
