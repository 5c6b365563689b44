"""simpi.Skeleton (PEVPM's directives): replays against hand-derived LogGOPS times, the
trace it writes, and its refusals."""

from __future__ import annotations

import pytest

import simpi

# LogGOPSim's defaults, in ns: L=2500 o=1500 g=1000 G=6.
L, o, G = 2500, 1500, 6


def exchange(sk: simpi.Skeleton) -> None:
    # One PEVPM iteration on two ranks: 1 us of serial work, then 10 bytes each way.
    sk.serial(1e-6)
    sk.message(lambda r: 1 - r, 10)


def test_a_loop_of_exchanges_takes_k_times_one_iteration():
    # Each rank computes 1000 ns, sends (o), the other's message arrives after L +
    # 9 G and is received (o): 1000 + 1500 + 2500 + 54 + 1500 = 6554 ns per iteration,
    # and the next iteration starts when both messages are in.
    for k in (1, 3):
        sk = simpi.Skeleton(2)
        for _ in range(k):
            exchange(sk)
        res = sk.replay(model="loggops")
        assert list(res.ranks["end_ps"]) == [k * 6_554_000] * 2


def test_runon_and_on_select_ranks():
    # Only rank 1 computes (2 us) before rank 0 sends it 10 bytes; rank 0 ends when its
    # send's overhead is over (1500 ns), rank 1 when the message arrived (1500 + 2500 +
    # 54 = 4054 ns, after its compute) and was received (+1500).
    sk = simpi.Skeleton(3)
    with sk.runon([0, 1]):
        sk.serial(2e-6, on=1)
        sk.message(1, 10, on=lambda r: r == 0, blocking=True)
    res = sk.replay(model="loggops")
    assert list(res.ranks["end_ps"]) == [1_500_000, 5_554_000, 0]
    lines = sk.tit().splitlines()
    assert "0 send 1 0 10 6" in lines and "1 recv 0 0 10 6" in lines and "1 sleep 2e-06" in lines
    assert not any(line.startswith("2 ") and "sleep" in line for line in lines)


def test_collectives_replay_like_the_same_trace_written_by_hand(tmp_path):
    sk = simpi.Skeleton(4)
    sk.bcast(1000, root=2)
    sk.allreduce(64)
    sk.barrier()
    path = tmp_path / "sk.txt"
    sk.write(path)
    by_hand = tmp_path / "hand.txt"
    by_hand.write_text(
        "".join(
            f"{r} init\n{r} bcast 1000 2 6\n{r} allreduce 64 0 6\n{r} barrier\n{r} finalize\n" for r in range(4)
        )
    )
    a = simpi.replay(path, model="loggops")
    b = simpi.replay(by_hand, model="loggops")
    assert a.makespan_ps == b.makespan_ps > 0
    assert list(a.ranks["end_ps"]) == list(b.ranks["end_ps"])


def test_bad_directives_are_refused():
    sk = simpi.Skeleton(2)
    with pytest.raises(ValueError, match="not a whole number of at least 1"):
        simpi.Skeleton(0)
    with pytest.raises(ValueError, match="sends to itself"):
        sk.message(lambda r: r, 8)
    with pytest.raises(ValueError, match="partner 5 is not one of"):
        sk.message(5, 8)
    with pytest.raises(ValueError, match="finite time"):
        sk.serial(float("nan"))
    with pytest.raises(ValueError, match="rank 7 is not one of"):
        sk.serial(1.0, on=[7])
    with sk.runon(0):
        with pytest.raises(ValueError, match="collective runs on every rank"):
            sk.barrier()
