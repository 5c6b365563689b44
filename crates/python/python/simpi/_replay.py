"""One replay: Python values in, a :class:`Result` of DataFrames out.

Every setting is turned into the text a user would type after the matching
``simpi replay`` flag and parsed by the same code as the command line's, so the same
values are accepted and refused, with the same messages.
"""

from __future__ import annotations

import numbers
import os as _os
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import pandas as pd

from . import _simpi

#: Picoseconds per second: the simulator counts time in integer picoseconds.
PS_PER_SECOND = 1e12

_BOOLEAN = {"periodic", "report", "grow_injected_times"}
_PIECEWISE = {"lat_factor", "bw_factor", "os", "or_"}


def _plain(value: Any) -> Any:
    """A NumPy scalar as the Python value it holds (sweeps often iterate arrays)."""
    if type(value).__module__ == "numpy" and hasattr(value, "item"):
        return value.item()
    return value


def _text(key: str, value: Any) -> str:
    """The text typed after the flag of ``key`` for ``value``."""
    value = _plain(value)
    if key in _BOOLEAN:
        if isinstance(value, bool):
            return "true" if value else "false"
        raise TypeError(f"{key}: expected True or False, got {type(value).__name__}")
    if isinstance(value, bool):
        raise TypeError(f"{key}: expected a number or a string, got a bool")
    if isinstance(value, str):
        return value
    if isinstance(value, _os.PathLike):
        return _os.fsdecode(value)
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        # repr() gives the shortest text that reads back as the same double.
        return repr(float(value))
    if key in _PIECEWISE and isinstance(value, Mapping):
        return ";".join(f"{_text(key, b)}:{_values(key, v)}" for b, v in value.items())
    raise TypeError(f"{key}: cannot use a {type(value).__name__} here")


def _values(key: str, v: Any) -> str:
    """A piece-wise segment's values: one factor, or an overhead's ``(a, b)``."""
    if isinstance(v, (tuple, list)):
        return ":".join(_text(key, x) for x in v)
    return _text(key, v)


def _coll(value: Any) -> List[str]:
    """Collective overrides as ``op=algorithm`` texts."""
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, Mapping):
        return [f"{op}={alg}" for op, alg in value.items()]
    if isinstance(value, Sequence):
        out = []
        for v in value:
            if not isinstance(v, str):
                raise TypeError(f"coll: expected 'op=algorithm' strings, got a {type(v).__name__}")
            out.append(v)
        return out
    raise TypeError(f"coll: expected a dict or 'op=algorithm' strings, got a {type(value).__name__}")


@dataclass(frozen=True)
class Pattern:
    """A workload pattern generated in the process (as ``simpi replay --pattern``).

    ``bytes`` is the whole vector of a reduction, per pair for all-to-all and per face
    for the stencil; ``compute`` is in the replay's time unit and comes before every
    iteration; ``periodic`` makes the stencil's grid a torus. The values are checked
    when the pattern is made (``ValueError`` with the command line's message).
    """

    name: str
    ranks: int = 8
    bytes: int = 8
    iterations: int = 1
    compute: int = 0
    periodic: bool = False

    def __post_init__(self) -> None:
        _simpi.check_pattern(self._settings())

    def _settings(self) -> Dict[str, str]:
        s = {
            "pattern": _text("pattern", self.name),
            "ranks": _text("ranks", self.ranks),
            "bytes": _text("bytes", self.bytes),
            "iterations": _text("iterations", self.iterations),
            "compute": _text("compute", self.compute),
        }
        if self.periodic:
            s["periodic"] = "true"
        return s

    def __str__(self) -> str:
        extra = ", periodic" if self.periodic else ""
        return (
            f"{self.name}(ranks={self.ranks}, bytes={self.bytes}, "
            f"iterations={self.iterations}, compute={self.compute}{extra})"
        )


def pattern(
    name: str,
    *,
    ranks: int = 8,
    bytes: int = 8,
    iterations: int = 1,
    compute: int = 0,
    periodic: bool = False,
) -> Pattern:
    """A pattern to replay: ``simpi.replay(simpi.pattern("rd-allreduce", ranks=64))``.

    Names: see :func:`patterns`.
    """
    return Pattern(name, ranks, bytes, iterations, compute, periodic)


def patterns() -> pd.DataFrame:
    """The patterns, with a description of each."""
    return pd.DataFrame(_simpi.patterns(), columns=["pattern", "description"])


def algorithms() -> pd.DataFrame:
    """The collective algorithms (``simpi list-algorithms``): the names ``coll=`` takes."""
    return pd.DataFrame(_simpi.algorithms(), columns=["collective", "algorithm", "simgrid", "source"])


@dataclass(frozen=True, eq=False)
class Result:
    """What a replay produced. Times are in seconds unless a name ends in ``_ps``."""

    #: When the last rank finished, in seconds.
    makespan: float
    #: The same in picoseconds, exactly.
    makespan_ps: int
    #: One row per rank: ``rank``, ``end`` (s), ``end_ps``; with ``report=True`` also
    #: ``compute``, ``communication``, ``waiting`` and ``idle`` (s), which add up to ``end``.
    ranks: pd.DataFrame
    #: One row per kind of MPI call (or operation of a schedule) with ``report=True``:
    #: ``call``, ``count``, ``total``, ``mean`` and ``max`` (s); empty otherwise.
    calls: pd.DataFrame
    #: Every call's time span with ``report=True``: ``rank``, ``call``, ``start``, ``end`` (s).
    spans: pd.DataFrame
    #: What each link carried under a model over a platform, busiest first: ``link``,
    #: ``bytes`` (headers included), ``busy`` (s sending: the bytes at the link's full
    #: bandwidth), ``utilisation`` (``busy`` over the makespan) and
    #: ``packets`` (0 without packets), ``peak_queue`` and ``mean_queue`` (packets held
    #: in the buffers at the link's receiving end: the most at once, and the
    #: time-weighted mean; 0 without packets); empty under LogGOPS and the constant model.
    links: pd.DataFrame
    #: The packet model's distribution of messages' network times (start to delivery)
    #: as histogram buckets: ``lo`` and ``hi`` (s, inclusive) and ``count``; empty under
    #: the other models.
    message_times: pd.DataFrame
    #: Events the engine processed (LogGOPSim's count for LogGOPS).
    events: int
    #: Operations in the workload.
    operations: int
    #: FNV-1a checksum of the per-rank end times, as ``simpi replay`` prints it.
    checksum: int
    #: Things to know that did not stop the run.
    warnings: List[str]
    #: Wall-clock seconds spent reading and simulating.
    load_seconds: float
    sim_seconds: float
    #: The command line's human summary (and, with ``report=True``, its tables).
    summary: str
    #: The time unit of the schedule and of the LogGOPS parameters.
    time_unit: str

    def __repr__(self) -> str:
        return f"<simpi.Result makespan={self.makespan!r} s, {len(self.ranks)} ranks, {self.events} events>"


def _seconds(ps: Sequence[int]) -> List[float]:
    return [t / PS_PER_SECOND for t in ps]


def _result(d: Dict[str, Any]) -> Result:
    ends: List[int] = d["end_ps"]
    ranks = pd.DataFrame({"rank": range(len(ends)), "end": _seconds(ends), "end_ps": ends})
    b = d["breakdown"]
    if b is not None:
        for col, key in [("compute", "compute"), ("communication", "comm"), ("waiting", "wait"), ("idle", "idle")]:
            ranks[col] = _seconds(b[key])
    c = d["calls"]
    calls = pd.DataFrame(
        {
            "call": c["name"],
            "count": c["count"],
            "total": _seconds(c["total"]),
            "mean": [t / n / PS_PER_SECOND if n else 0.0 for t, n in zip(c["total"], c["count"])],
            "max": _seconds(c["max"]),
        }
    )
    s = d["spans"]
    spans = pd.DataFrame({"rank": s["rank"], "call": s["call"], "start": _seconds(s["start"]), "end": _seconds(s["end"])})
    makespan_ps = max(ends, default=0)
    lk = d["links"]
    links = pd.DataFrame(
        {
            "link": lk["link"],
            "bytes": lk["bytes"],
            "busy": _seconds(lk["busy"]),
            "utilisation": [b / makespan_ps if makespan_ps else 0.0 for b in lk["busy"]],
            "packets": lk["packets"],
            "peak_queue": lk["peak_queue"],
            "mean_queue": lk["mean_queue"],
        }
    )
    mt = d["message_times"]
    message_times = pd.DataFrame({"lo": _seconds(mt["lo"]), "hi": _seconds(mt["hi"]), "count": mt["count"]})
    return Result(
        makespan=makespan_ps / PS_PER_SECOND,
        makespan_ps=makespan_ps,
        ranks=ranks,
        calls=calls,
        spans=spans,
        links=links,
        message_times=message_times,
        events=d["events"],
        operations=d["ops"],
        checksum=d["checksum"],
        warnings=list(d["warnings"]),
        load_seconds=d["load_seconds"],
        sim_seconds=d["sim_seconds"],
        summary=d["summary"],
        time_unit=d["unit"],
    )


Source = Union[str, "_os.PathLike[str]", Pattern]
_PATTERN_PARAMS = ("ranks", "bytes", "iterations", "compute", "periodic")


def replay(
    source: Optional[Source] = None,
    *,
    pattern: Union[str, Pattern, None] = None,
    ranks: Optional[int] = None,
    bytes: Optional[int] = None,
    iterations: Optional[int] = None,
    compute: Optional[int] = None,
    periodic: Optional[bool] = None,
    format: Optional[str] = None,
    model: Optional[str] = None,
    platform: Union[str, "_os.PathLike[str]", None] = None,
    preset: Optional[str] = None,
    constant_time: Union[str, float, None] = None,
    packet_preset: Optional[str] = None,
    mtu: Optional[int] = None,
    packet_buffer: Optional[int] = None,
    router_delay: Union[str, float, None] = None,
    queues: Optional[str] = None,
    routing: Optional[str] = None,
    priority_up_to: Optional[int] = None,
    priority_limit: Union[int, str, None] = None,
    protocol: Optional[str] = None,
    mapping: Optional[str] = None,
    ranks_per_host: Optional[int] = None,
    hostfile: Union[str, "_os.PathLike[str]", None] = None,
    lat_factor: Union[str, Mapping[int, float], None] = None,
    bw_factor: Union[str, Mapping[int, float], None] = None,
    os: Union[str, Mapping[int, Tuple[float, float]], None] = None,
    or_: Union[str, Mapping[int, Tuple[float, float]], None] = None,
    async_small: Optional[int] = None,
    detached: Optional[int] = None,
    weight_s: Optional[float] = None,
    grow_injected_times: Optional[bool] = None,
    L: Optional[int] = None,
    o: Optional[int] = None,
    g: Optional[int] = None,
    G: Optional[int] = None,
    O: Optional[int] = None,
    S: Optional[int] = None,
    time_unit: Optional[str] = None,
    coll: Union[Mapping[str, str], Sequence[str], str, None] = None,
    coll_selector: Optional[str] = None,
    speed: Optional[float] = None,
    test_cost: Optional[float] = None,
    report: bool = True,
    timeline: Union[str, "_os.PathLike[str]", None] = None,
    timeline_ranks: Optional[str] = None,
    timeline_window: Optional[str] = None,
    max_blocked_ranks: Optional[int] = None,
    distributions: Union[str, "_os.PathLike[str]", None] = None,
    seed: Optional[int] = None,
) -> Result:
    """Replays a GOAL schedule, a TIT, OTF2 or liballprof trace or a pattern, as ``simpi replay`` does.

    ``source`` is a file (GOAL, TIT, an OTF2 anchor file or a liballprof trace's rank 0 file,
    detected unless ``format`` is ``"goal"``, ``"tit"``, ``"otf2"`` or ``"liballprof"``) or a :class:`Pattern`; alternatively ``pattern`` names one, with ``ranks``,
    ``bytes``, ``iterations``, ``compute`` and ``periodic`` (defaults 8, 8, 1, 0, False).

    The model is ``"hybrid"`` with a ``platform`` file (TOML or SimGrid XML) and
    ``"loggops"`` without; ``"flow"``, ``"constant"`` (every message takes
    ``constant_time``, e.g. ``"10us"``) and ``"packet"`` (packets over the platform:
    ``packet_preset`` ``"generic"``, ``"ib"`` or ``"dragonfly"``, ``mtu``, ``packet_buffer``,
    ``router_delay``, ``queues`` ``"voq"`` or ``"fifo"``, ``routing`` ``"minimal"`` or,
    on a dragonfly, ``"valiant"`` or ``"ugal"`` with detours drawn from ``seed``,
    ``"adaptive"`` on a fat tree, torus or dragonfly (progressive, drawing from ``seed``),
    ``priority_up_to`` (two virtual lanes: messages of at most this many bytes on the
    high-priority one) and ``priority_limit`` (its bytes in a row while a low packet
    waits, ``"none"`` by default),
    ``protocol`` ``"smpi"`` or ``"loggops"`` for LogGOPS's host costs around the
    network) and ``"stochastic"`` (each
    message's time drawn from the measured ``distributions`` file with ``seed``; with a
    ``platform``, contention is counted per route link) are the others. Each keyword is the flag of
    the same name (``or_`` is ``--or``; ``L``, ``o``, ``g``, ``G``, ``O``, ``S`` are
    LogGOPS's, in ``time_unit``, default ``"ns"``) and is refused when the chosen model
    or input would ignore it. ``coll`` forces algorithms, e.g. ``{"allreduce": "rdb"}``
    or ``["allreduce=rdb"]``; piece-wise factors take SimGrid's text or a dict
    ``{bound: factor}`` (overheads ``{bound: (a, b)}``). ``preset`` is ``"smpi"``,
    ``"plain"`` or the path of a preset file written by ``simpi calibrate`` (its LogGOPS
    section also serves ``model="loggops"``).

    ``report`` records every operation's times for the per-rank breakdown, the call
    table and the spans (it costs memory on large runs). ``timeline`` writes a Chrome
    JSON or Paje file.

    Raises ``ValueError`` for a bad setting, :class:`simpi.InputError` for a malformed
    or unreadable file (the message names file and line), :class:`simpi.StallError` when
    the workload cannot complete.
    """
    args = dict(locals())
    given = {k: v for k, v in args.items() if v is not None and k not in ("source", "pattern", "coll")}
    settings = {k: _text(k, v) for k, v in given.items()}
    if isinstance(source, Pattern):
        if pattern is not None:
            raise ValueError("give a file to replay or a pattern, not both")
        pattern, source = source, None
    if isinstance(pattern, Pattern):
        for k in _PATTERN_PARAMS:
            if k in given:
                raise ValueError(f"{k}: the pattern object sets it; use simpi.pattern(..., {k}=...)")
        settings.update(pattern._settings())
    elif pattern is not None:
        settings["pattern"] = _text("pattern", pattern)
    path = None if source is None else _text("source", source)
    return _result(_simpi.replay(path, settings, _coll(coll)))
