"""PEVPM-style skeletons: a program's structure (loops, conditions on the rank, messages,
serial computation, collectives) written without its code, and simulated on any model.

A :class:`Skeleton` records, rank by rank, the calls its directives make, and becomes a
time-independent trace (simpi's TIT dialect, ``docs/formats.md``) that
:func:`simpi.replay` runs through the same engine, models and collective algorithms as a
traced program. PEVPM's directives map as follows:

========================  ==============================================================
PEVPM                     here
========================  ==============================================================
``Loop n``                a Python loop (``for _ in range(n):``) around directives
``Runon <condition>``     ``on=`` on a directive (a rank, ranks, or a predicate), or
                          ``with sk.runon(...):`` for every directive inside
``Serial <time>``         :meth:`Skeleton.serial` (seconds, on each rank it runs on)
``Message <from> <to>``   :meth:`Skeleton.message` (a size; each sender's partner)
collective operations     :meth:`Skeleton.barrier`, :meth:`Skeleton.bcast`,
                          :meth:`Skeleton.reduce`, :meth:`Skeleton.allreduce`,
                          :meth:`Skeleton.alltoall`, :meth:`Skeleton.allgather`
========================  ==============================================================

>>> sk = Skeleton(4)                                  # Jacobi on a line of 4 ranks
>>> for _ in range(10):
...     sk.serial(1e-3)
...     sk.message(lambda r: r + 1, 1024, on=lambda r: r < 3)
...     sk.message(lambda r: r - 1, 1024, on=lambda r: r > 0)
>>> res = sk.replay(model="loggops")                 # doctest: +SKIP
"""

from __future__ import annotations

import contextlib
import os as _os
import tempfile
from typing import Callable, Iterable, Iterator, List, Sequence, Union

Ranks = Union[None, int, Iterable[int], Callable[[int], bool]]
Partner = Union[int, Callable[[int], int]]

#: SimGrid's datatype id of MPI_BYTE: sizes below are in bytes.
_BYTE = 6


class Skeleton:
    """A skeleton of ``ranks`` ranks; directives append to each rank's calls in order."""

    def __init__(self, ranks: int) -> None:
        if not isinstance(ranks, int) or isinstance(ranks, bool) or ranks < 1:
            raise ValueError(f"ranks: {ranks!r} is not a whole number of at least 1")
        self.ranks = ranks
        self._lines: List[List[str]] = [["init"] for _ in range(ranks)]
        self._on: List[List[int]] = [list(range(ranks))]

    # Which ranks a directive runs on.
    def _select(self, on: Ranks) -> List[int]:
        inside = self._on[-1]
        if on is None:
            return list(inside)
        if callable(on):
            return [r for r in inside if on(r)]
        chosen = {on} if isinstance(on, int) else set(on)
        for r in chosen:
            if not isinstance(r, int) or isinstance(r, bool) or not 0 <= r < self.ranks:
                raise ValueError(f"on: rank {r!r} is not one of the skeleton's {self.ranks} ranks (0 to {self.ranks - 1})")
        return [r for r in inside if r in chosen]

    @contextlib.contextmanager
    def runon(self, on: Ranks) -> Iterator["Skeleton"]:
        """PEVPM's ``Runon``: directives inside the ``with`` block run only on these ranks
        (and on those of an enclosing block)."""
        self._on.append(self._select(on))
        try:
            yield self
        finally:
            self._on.pop()

    def serial(self, seconds: float, on: Ranks = None) -> None:
        """PEVPM's ``Serial``: each selected rank computes for ``seconds``."""
        if not (isinstance(seconds, (int, float)) and seconds >= 0 and seconds != float("inf")):
            raise ValueError(f"seconds: {seconds!r} is not a finite time of at least 0")
        for r in self._select(on):
            self._lines[r].append(f"sleep {float(seconds)!r}")

    def message(
        self,
        to: Partner,
        bytes: int,
        on: Ranks = None,
        tag: int = 0,
        blocking: bool = False,
    ) -> None:
        """PEVPM's ``Message``: each selected rank ``r`` sends ``bytes`` to ``to(r)`` (or to
        ``to``), which receives it. Non-blocking by default: every send and receive of the
        directive is posted, then each rank waits for its own, so exchanges cannot
        deadlock; ``blocking=True`` sends and receives in directive order instead."""
        if not isinstance(bytes, int) or isinstance(bytes, bool) or bytes < 0:
            raise ValueError(f"bytes: {bytes!r} is not a whole number of at least 0")
        if not isinstance(tag, int) or tag < 0:
            raise ValueError(f"tag: {tag!r} is not a whole number of at least 0")
        pairs = []
        for r in self._select(on):
            d = to(r) if callable(to) else to
            if not isinstance(d, int) or isinstance(d, bool) or not 0 <= d < self.ranks:
                raise ValueError(f"to: rank {r}'s partner {d!r} is not one of the skeleton's ranks")
            if d == r:
                raise ValueError(f"to: rank {r} sends to itself")
            pairs.append((r, d))
        if blocking:
            for s, d in pairs:
                self._lines[s].append(f"send {d} {tag} {bytes} {_BYTE}")
                self._lines[d].append(f"recv {s} {tag} {bytes} {_BYTE}")
            return
        keys: List[List[str]] = [[] for _ in range(self.ranks)]
        for s, d in pairs:
            self._lines[s].append(f"isend {d} {tag} {bytes} {_BYTE}")
            self._lines[d].append(f"irecv {s} {tag} {bytes} {_BYTE}")
            keys[s].append(f"{s} {d} {tag}")
            keys[d].append(f"{s} {d} {tag}")
        for r, k in enumerate(keys):
            if k:
                self._lines[r].append(f"waitall {len(k)} " + " ".join(k))

    def _collective(self, line: str) -> None:
        # Collectives are on every rank: a Runon block cannot narrow them.
        if len(self._on[-1]) != self.ranks:
            raise ValueError("a collective runs on every rank: not inside runon()")
        for r in range(self.ranks):
            self._lines[r].append(line)

    def barrier(self) -> None:
        """A barrier on all ranks."""
        self._collective("barrier")

    def bcast(self, bytes: int, root: int = 0) -> None:
        """A broadcast of ``bytes`` from ``root``."""
        self._check_root(root)
        self._collective(f"bcast {self._size(bytes)} {root} {_BYTE}")

    def reduce(self, bytes: int, root: int = 0) -> None:
        """A reduction of ``bytes`` to ``root`` (no computation time for the operator)."""
        self._check_root(root)
        b = self._size(bytes)
        self._collective(f"reduce {b} 0 {root} {_BYTE}")

    def allreduce(self, bytes: int) -> None:
        """An allreduce of ``bytes`` (no computation time for the operator)."""
        b = self._size(bytes)
        self._collective(f"allreduce {b} 0 {_BYTE}")

    def alltoall(self, bytes: int) -> None:
        """An alltoall of ``bytes`` to each rank."""
        b = self._size(bytes)
        self._collective(f"alltoall {b} {b} {_BYTE} {_BYTE}")

    def allgather(self, bytes: int) -> None:
        """An allgather of ``bytes`` from each rank."""
        b = self._size(bytes)
        self._collective(f"allgather {b} {b} {_BYTE} {_BYTE}")

    def _size(self, bytes: int) -> int:
        if not isinstance(bytes, int) or isinstance(bytes, bool) or bytes < 0:
            raise ValueError(f"bytes: {bytes!r} is not a whole number of at least 0")
        return bytes

    def _check_root(self, root: int) -> None:
        if not isinstance(root, int) or not 0 <= root < self.ranks:
            raise ValueError(f"root: {root!r} is not one of the skeleton's ranks")

    def tit(self) -> str:
        """The skeleton as a time-independent trace in one file (every rank's lines)."""
        out = []
        for r, lines in enumerate(self._lines):
            out.extend(f"{r} {line}" for line in lines)
            out.append(f"{r} finalize")
        return "\n".join(out) + "\n"

    def write(self, path: Union[str, "_os.PathLike[str]"]) -> None:
        """Writes :meth:`tit` to ``path`` (``simpi replay PATH`` runs it too)."""
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.tit())

    def replay(self, **settings: object):  # -> simpi.Result
        """Simulates the skeleton: :func:`simpi.replay` of its trace with ``settings``
        (``model``, ``platform``, ``coll``, ...)."""
        from ._replay import replay

        with tempfile.TemporaryDirectory(prefix="simpi-skeleton-") as d:
            path = _os.path.join(d, "skeleton.txt")
            self.write(path)
            return replay(path, **settings)  # type: ignore[arg-type]


def skeleton(ranks: int) -> Skeleton:
    """A new :class:`Skeleton` of ``ranks`` ranks."""
    return Skeleton(ranks)


__all__: Sequence[str] = ["Skeleton", "skeleton"]
