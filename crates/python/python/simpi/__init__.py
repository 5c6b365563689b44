"""simpi from Python: replay MPI schedules, traces and patterns on a simulated machine.

>>> import simpi
>>> res = simpi.replay("examples/thesis.goal")      # doctest: +SKIP
>>> res.makespan, res.ranks                          # doctest: +SKIP

:func:`replay` runs one simulation (a GOAL schedule, a TIT trace or a :class:`Pattern`
under the LogGOPS, flow, hybrid or constant model) and returns a :class:`Result` whose
tables are pandas DataFrames; :func:`sweep` runs a grid of them and returns one row per
point. Settings are those of ``simpi replay``, checked by the same code. A
:class:`Skeleton` (PEVPM's directives: loops, runon, serial, message, collectives)
writes a program's structure without its code and replays it the same way.
"""

from ._replay import PS_PER_SECOND, Pattern, Result, algorithms, pattern, patterns, replay
from ._simpi import InputError, SimpiError, StallError, __version__
from ._skeleton import Skeleton, skeleton
from ._sweep import sweep

__all__ = [
    "PS_PER_SECOND",
    "InputError",
    "Pattern",
    "Result",
    "SimpiError",
    "Skeleton",
    "StallError",
    "__version__",
    "algorithms",
    "pattern",
    "patterns",
    "replay",
    "skeleton",
    "sweep",
]
