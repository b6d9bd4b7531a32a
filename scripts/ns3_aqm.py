#!/usr/bin/env python3
"""ns-3's CoDel or PIE against dropless's on the same dumbbell (issue 35, item 5).

Four bulk NewReno flows (starts 0, 0.5, 1, 1.5 s) through a 50 Mb/s link of
18 ms behind 1 ms access links on each side (RTT 40 ms), the bottleneck's
queue CoDel (target 5 ms, interval 100 ms; --queue codel) or PIE (RFC 8033's
parameters, derandomized; --queue pie) with a 333-packet limit (two BDPs),
1500-byte IP packets (1448 bytes of payload plus 52 of IP/TCP headers with
timestamps; dropless: 1460 + 40), drops (no ECN). The bottleneck device's own
queue holds one packet, so the queue is CoDel's.

ns-3 runs twice: at its defaults (delayed ACKs, one ACK per two segments, with
NewReno's congestion avoidance growing per ACK rather than per segment
acknowledged) and matched (an ACK per segment). Reported over the second half
of the run: the time-averaged queue (packets and ms), CoDel's drop rate per
packet offered (drops and marks: no ECN here, so drops), the aggregate goodput; and the mean sojourn time of the
packets dequeued over the whole run.

Needs the ns3 Python wheel (pip install ns3; ns-3.44) and a release build of
dropless (cargo build --release). Run from the repository root:

    python3 scripts/ns3_aqm.py [--queue codel|pie] [--duration 20] [--dropless target/release/dropless]

It prints a Markdown table. Not part of CI (.ci/run does not need ns-3).
"""

import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile

RATE_BPS = 50e6
EXPERIMENT = {"codel": "experiments/aqm/codel-sojourn.toml", "pie": "experiments/aqm/pie-delay.toml"}
WIRE = 1500


def ns3_run(duration, del_ack_count, queue="codel"):
    from ns import ns  # the ns3 wheel

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
uint64_t drops_half = 0, arrivals_half = 0;
void Half() {
  Packets(0, last_q);
  area_half = area;
  drops_half = qd->GetStats().nTotalDroppedPackets;
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

    ns.Config.SetDefault("ns3::TcpL4Protocol::SocketType", ns.StringValue("ns3::TcpNewReno"))
    ns.Config.SetDefault("ns3::TcpSocket::SegmentSize", ns.UintegerValue(1448))
    ns.Config.SetDefault("ns3::TcpSocket::DelAckCount", ns.UintegerValue(del_ack_count))
    ns.Config.SetDefault("ns3::TcpSocket::SndBufSize", ns.UintegerValue(1 << 24))
    ns.Config.SetDefault("ns3::TcpSocket::RcvBufSize", ns.UintegerValue(1 << 24))

    access = ns.PointToPointHelper()
    access.SetDeviceAttribute("DataRate", ns.StringValue("1Gbps"))
    access.SetChannelAttribute("Delay", ns.StringValue("1ms"))
    bott = ns.PointToPointHelper()
    bott.SetDeviceAttribute("DataRate", ns.StringValue("50Mbps"))
    bott.SetChannelAttribute("Delay", ns.StringValue("18ms"))
    bott.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", ns.QueueSizeValue(ns.QueueSize("1p")))
    d = ns.PointToPointDumbbellHelper(4, access, 4, access, bott)
    stack = ns.InternetStackHelper()
    d.InstallStack(stack)

    tch = ns.TrafficControlHelper()
    if queue == "codel":
        tch.SetRootQueueDisc(
            "ns3::CoDelQueueDisc",
            "MaxSize", ns.QueueSizeValue(ns.QueueSize("333p")),
            "Target", ns.StringValue("5ms"),
            "Interval", ns.StringValue("100ms"),
        )
    else:
        # RFC 8033's parameters; ns-3's PIE derandomizes only when asked
        # (dropless always does, as Linux), so it is asked.
        tch.SetRootQueueDisc(
            "ns3::PieQueueDisc",
            "MaxSize", ns.QueueSizeValue(ns.QueueSize("333p")),
            "QueueDelayReference", ns.TimeValue(ns.MilliSeconds(15)),
            "Tupdate", ns.TimeValue(ns.MilliSeconds(15)),
            "MaxBurstAllowance", ns.TimeValue(ns.MilliSeconds(150)),
            "UseDerandomization", ns.BooleanValue(True),
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
    for i in range(4):
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
        a.Start(ns.Seconds(0.5 * i))
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
    total_rx = [p2.sinks[i].GetTotalRx() for i in range(4)]
    half = duration / 2
    q = (probe.area - probe.area_half) / half
    drops = st.nTotalDroppedPackets - probe.drops_half
    arrivals = st.nTotalReceivedPackets - probe.arrivals_half
    goodput = sum(t - h for t, h in zip(total_rx, p2.half)) * 8 / half
    ns.Simulator.Destroy()
    return {
        "queue_pkts": q,
        "queue_ms": q * WIRE * 8 / RATE_BPS * 1e3,
        "drop_rate": drops / arrivals if arrivals else float("nan"),
        "goodput_mbps": goodput / 1e6,
        "sojourn_ms": probe.sojourn_sum / probe.sojourns * 1e3 if probe.sojourns else float("nan"),
    }


def dropless_run(duration, exe, queue="codel"):
    out = tempfile.mkdtemp(prefix="ns3-codel-")
    subprocess.run(
        [exe, "run", EXPERIMENT[queue], "-o", out, "-f",
         "--set", f"duration={duration}s"],
        check=True, stdout=subprocess.DEVNULL,
    )
    summary = json.load(open(os.path.join(out, "summary.json")))
    half = duration / 2
    rows = [r for r in csv.DictReader(open(os.path.join(out, "links.csv"))) if r["link"] == "0"]
    late = [r for r in rows if float(r["t_s"]) > half]
    q = sum(float(r["avg_queue_pkts"]) for r in late) / len(late)
    first = max((r for r in rows if float(r["t_s"]) <= half), key=lambda r: float(r["t_s"]))
    last = rows[-1]
    d = lambda k: float(last[k]) - float(first[k])
    drops = d("aqm_drops") + d("drops")
    arrivals = d("departed") + drops
    flows = [r for r in csv.DictReader(open(os.path.join(out, "flows.csv"))) if float(r["t_s"]) > half]
    per_t = {}
    for r in flows:
        per_t[r["t_s"]] = per_t.get(r["t_s"], 0.0) + float(r["goodput_bps"] or 0)
    goodput = sum(per_t.values()) / len(per_t)
    link = summary["bottlenecks"][0]
    return {
        "queue_pkts": q,
        "queue_ms": q * WIRE * 8 / RATE_BPS * 1e3,
        "drop_rate": drops / arrivals if arrivals else float("nan"),
        "goodput_mbps": goodput / 1e6,
        "sojourn_ms": link.get("mean_sojourn_s", float("nan")) * 1e3,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--duration", type=float, default=20.0)
    ap.add_argument("--dropless", default="target/release/dropless")
    ap.add_argument("--queue", choices=["codel", "pie"], default="codel")
    ap.add_argument("--ns3-one", type=int, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.ns3_one is not None:
        # One ns-3 run per process: ns-3's node list outlives Simulator::Destroy.
        print(json.dumps(ns3_run(a.duration, a.ns3_one, a.queue)))
        return 0

    def ns3(del_ack):
        out = subprocess.run(
            [sys.executable, __file__, "--duration", str(a.duration), "--queue", a.queue,
             "--ns3-one", str(del_ack)],
            check=True, capture_output=True, text=True,
        ).stdout
        return json.loads(out.strip().splitlines()[-1])

    rows = [
        ("dropless (ACK per packet)", dropless_run(int(a.duration), a.dropless, a.queue)),
        ("ns-3 defaults (delayed ACKs)", ns3(2)),
        ("ns-3, ACK per segment", ns3(1)),
    ]
    name = {"codel": "CoDel", "pie": "PIE"}[a.queue]
    print(f"{name}, 4 NewReno flows, 50 Mb/s, RTT 40 ms, {a.duration:g} s; second half except the sojourn\n")
    print("| simulator | mean queue, pkts | queue delay, ms | drop rate per packet | goodput, Mb/s | mean sojourn (whole run), ms |")
    print("|---|---|---|---|---|---|")
    for name, r in rows:
        print(f"| {name} | {r['queue_pkts']:.1f} | {r['queue_ms']:.2f} | {r['drop_rate']:.5f} | "
              f"{r['goodput_mbps']:.2f} | {r['sojourn_ms']:.2f} |")


if __name__ == "__main__":
    sys.exit(main())
