# SPDX-License-Identifier: GPL-2.0-only
"""The corpus: ns-3 3.37's own examples (Debian's ns3-doc, /usr/share/doc/ns3/examples) whose
channels are point-to-point or CSMA only, and the ones of the same folders that cannot be
emulated, each with the reason. Nothing of an example is copied here: its path, the arguments
both runs get, and how long the measured runs may last.

Fields of an Example:
  path       relative to the examples folder
  emulate    None when it runs both ways, else why it cannot be emulated (shown in the table)
  args       command-line arguments of every run (the same simulated and emulated)
  cap_s      the measured runs stop at min(the simulated run's end, cap_s) seconds
  random_loss  the example sets a RateErrorModel: received counts may differ by chance, so
             losses are checked against the binomial 99 % interval instead of within 2 %
  subset     part of the ctest label `conformance` (the whole corpus is the bench report)
  extra      sources of the example's folder it is built with (tutorial-app.cc)
  seeds      None, or the random draws the emulation cannot share with ns-3's streams: the
             example is compared with the spread of simulated seeds (RngRun 1..k) and the
             compared run must look like one more seed (seeds.py); shown in the docs
  exchangeable  with seeds: the flows of one service (protocol, server port, direction) are
             built alike, so they are compared pooled: their sum, the largest and the smallest
  known      a failure not yet fixed: text its reason contains. --check accepts that failure
             (and only that one); when the example passes, the report says to remove it
"""
from dataclasses import dataclass, field
from typing import Optional

EXAMPLES_DIR = "/usr/share/doc/ns3/examples"


@dataclass(frozen=True)
class Example:
    path: str
    emulate: Optional[str] = None
    args: tuple = ()
    cap_s: float = 30.0
    random_loss: bool = False
    subset: bool = False
    extra: tuple = ()
    seeds: Optional[str] = None
    exchangeable: bool = False
    known: Optional[str] = None

    @property
    def name(self):
        return self.path[:-3] if self.path.endswith(".cc") else self.path


# Ad hoc Wi-Fi runs emulated with FastPathWifiHelper, compared by bench/wifi/ (its mean over
# several random runs: one run of 50 random-waypoint nodes is one draw); this corpus compares
# one run of each wired example.
_WIFI_ADHOC = ("ad hoc Wi-Fi (YansWifiChannelHelper, AdhocWifiMac): emulated with "
               "FastPathWifiHelper and compared by bench/wifi/wifi_conformance.py over "
               "several random runs, not in this wired corpus")
_NO_NET = "no network: no node or channel to emulate"


# Failures not yet fixed (the text their reason contains; the reasons in
# docs/reference/conformance.md, "Why they fail").
# The mean delay of a TCP bulk flow through a router whose FIFO queue disc is on the link:
# the counts agree, the emulated bottleneck runs fuller (tcp-bbr-example,
# tcp-variants-comparison); not analysed further.
_DELAY = "delay mean"
# On a loaded machine a few of udp-client-server's printed per-packet delays (TraceDelay
# lines; the segment hands its frames to the timed devices ahead of their arrival, the
# median is exact) and now and then second's echo over its LAN (its mean delay, _DELAY)
# still come out more than 0.5 ms late, by more than the devices' lead: something waits
# longer than the lead there; not analysed yet.
_SEGMENT_WAKEUP = "TraceDelay"
# third.cc's BSS (StaWifiMac, ApWifiMac) is switched to FastPathWifiHelper, which emulates it,
# but keeps WifiHelper's defaults: 802.11ax rates chosen by IdealWifiManager, which the radio
# medium has neither tables nor rate control for; refused at start, naming the manager.
_WIFI_RATES = "IdealWifiManager"

# Random draws the emulation takes from streams of its own (compared over seeds, seeds.py).
_RED_DRAWS = ("RED's drop draws: the router's RedQueueDisc is the link's RED, which draws "
              "from the link direction's stream in fastpathd, not from ns-3's")
_COBALT_DRAWS = ("COBALT's BLUE drop draws: the router's CobaltQueueDisc is the link's "
                 "COBALT, which draws from fastpathd's stream, not from ns-3's")
_CSMA_BACKOFF = ("a CSMA device's backoff draws: the emulated segment draws the random "
                 "backoff of a busy channel from a stream of its own, not from ns-3's")

CORPUS = (
    # tutorial first-seventh
    Example("tutorial/first.cc", subset=True),
    Example("tutorial/second.cc", subset=True, known=_DELAY),
    Example("tutorial/third.cc", known=_WIFI_RATES),
    Example("tutorial/fourth.cc", emulate=_NO_NET),
    Example("tutorial/fifth.cc", random_loss=True, extra=("tutorial/tutorial-app.cc",)),
    Example("tutorial/sixth.cc", random_loss=True, extra=("tutorial/tutorial-app.cc",)),
    Example("tutorial/seventh.cc", random_loss=True, extra=("tutorial/tutorial-app.cc",)),
    # routing: global, static, RIP, RIPng, multicast
    Example("routing/simple-global-routing.cc", subset=True),
    Example("routing/dynamic-global-routing.cc"),
    Example("routing/global-injection-slash32.cc"),
    Example("routing/global-routing-slash32.cc"),
    # BridgeHelper over emulated CSMA segments: fastpathd's learning bridges.
    Example("routing/global-routing-multi-switch-plus-router.cc", args=("--duration=10",)),
    Example("routing/mixed-global-routing.cc"),
    Example("routing/simple-alternate-routing.cc", cap_s=11.0),
    Example("routing/static-routing-slash32.cc"),
    Example("routing/rip-simple-network.cc", cap_s=131.0),
    Example("routing/ripng-simple-network.cc", cap_s=120.0),
    Example("routing/simple-routing-ping6.cc"),
    Example("routing/simple-multicast-flooding.cc",
            emulate="SimpleNetDeviceHelper/SimpleChannel: no emulating helper for SimpleChannel"),
    Example("routing/manet-routing-compare.cc", emulate=_WIFI_ADHOC),
    # tcp: point-to-point bottlenecks
    Example("tcp/tcp-bulk-send.cc", subset=True),
    Example("tcp/tcp-large-transfer.cc"),
    Example("tcp/tcp-pcap-nanosec-example.cc"),
    Example("tcp/tcp-star-server.cc"),
    Example("tcp/tcp-pacing.cc"),
    Example("tcp/tcp-bbr-example.cc", args=("--stopTime=10s",)),
    Example("tcp/tcp-linux-reno.cc", args=("--stopTime=10s",)),
    Example("tcp/tcp-validation.cc", args=("--stopTime=10s",)),
    Example("tcp/tcp-variants-comparison.cc", args=("--duration=10",), random_loss=True),
    Example("tcp/dctcp-example.cc",
            emulate=("real time cannot keep up: 10 Gbit/s links and 40 TCP senders take ns-3 "
                     "over 3 min of CPU for 5 s simulated, and emulated the same ns-3 "
                     "applications must send in real time")),
    # PointToPointStarHelper and PointToPointDumbbellHelper (red-vs-*) install their links
    # with a copy of the FastPathPointToPointHelper they are given: emulated links.
    Example("tcp/star.cc"),
    # udp, udp-client-server
    Example("udp/udp-echo.cc", subset=True),
    Example("udp-client-server/udp-client-server.cc", subset=True, known=_SEGMENT_WAKEUP),
    # Its per-datagram delays on a CSMA segment: ns-3's random backoff, drawn by the emulated
    # segment from its own stream (compared over seeds: the delays' distribution), and on a
    # loaded machine the segment's hand-over at arrival time (docs/reference/conformance.md).
    Example("udp-client-server/udp-trace-client-server.cc", seeds=_CSMA_BACKOFF),
    # traffic-control
    Example("traffic-control/traffic-control.cc"),
    Example("traffic-control/tbf-example.cc"),
    # Its two TCP flows start in the same nanosecond and split their queueing evenly only
    # while that tie holds: on a loaded machine fastpathd's lateness at the start breaks it
    # (the first ping RTT and the flows' delays differ); it passes on a quiet one.
    Example("traffic-control/queue-discs-benchmark.cc", args=("--simDuration=10",),
            known="V4Ping/Rtt"),
    # Only its first simulation (COBALT) is measured by FlowMonitor and varies with RngRun;
    # the CoDel one after it, and what the example prints, are the same for every seed.
    Example("traffic-control/cobalt-vs-codel.cc", seeds=_COBALT_DRAWS),
    # RedQueueDisc is the link's RED (aqm red) and its statistics come from fastpathd's
    # counts: the drop counts and the ten TCP flows' shares follow RED's random draws, so
    # they are compared with the spread of simulated seeds.
    # Its ten TCP flows run between alike leaves of a dumbbell and start together: which of
    # them RED's draws favour changes with the seed (the largest gets 567 to 928 packets
    # over RngRun 1..8, a given one 201 to 889), so they are compared pooled.
    Example("traffic-control/red-vs-fengadaptive.cc", seeds=_RED_DRAWS, exchangeable=True),
    Example("traffic-control/red-vs-nlred.cc", seeds=_RED_DRAWS, exchangeable=True),
)


def find(names):
    """The examples named (path or name, e.g. tutorial/first), in corpus order."""
    wanted = set(names)
    found = [e for e in CORPUS if e.path in wanted or e.name in wanted
             or e.name.split("/")[-1] in wanted]
    missing = wanted - {x for e in found for x in (e.path, e.name, e.name.split("/")[-1])}
    if missing:
        raise KeyError("not in the corpus: " + ", ".join(sorted(missing)))
    return found
