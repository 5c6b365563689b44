# Types of the native module (crates/python/src/lib.rs). Times are in picoseconds.
from typing import Any, Dict, List, Optional, Tuple

__version__: str

class SimpiError(Exception):
    """Base class of the errors of a replay that are not bad settings."""

class InputError(SimpiError):
    """An input file is malformed or unreadable; the message names the file and line."""

class StallError(SimpiError):
    """The workload cannot complete; the message lists every blocked rank."""

def replay(source: Optional[str], settings: Dict[str, str], coll: List[str]) -> Dict[str, Any]:
    """Runs a replay; settings are the texts typed after `simpi replay`'s flags, keyed by
    the Python keyword. The dict has end_ps, events, ops, load_seconds, sim_seconds,
    peak_rss_bytes, warnings, checksum, summary, unit, breakdown (None or lists compute,
    comm, wait, idle), calls (lists name, count, total, max), spans (lists rank, call,
    start, end) and links (lists link, bytes, busy, packets)."""

def check_pattern(settings: Dict[str, str]) -> None:
    """Raises ValueError if the pattern settings would be refused by a replay."""

def patterns() -> List[Tuple[str, str]]:
    """(name, description) of every pattern."""

def algorithms() -> List[Tuple[str, str, Optional[str], str]]:
    """(collective, algorithm, SimGrid's name or None, source) of every algorithm."""
