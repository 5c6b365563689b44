"""Sweeps: one replay per point of a grid of settings and inputs, one table row each."""

from __future__ import annotations

import inspect
import itertools
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

import pandas as pd

from ._replay import PS_PER_SECOND, Source, replay

#: The keywords a grid may sweep: those of :func:`simpi.replay` but the source.
_KEYWORDS = [p for p in inspect.signature(replay).parameters if p != "source"]


def run_point(source: Optional[Source], settings: Dict[str, Any]) -> Tuple[int, int]:
    """Runs one point of a sweep: ``(makespan_ps, events)``.

    A module-level function, so executors that ship work to other processes or machines
    (``ProcessPoolExecutor``, a Dask ``Client``) can pickle it by name.
    """
    r = replay(source, **settings)
    return r.makespan_ps, r.events


def _label(source: Optional[Source]) -> str:
    """The ``input`` column's text: the path, or the pattern with its parameters."""
    return "" if source is None else str(source)


def sweep(
    grid: Optional[Mapping[str, Iterable[Any]]] = None,
    inputs: Optional[Iterable[Optional[Source]]] = None,
    *,
    executor: Any = None,
    **settings: Any,
) -> pd.DataFrame:
    """Replays every point of ``inputs`` x ``grid`` and returns one row per point.

    ``grid`` maps keywords of :func:`simpi.replay` to the values to try, e.g.
    ``{"L": [1250, 2500, 5000], "G": [3, 6]}`` or ``{"ranks": [8, 64, 512]}`` with
    ``pattern="rd-allreduce"``; the points are its Cartesian product, in the order of
    the keys, for each of ``inputs`` (files or :class:`Pattern` s; default: none, the
    grid or ``settings`` then name a pattern). Further keywords are passed to every
    replay; ``report`` is False unless given.

    The points run one after the other, or on ``executor``: anything with
    ``submit(fn, *args)`` returning futures with ``result()``, such as
    ``concurrent.futures.ThreadPoolExecutor`` (replays release the interpreter lock, so
    threads run them on several cores), ``ProcessPoolExecutor``, or a
    ``dask.distributed.Client`` (its workers need simpi installed).

    The table has an ``input`` column when ``inputs`` is given, a column per grid key
    with the point's value, ``makespan`` (s), ``makespan_ps`` and ``events``; the same
    grid gives the same table whatever runs it. The first failing point raises its
    error (with the point in a note, on Python 3.11 and later).
    """
    grid = dict(grid or {})
    for key in list(grid) + list(settings):
        if key not in _KEYWORDS:
            raise ValueError(f"{key!r} is not a setting of simpi.replay")
    both = sorted(set(grid) & set(settings))
    if both:
        raise ValueError(f"{both[0]!r} is both swept and fixed")
    keys = list(grid)
    axes: List[List[Any]] = []
    for k in keys:
        values = grid[k]
        if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
            raise TypeError(f"grid[{k!r}] must be a list of values, not a {type(values).__name__}")
        values = list(values)
        if not values:
            raise ValueError(f"grid[{k!r}] has no value")
        axes.append(values)
    sources: Sequence[Optional[Source]] = [None] if inputs is None else list(inputs)
    settings.setdefault("report", False)
    points = [(src, dict(zip(keys, combo))) for src in sources for combo in itertools.product(*axes)]

    def note(e: BaseException, src: Optional[Source], point: Dict[str, Any]) -> None:
        if hasattr(e, "add_note"):
            e.add_note(f"in the sweep point input={_label(src)!r} {point}")

    results: List[Tuple[int, int]] = []
    if executor is None:
        for src, point in points:
            try:
                results.append(run_point(src, {**settings, **point}))
            except Exception as e:
                note(e, src, point)
                raise
    else:
        futures = [executor.submit(run_point, src, {**settings, **point}) for src, point in points]
        for f, (src, point) in zip(futures, points):
            try:
                results.append(f.result())
            except Exception as e:
                note(e, src, point)
                raise
    rows = []
    for (src, point), (makespan_ps, events) in zip(points, results):
        row: Dict[str, Any] = {}
        if inputs is not None:
            row["input"] = _label(src)
        row.update(point)
        row["makespan"] = makespan_ps / PS_PER_SECOND
        row["makespan_ps"] = makespan_ps
        row["events"] = events
        rows.append(row)
    columns = (["input"] if inputs is not None else []) + keys + ["makespan", "makespan_ps", "events"]
    return pd.DataFrame(rows, columns=columns)
