#!/usr/bin/env python3
"""ns-3's CoDel, PIE, RED or DCTCP against dropless's on the same dumbbell (issue 35, item 5).

Each --queue runs its experiment's load (SETUPS below) in dropless and the
same dumbbell in ns-3 (access links each side of the bottleneck, the
bottleneck device's own queue one packet so the queue is the queue disc's):

* codel, pie: four bulk NewReno flows (starts 0, 0.5, 1, 1.5 s), 50 Mb/s,
  RTT 40 ms, a 333-packet limit, drops; ns-3's CoDelQueueDisc (5 ms, 100 ms)
  or PieQueueDisc (RFC 8033's parameters, derandomized).
* red: red-operating-point.toml's 30 NewReno flows (staggered 0.1 s),
  100 Mb/s, RTT 100 ms, RED 100/300 packets, gentle, 2000-packet limit,
  drops, at max_p 0.002 (the experiment's) and 0.1 (RED's default); ns-3 at
  its defaults (delayed ACKs, PRR, Wait, QW 0.002) and matched (an ACK per
  segment, classic recovery, no Wait, dropless's automatic weight).
* dctcp: dctcp-step.toml's 10 DCTCP flows, 1 Gb/s, RTT 1 ms, step marking at
  K = 20 (ns-3: TcpDctcp behind RED with QW 1 and MinTh = MaxTh = 21, ECN
  marks instead of forced drops).

1500-byte IP packets (ns-3: 1448 bytes of payload plus 52 of IP/TCP headers
with timestamps; dropless: 1460 + 40). For codel, pie and dctcp ns-3 runs at
its defaults (delayed ACKs, one ACK per two segments, with NewReno growing
per ACK rather than per segment acknowledged) and with an ACK per segment.
Reported over the second half of the run: the time-averaged queue (packets
and ms), the drop-or-mark rate per packet offered, the aggregate goodput
(also per 1460-byte payload); and the mean sojourn of the packets dequeued
over the whole run.

Needs the ns3 Python wheel (pip install ns3; ns-3.44) and a release build of
dropless (cargo build --release). Run from the repository root:

    python3 scripts/ns3_aqm.py [--queue codel|pie|red|dctcp] [--duration S] [--dropless target/release/dropless]

It prints Markdown tables. Not part of CI (.ci/run does not need ns-3).
"""

import argparse
import csv
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

WIRE = 1500

# The loads: each names its dropless experiment and the dumbbell ns-3 builds
# for it (RTT = 2 (access + bottleneck + access)).
SETUPS = {
    "codel": dict(experiment="experiments/aqm/codel-sojourn.toml", rate="50Mbps", rate_bps=50e6,
                  delay="18ms", access="1Gbps", access_delay="1ms", flows=4, stagger=0.5,
                  cc="ns3::TcpNewReno", limit=333, duration=20.0),
    "pie": dict(experiment="experiments/aqm/pie-delay.toml", rate="50Mbps", rate_bps=50e6,
                delay="18ms", access="1Gbps", access_delay="1ms", flows=4, stagger=0.5,
                cc="ns3::TcpNewReno", limit=333, duration=20.0),
    # red-operating-point.toml: 30 NewReno flows staggered 0.1 s, 100 Mb/s,
    # RTT 100 ms, RED 100/300 packets, a 2000-packet buffer.
    "red": dict(experiment="experiments/aqm/red-operating-point.toml", rate="100Mbps",
                rate_bps=100e6, delay="48ms", access="1Gbps", access_delay="1ms", flows=30,
                stagger=0.1, cc="ns3::TcpNewReno", limit=2000, duration=60.0),
    # dctcp-step.toml: 10 DCTCP flows, 1 Gb/s, RTT 1 ms, K = 20, 1000 packets.
    "dctcp": dict(experiment="experiments/aqm/dctcp-step.toml", rate="1Gbps", rate_bps=1e9,
                  delay="300us", access="10Gbps", access_delay="100us", flows=10, stagger=0.0,
                  cc="ns3::TcpDctcp", limit=1000, duration=10.0),
}


def ns3_run(queue, duration, knobs):
    """One ns-3 run of `queue`'s load; `knobs`: del_ack (segments per ACK),
    recovery ("prr", ns-3's default, or "classic"), and for RED max_p, wait
    (ns-3's Wait) and qw (0: ns-3's default 0.002; otherwise the weight)."""
    from ns import ns  # the ns3 wheel

    su = SETUPS[queue]
    cppyy = ns.cppyy
    cppyy.cppdef(
            r"""
namespace aqm_probe {
double sojourn_sum = 0; uint64_t sojourns = 0;
double half = 0; double area = 0; double last_t = 0; uint32_t last_q = 0;
double area_half = 0;
ns3::Ptr<ns3::QueueDisc> qd;
void Sojourn(ns3::Time t) { sojourn_sum += t.GetSeconds(); sojourns++; }
void Packets(uint32_t, uint32_t q) {
  double now = ns3::Simulator::Now().GetSeconds();
  area += last_q * (now - last_t);
  last_t = now; last_q = q;
}
uint64_t drops_half = 0, marks_half = 0, arrivals_half = 0;
void Half() {
  Packets(0, last_q);
  area_half = area;
  drops_half = qd->GetStats().nTotalDroppedPackets;
  marks_half = qd->GetStats().nTotalMarkedPackets;
  arrivals_half = qd->GetStats().nTotalReceivedPackets;
}
void Connect(ns3::Ptr<ns3::QueueDisc> q, double at) {
  qd = q; half = at;
  q->TraceConnectWithoutContext("SojournTime", ns3::MakeCallback(&Sojourn));
  q->TraceConnectWithoutContext("PacketsInQueue", ns3::MakeCallback(&Packets));
  ns3::Simulator::Schedule(ns3::Seconds(at), &Half);
}
void Reset() { sojourn_sum = 0; sojourns = 0; area = 0; last_t = 0; last_q = 0; area_half = 0; }
}
"""
        )
    probe = cppyy.gbl.aqm_probe
    probe.Reset()

    n = su["flows"]
    ns.Config.SetDefault("ns3::TcpL4Protocol::SocketType", ns.StringValue(su["cc"]))
    if knobs.get("recovery") == "classic":
        ns.Config.SetDefault("ns3::TcpL4Protocol::RecoveryType",
                             ns.TypeIdValue(ns.TypeId.LookupByName("ns3::TcpClassicRecovery")))
    if knobs.get("sack") is False:
        ns.Config.SetDefault("ns3::TcpSocketBase::Sack", ns.BooleanValue(False))
    ns.Config.SetDefault("ns3::TcpSocket::SegmentSize", ns.UintegerValue(1448))
    ns.Config.SetDefault("ns3::TcpSocket::DelAckCount", ns.UintegerValue(knobs["del_ack"]))
    ns.Config.SetDefault("ns3::TcpSocket::SndBufSize", ns.UintegerValue(1 << 24))
    ns.Config.SetDefault("ns3::TcpSocket::RcvBufSize", ns.UintegerValue(1 << 24))

    access = ns.PointToPointHelper()
    access.SetDeviceAttribute("DataRate", ns.StringValue(su["access"]))
    access.SetChannelAttribute("Delay", ns.StringValue(su["access_delay"]))
    bott = ns.PointToPointHelper()
    bott.SetDeviceAttribute("DataRate", ns.StringValue(su["rate"]))
    bott.SetChannelAttribute("Delay", ns.StringValue(su["delay"]))
    bott.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", ns.QueueSizeValue(ns.QueueSize("1p")))
    d = ns.PointToPointDumbbellHelper(n, access, n, access, bott)
    stack = ns.InternetStackHelper()
    d.InstallStack(stack)

    tch = ns.TrafficControlHelper()
    limit = ns.QueueSizeValue(ns.QueueSize(f"{su['limit']}p"))
    if queue == "codel":
        tch.SetRootQueueDisc(
            "ns3::CoDelQueueDisc",
            "MaxSize", limit,
            "Target", ns.StringValue("5ms"),
            "Interval", ns.StringValue("100ms"),
        )
    elif queue == "pie":
        # RFC 8033's parameters; ns-3's PIE derandomizes only when asked
        # (dropless always does, as Linux), so it is asked.
        tch.SetRootQueueDisc(
            "ns3::PieQueueDisc",
            "MaxSize", limit,
            "QueueDelayReference", ns.TimeValue(ns.MilliSeconds(15)),
            "Tupdate", ns.TimeValue(ns.MilliSeconds(15)),
            "MaxBurstAllowance", ns.TimeValue(ns.MilliSeconds(150)),
            "UseDerandomization", ns.BooleanValue(True),
        )
    elif queue == "red":
        # The experiment's thresholds and max_p (ns-3's own defaults, 5/15
        # packets and max_p 0.02, would be another operating point); Wait
        # and the weight at ns-3's defaults or matched to dropless's (no
        # Wait, w_q = 1 - exp(-1/C), C in packets per second).
        tch.SetRootQueueDisc(
            "ns3::RedQueueDisc",
            "MaxSize", limit,
            "MinTh", ns.DoubleValue(100),
            "MaxTh", ns.DoubleValue(300),
            "LInterm", ns.DoubleValue(1.0 / knobs["max_p"]),
            "Gentle", ns.BooleanValue(True),
            "Wait", ns.BooleanValue(knobs["wait"]),
            "QW", ns.DoubleValue(knobs["qw"] or 0.002),
            "MeanPktSize", ns.UintegerValue(WIRE),
            "LinkBandwidth", ns.DataRateValue(ns.DataRate(su["rate"])),
            "LinkDelay", ns.TimeValue(ns.Time(su["delay"])),
        )
    else:
        # DCTCP's step (RFC 8257 §3.1) as ns-3's DCTCP example builds it: RED
        # on the instantaneous queue (QW 1) with both thresholds at one value
        # and ECN marks instead of forced drops. ns-3 marks when the queue
        # before the arrival is at least MinTh, dropless when more than K = 20
        # packets wait: MinTh = 21.
        tch.SetRootQueueDisc(
            "ns3::RedQueueDisc",
            "MaxSize", limit,
            "MinTh", ns.DoubleValue(21),
            "MaxTh", ns.DoubleValue(21),
            "QW", ns.DoubleValue(1.0),
            "Gentle", ns.BooleanValue(False),
            "UseEcn", ns.BooleanValue(True),
            "UseHardDrop", ns.BooleanValue(False),
            "MeanPktSize", ns.UintegerValue(WIRE),
            "LinkBandwidth", ns.DataRateValue(ns.DataRate(su["rate"])),
            "LinkDelay", ns.TimeValue(ns.Time(su["delay"])),
        )
    left_router_dev = d.GetLeft().GetDevice(0)
    qdiscs = tch.Install(ns.NetDeviceContainer(left_router_dev))
    d.AssignIpv4Addresses(
        ns.Ipv4AddressHelper("10.1.1.0", "255.255.255.0"),
        ns.Ipv4AddressHelper("10.2.1.0", "255.255.255.0"),
        ns.Ipv4AddressHelper("10.3.1.0", "255.255.255.0"),
    )
    ns.Ipv4GlobalRoutingHelper.PopulateRoutingTables()
    probe.Connect(qdiscs.Get(0), duration / 2)

    sinks = []
    port = 5000
    for i in range(n):
        sink = ns.PacketSinkHelper(
            "ns3::TcpSocketFactory",
            ns.InetSocketAddress(ns.Ipv4Address.GetAny(), port + i).ConvertTo(),
        )
        apps = sink.Install(d.GetRight(i))
        apps.Start(ns.Seconds(0))
        sinks.append(apps.Get(0))
        src = ns.BulkSendHelper(
            "ns3::TcpSocketFactory",
            ns.InetSocketAddress(d.GetRightIpv4Address(i), port + i).ConvertTo(),
        )
        src.SetAttribute("MaxBytes", ns.UintegerValue(0))
        a = src.Install(d.GetLeft(i))
        a.Start(ns.Seconds(su["stagger"] * i))
    cppyy.cppdef(
        r"""
namespace aqm_probe2 {
std::vector<ns3::Ptr<ns3::PacketSink>> sinks; std::vector<uint64_t> half;
void Half() { half.clear(); for (auto &s : sinks) half.push_back(s->GetTotalRx()); }
}
"""
    )
    p2 = cppyy.gbl.aqm_probe2
    p2.sinks.clear()
    for s in sinks:
        p2.sinks.push_back(s.GetObject[ns.PacketSink]())
    ns.Simulator.Schedule(ns.Seconds(duration / 2), p2.Half)
    ns.Simulator.Stop(ns.Seconds(duration))
    ns.Simulator.Run()
    probe.Packets(0, probe.last_q)
    st = qdiscs.Get(0).GetStats()
    total_rx = [p2.sinks[i].GetTotalRx() for i in range(n)]
    half = duration / 2
    q = (probe.area - probe.area_half) / half
    drops = st.nTotalDroppedPackets - probe.drops_half
    marks = st.nTotalMarkedPackets - probe.marks_half
    arrivals = st.nTotalReceivedPackets - probe.arrivals_half
    goodput = sum(t - h for t, h in zip(total_rx, p2.half)) * 8 / half
    ns.Simulator.Destroy()
    return {
        "queue_pkts": q,
        "queue_ms": q * WIRE * 8 / su["rate_bps"] * 1e3,
        "drop_rate": (drops + marks) / arrivals if arrivals else float("nan"),
        "goodput_mbps": goodput / 1e6,
        # per byte of payload: ns-3's 1448 against dropless's 1460
        "goodput_adj_mbps": goodput / 1e6 * 1460 / 1448,
        "sojourn_ms": probe.sojourn_sum / probe.sojourns * 1e3 if probe.sojourns else float("nan"),
    }


def dropless_run(queue, duration, exe, sets=()):
    su = SETUPS[queue]
    out = tempfile.mkdtemp(prefix="ns3-aqm-")
    args = [exe, "run", su["experiment"], "-o", out, "-f", "--set", f"duration={duration:g}s"]
    for kv in sets:
        args += ["--set", kv]
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
    summary = json.load(open(os.path.join(out, "summary.json")))
    half = duration / 2
    rows = [r for r in csv.DictReader(open(os.path.join(out, "links.csv"))) if r["link"] == "0"]
    late = [r for r in rows if float(r["t_s"]) > half]
    q = sum(float(r["avg_queue_pkts"]) for r in late) / len(late)
    first = max((r for r in rows if float(r["t_s"]) <= half), key=lambda r: float(r["t_s"]))
    last = rows[-1]
    d = lambda k: float(last[k]) - float(first[k])
    drops = d("aqm_drops") + d("drops")
    marks = d("marks")
    arrivals = d("departed") + drops
    flows = [r for r in csv.DictReader(open(os.path.join(out, "flows.csv"))) if float(r["t_s"]) > half]
    per_t = {}
    for r in flows:
        per_t[r["t_s"]] = per_t.get(r["t_s"], 0.0) + float(r["goodput_bps"] or 0)
    goodput = sum(per_t.values()) / len(per_t)
    link = summary["bottlenecks"][0]
    shutil.rmtree(out, ignore_errors=True)
    return {
        "queue_pkts": q,
        "queue_ms": q * WIRE * 8 / su["rate_bps"] * 1e3,
        "drop_rate": (drops + marks) / arrivals if arrivals else float("nan"),
        "goodput_mbps": goodput / 1e6,
        "goodput_adj_mbps": goodput / 1e6,
        "sojourn_ms": link.get("mean_sojourn_s", float("nan")) * 1e3,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--duration", type=float, help="seconds (default: the load's own, see SETUPS)")
    ap.add_argument("--dropless", default="target/release/dropless")
    ap.add_argument("--queue", choices=sorted(SETUPS), default="codel")
    ap.add_argument("--ns3-one", help=argparse.SUPPRESS)
    a = ap.parse_args()
    duration = a.duration or SETUPS[a.queue]["duration"]
    if a.ns3_one is not None:
        # One ns-3 run per process: ns-3's node list outlives Simulator::Destroy.
        print(json.dumps(ns3_run(a.queue, duration, json.loads(a.ns3_one))))
        return 0

    def ns3(**knobs):
        out = subprocess.run(
            [sys.executable, __file__, "--duration", str(duration), "--queue", a.queue,
             "--ns3-one", json.dumps(knobs)],
            check=True, capture_output=True, text=True,
        ).stdout
        return json.loads(out.strip().splitlines()[-1])

    su = SETUPS[a.queue]
    if a.queue == "red":
        # dropless's automatic weight: 1 - exp(-1 / C), C in packets per second.
        qw = 1.0 - math.exp(-1.0 / (su["rate_bps"] / (8 * WIRE)))
        blocks = []
        for max_p, label in [(0.002, "max_p 0.002 (the experiment's stable operating point)"),
                             (0.1, "max_p 0.1 (RED's default, Floyd's recommendation and dropless's)")]:
            blocks.append((label, [
                ("dropless (ACK per packet, no Wait)",
                 dropless_run(a.queue, duration, a.dropless, [f"topology.bottleneck.red_max_p={max_p}"])),
                ("ns-3 defaults (delayed ACKs, PRR, Wait, QW 0.002)",
                 ns3(del_ack=2, recovery="prr", max_p=max_p, wait=True, qw=0)),
                ("ns-3 matched (ACK per segment, classic recovery, no Wait, dropless's w_q)",
                 ns3(del_ack=1, recovery="classic", max_p=max_p, wait=False, qw=qw)),
            ]))
    else:
        blocks = [("", [
            ("dropless (ACK per packet)", dropless_run(a.queue, duration, a.dropless)),
            ("ns-3 defaults (delayed ACKs)", ns3(del_ack=2)),
            ("ns-3, ACK per segment", ns3(del_ack=1)),
        ])]
    name = {"codel": "CoDel", "pie": "PIE", "red": "RED", "dctcp": "DCTCP, step marking"}[a.queue]
    cc = su["cc"].split("Tcp")[-1]
    print(f"{name}, {su['flows']} {cc} flows, {su['rate']}, {duration:g} s; second half except the sojourn\n")
    for label, rows in blocks:
        if label:
            print(f"{label}:\n")
        print("| simulator | mean queue, pkts | queue delay, ms | drop/mark rate per packet | goodput, Mb/s "
              "| goodput per 1460-byte payload, Mb/s | mean sojourn (whole run), ms |")
        print("|---|---|---|---|---|---|---|")
        for rname, r in rows:
            print(f"| {rname} | {r['queue_pkts']:.1f} | {r['queue_ms']:.2f} | {r['drop_rate']:.5f} | "
                  f"{r['goodput_mbps']:.2f} | {r['goodput_adj_mbps']:.2f} | {r['sojourn_ms']:.2f} |")
        print()


if __name__ == "__main__":
    sys.exit(main())
