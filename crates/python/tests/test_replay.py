"""simpi.replay: end times against hand-derived values (the derivation beside each),
SimGrid's own replay of a recorded trace, and the command line's output as a cross-check."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

import simpi
from conftest import OSU_ALLREDUCE, OTF2_HANDWRITTEN, THESIS, cli, host_lines, ping_goal

# LogGOPSim's defaults, in ns: L=2500 o=1500 g=1000 G=6 O=0 S=65535.
L, o, G = 2500, 1500, 6


def test_thesis_example_ends_at_5654_ns_on_both_ranks():
    # Both ranks compute 100 ns, then send 10 B to each other: the send costs o, the
    # message L + (10-1)G on the wire, the receive o: 100 + 1500 + 2500 + 54 + 1500.
    res = simpi.replay(str(THESIS))
    assert res.makespan_ps == 5_654_000
    assert res.makespan == 5.654e-6
    assert list(res.ranks["rank"]) == [0, 1]
    assert list(res.ranks["end_ps"]) == [5_654_000, 5_654_000]
    assert list(res.ranks["end"]) == [5.654e-6, 5.654e-6]
    # Each rank's send ends after the compute and its overhead: 100 + 1500 = 1600 ns.
    sends = res.spans[res.spans["call"] == "send"]
    assert list(sends["end"]) == [1.6e-6, 1.6e-6]
    # LogGOPSim's event count: 6 operations and 2 messages.
    assert (res.operations, res.events) == (6, 8)


def test_thesis_breakdown_adds_up_and_calls_are_counted():
    res = simpi.replay(THESIS)  # a Path works as well as a str
    r = res.ranks
    assert list(r.columns) == ["rank", "end", "end_ps", "compute", "communication", "waiting", "idle"]
    assert list(r["compute"]) == [1e-7, 1e-7]
    total = r["compute"] + r["communication"] + r["waiting"] + r["idle"]
    assert total.tolist() == pytest.approx(r["end"].tolist(), abs=1e-15)
    calls = res.calls.set_index("call")
    assert calls.loc["send", "count"] == 2 and calls.loc["recv", "count"] == 2
    assert calls.loc["compute", "total"] == pytest.approx(2e-7)
    # The receives run from 0 to the end: 2 x 5654 ns.
    assert calls.loc["recv", "total"] == pytest.approx(2 * 5.654e-6)
    assert calls.loc["recv", "max"] == pytest.approx(5.654e-6)


def test_report_false_keeps_the_end_times_only():
    res = simpi.replay(THESIS, report=False)
    assert list(res.ranks.columns) == ["rank", "end", "end_ps"]
    assert res.calls.empty and res.spans.empty
    assert res.makespan_ps == 5_654_000


@pytest.mark.parametrize("size", [1, 10, 1000, 65535])
def test_eager_ping_is_l_plus_2o_plus_size_minus_1_g(ping, size):
    # Eager (size <= S): the sender is busy o; the receiver ends at o + L + (size-1)G + o.
    res = simpi.replay(ping(size))
    assert list(res.ranks["end_ps"]) == [o * 1000, (L + 2 * o + (size - 1) * G) * 1000]


def test_loggops_parameters_and_time_unit(ping):
    # L=100 o=10 G=2 in microseconds: 100 + 2*10 + 999*2 = 2118 us for 1000 B.
    res = simpi.replay(ping(1000), L=100, o=10, g=5, G=2, O=0, time_unit="us")
    assert list(res.ranks["end_ps"]) == [10 * 10**6, 2118 * 10**6]
    assert res.makespan == pytest.approx(2118e-6, rel=1e-15)
    assert res.time_unit == "us"


def test_pattern_of_one_message_is_the_ping(ping):
    # A 2-rank binomial broadcast is one message from rank 0 to rank 1.
    res = simpi.replay(simpi.pattern("binomial-bcast", ranks=2, bytes=1000))
    assert list(res.ranks["end_ps"]) == [o * 1000, (L + 2 * o + 999 * G) * 1000]
    same = simpi.replay(pattern="binomial-bcast", ranks=2, bytes=1000)
    assert list(same.ranks["end_ps"]) == list(res.ranks["end_ps"])


def test_pattern_matches_the_command_line():
    # Cross-check only: the CLI runs the same facade code.
    res = simpi.replay(pattern="rd-allreduce", ranks=16, bytes=1024, iterations=2, compute=500)
    out = cli("replay", "--pattern", "rd-allreduce", "--ranks", "16", "--bytes", "1024",
              "--iterations", "2", "--compute", "500", "--format", "loggopsim")
    assert out.returncode == 0, out.stderr
    assert [t * 1000 for t in host_lines(out.stdout)] == list(res.ranks["end_ps"])


def test_constant_model_rendezvous_waits_for_the_receive(tmp_path):
    # SMPI's protocol: the 1 MB send is a rendezvous; rank 1 computes 20 us before
    # posting its receive, so the message takes 20..25 us and both ranks end at 25 us;
    # the 1 B send is detached.
    goal = tmp_path / "rdv.goal"
    goal.write_text(
        "num_ranks 2\n"
        "rank 0 { l1: send 1000000b to 1 tag 0\nl2: send 1b to 1 tag 1 }\n"
        "rank 1 { l1: calc 20\nl2: recv 1000000b from 0 tag 0\nl3: recv 1b from 0 tag 1\n"
        "l2 requires l1\nl3 requires l1 }\n"
    )
    res = simpi.replay(goal, model="constant", constant_time="5us", time_unit="us")
    assert list(res.ranks["end_ps"]) == [25 * 10**6, 25 * 10**6]
    # A bare number is seconds, as on the command line.
    again = simpi.replay(goal, model="constant", constant_time=5e-6, time_unit="us")
    assert list(again.ranks["end_ps"]) == [25 * 10**6, 25 * 10**6]


PLATFORM = """routing = "full"
[[host]]
name = "a"
[[host]]
name = "b"
[[link]]
name = "l"
bandwidth = "1GBps"
latency = "10us"
sharing = "fatpipe"
[[route]]
src = "a"
dst = "b"
links = ["l"]
"""


@pytest.mark.parametrize(
    "changes, end_us",
    [
        # The link's latency, then 1 MB at 1 GB/s: 10 + 1000 us.
        ({}, 1010),
        # Half the bandwidth for messages above 0 B: 10 + 2000 us.
        ({"bw_factor": {0: 0.5}}, 2010),
        # Twice the latency, in SimGrid's syntax: 20 + 1000 us.
        ({"lat_factor": "0:2"}, 1020),
    ],
)
def test_flow_model_on_a_toml_platform(ping, tmp_path, changes, end_us):
    platform = tmp_path / "two.toml"
    platform.write_text(PLATFORM)
    res = simpi.replay(ping(1_000_000), model="flow", platform=platform, **changes)
    # The flow model's sends are detached: rank 0 is done at once.
    assert list(res.ranks["end_ps"]) == [0, end_us * 10**6]


def test_simgrid_trace_replays_as_simgrid_replays_it():
    # SimGrid 3.32's replay of this OSU allreduce trace took 0.291748 s (printed with 6
    # decimals); the same algorithms are forced, as algorithms.txt lists them.
    algos = dict(a.split(":")[0].split("=") for a in (OSU_ALLREDUCE / "algorithms.txt").read_text().split())
    res = simpi.replay(OSU_ALLREDUCE / "trace.txt", model="hybrid", platform=OSU_ALLREDUCE / "platform.xml", coll=algos)
    want = float((OSU_ALLREDUCE / "expected.txt").read_text())
    assert abs(res.makespan - want) <= 5e-7 + 1e-6 * want
    assert len(res.ranks) == 8
    # A trace's table has its MPI calls.
    assert "allreduce" in set(res.calls["call"])
    # The command-line syntax of coll, and format given: the same run.
    same = simpi.replay(OSU_ALLREDUCE / "trace.txt", format="tit", platform=OSU_ALLREDUCE / "platform.xml",
                        coll=[f"{k}={v}" for k, v in algos.items()], report=False)
    assert same.makespan_ps == res.makespan_ps


def test_otf2_trace_ends_when_derived_by_hand():
    # tests/golden/otf2/handwritten/make.py derives these end times by hand under LogGOPS
    # L=1000 o=100 g=0 G=0 O=0 ns: computations from the trace's timestamps, a
    # ping-pong, a bcast on a two-rank communicator.
    res = simpi.replay(OTF2_HANDWRITTEN / "traces.otf2", L=1000, o=100, g=0, G=0, O=0, coll_selector="first")
    assert list(res.ranks["end_ps"]) == [28_200_000, 26_300_000, 12_100_000]
    # Calls that add operations are in the table (a wait adds none).
    assert {"MPI_Send", "MPI_Recv", "MPI_Isend", "MPI_Bcast", "compute"} <= set(res.calls["call"])
    same = simpi.replay(OTF2_HANDWRITTEN / "traces.otf2", format="otf2", L=1000, o=100, g=0, G=0, O=0,
                        coll_selector="first", report=False)
    assert same.makespan_ps == res.makespan_ps


def test_timeline_is_written(tmp_path):
    out = tmp_path / "t.json"
    simpi.replay(THESIS, timeline=out, timeline_ranks="1")
    events = json.loads(out.read_text())["traceEvents"]
    spans = [e for e in events if e.get("ph") == "X"]
    # Rank 1's compute, send and receive.
    assert sorted(e["name"] for e in spans) == ["compute", "recv", "send"]


def test_listings():
    p = simpi.patterns()
    assert "rd-allreduce" in set(p["pattern"]) and "stencil3d" in set(p["pattern"])
    a = simpi.algorithms()
    assert ((a["collective"] == "allreduce") & (a["algorithm"] == "rdb")).any()
    assert isinstance(a, pd.DataFrame)


def test_stochastic_model_takes_the_drawn_times(tmp_path):
    # 10-byte messages: 2 us alone, 4 us beside another (point masses half a ps wide).
    # The thesis exchange after 100 ns of compute: one message alone, one beside it, so
    # the ranks end at 2.1 and 4.1 us whatever the seed.
    d = tmp_path / "stepped.dist"
    d.write_text("unit ps\ndist 10 1\nbucket 2000000 2000000.5 1\ndist 10 2\nbucket 4000000 4000000.5 1\n")
    for seed in (1, 2):
        res = simpi.replay(THESIS, model="stochastic", distributions=d, seed=seed)
        assert sorted(res.ranks["end_ps"]) == [2_100_000, 4_100_000]
    with pytest.raises(ValueError, match="give distributions=FILE"):
        simpi.replay(THESIS, model="stochastic")
    with pytest.raises(ValueError, match="distributions is for model='stochastic'"):
        simpi.replay(THESIS, distributions=d)


def test_a_preset_file_gives_loggops_its_parameters(tmp_path):
    # A preset file as simpi calibrate writes it, with a [loggops] section in seconds.
    # One 10-byte eager message: o + L + o + (10-1) G = 1 + 3 + 1 + 0.045 us.
    preset = tmp_path / "l.toml"
    preset.write_text(
        '[protocol]\nos = ""\nor = ""\nasync_small = 0\ndetached = 65536\nenvelope = 16\n'
        'grow_test_costs = true\n[network]\nlat_factor = ""\nbw_factor = ""\n'
        "[loggops]\nL = 3e-6\no = 1e-6\ng = 2e-6\nG = 5e-9\nO = 0\nS = 65535\n"
    )
    res = simpi.replay(str(ping_goal(tmp_path, 10)), model="loggops", preset=str(preset))
    assert res.makespan_ps == 5_045_000


def test_packet_routing_and_seed_reach_the_model(tmp_path):
    # A dragonfly of 5 groups: Valiant's detours are drawn from the seed, so one seed
    # repeats a run and the command line with the same flags gives the same ends.
    platform = tmp_path / "df.toml"
    platform.write_text(
        '[topology]\nkind = "dragonfly"\ndragonfly = "5,1;1,1;5,1;2"\n'
        'link = { bandwidth = "1GBps", latency = "100ns", sharing = "split-duplex" }\n'
    )
    run = lambda seed: simpi.replay(pattern="linear-alltoall", ranks=50, bytes=65536, model="packet",
                                    platform=str(platform), routing="valiant", seed=seed)
    a, b = run(3), run(3)
    assert list(a.ranks["end_ps"]) == list(b.ranks["end_ps"])
    # One message per ordered pair of ranks, each counted once in the network times;
    # the longest cannot end after the last rank.
    assert a.message_times["count"].sum() == 50 * 49
    assert a.message_times["lo"].max() <= a.makespan
    assert (a.links["peak_queue"] > 0).any() and (a.links["mean_queue"] >= 0).all()
    out = cli("replay", "--pattern", "linear-alltoall", "--ranks", "50", "--bytes", "65536",
              "--model", "packet", "--platform", str(platform), "--routing", "valiant",
              "--seed", "3", "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["makespan_ps"] == a.makespan_ps
    with pytest.raises(ValueError, match="routing"):
        simpi.replay(pattern="linear-alltoall", ranks=50, model="packet", platform=str(platform), routing="up-down")


def test_priority_lanes_reach_the_packet_model(tmp_path):
    # Three streams into host 4 and, at 100 us, a small message from host 3, after
    # which host 4 tells host 5: on the high-priority lane the small message does not
    # share the link into host 4 with the streams.
    goal = tmp_path / "incast.goal"
    goal.write_text(
        "num_ranks 6\n"
        + "".join(f"rank {r} {{\nl1: send 1048576b to 4 tag 0\n}}\n" for r in range(3))
        + "rank 3 {\nl1: calc 100000\nl2: send 16384b to 4 tag 1\nl2 requires l1\n}\n"
        "rank 4 {\nl1: recv 1048576b from 0 tag 0\nl2: recv 1048576b from 1 tag 0\n"
        "l3: recv 1048576b from 2 tag 0\nl4: recv 16384b from 3 tag 1\n"
        "l5: send 8b to 5 tag 2\nl5 requires l4\n}\n"
        "rank 5 {\nl1: recv 8b from 4 tag 2\n}\n"
    )
    platform = tmp_path / "flat.toml"
    platform.write_text(
        '[topology]\nkind = "flat"\nhosts = 6\n'
        'link = { bandwidth = "1GBps", latency = "100ns", sharing = "split-duplex" }\n'
    )
    run = lambda **kw: simpi.replay(str(goal), model="packet", platform=str(platform), **kw)
    told = lambda res: int(res.ranks["end_ps"].iloc[5])
    plain, strict = run(), run(priority_up_to=16384)
    limited = run(priority_up_to=16384, priority_limit=0)
    assert told(strict) < told(limited) < told(plain)
    out = cli("replay", str(goal), "--model", "packet", "--platform", str(platform),
              "--priority-up-to", "16384", "--priority-limit", "0", "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["ranks"][5]["end_ps"] == told(limited)
    with pytest.raises(ValueError, match="priority"):
        run(priority_limit=4096)
