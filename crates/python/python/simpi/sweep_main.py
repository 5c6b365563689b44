"""``python -m simpi.sweep_main``: the Python half of ``simpi sweep``.

``simpi sweep --dask ADDRESS`` writes its sweep to a JSON file and runs::

    python -m simpi.sweep_main --spec SWEEP.json --dask ADDRESS

which runs :func:`simpi.sweep` with a ``dask.distributed.Client`` as its executor and
prints the table as CSV. The JSON holds ``grid`` (each swept keyword with its values, in
order), ``inputs`` (files, or null for a pattern) and ``fixed`` (the other settings), all
values as the texts typed on the command line. Without ``--dask`` the points run here,
one after the other.

``--parquet TABLE.csv OUT.parquet`` rewrites a table as Parquet (pandas, with pyarrow or
fastparquet), and ``--check dask`` or ``--check parquet`` only checks that what those
need is installed. Exit codes are simpi's: 1 bad input, 2 bad settings or something
missing, 3 the sweep cannot complete.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
from typing import Any, Dict, List, Optional

_BOOLEAN = {"periodic", "grow_injected_times"}
_PATHS = {"platform", "hostfile"}

_DASK = "dask.distributed is not installed: pip install 'dask[distributed]'"
_PARQUET = "Parquet needs pyarrow or fastparquet, neither is installed: pip install pyarrow"


def _fail(code: int, message: str) -> int:
    print(message, file=sys.stderr)
    return code


def _value(key: str, text: str) -> Any:
    """A setting's text as :func:`simpi.replay` takes it: booleans as bools, relative
    paths made absolute (a cluster's workers may run elsewhere in the file system)."""
    if key in _BOOLEAN and text in ("true", "false"):
        return text == "true"
    if key in _PATHS:
        return _absolute(text)
    return text


def _absolute(path: str) -> str:
    """``path`` from the current directory, not normalised: two spellings of one file
    stay two texts, so each row prints back as typed."""
    return os.path.join(os.getcwd(), path)


def _check(what: str) -> int:
    if what == "dask" and importlib.util.find_spec("distributed") is None:
        return _fail(2, _DASK)
    if what == "parquet" and not any(importlib.util.find_spec(m) for m in ("pyarrow", "fastparquet")):
        return _fail(2, _PARQUET)
    return 0


def _parquet(table: str, out: str) -> int:
    import pandas as pd

    frame = pd.read_csv(table)
    try:
        frame.to_parquet(out, index=False)
    except ImportError:
        return _fail(2, _PARQUET)
    except OSError as e:
        return _fail(1, f"{out}: {e}")
    return 0


def _sweep(spec_file: str, address: Optional[str]) -> int:
    import simpi

    with open(spec_file, encoding="utf-8") as f:
        spec = json.load(f)
    grid: Dict[str, List[str]] = spec["grid"]
    inputs: Optional[List[str]] = spec["inputs"]
    fixed: Dict[str, Any] = spec["fixed"]
    # What each column's values were typed as, to print them back so.
    typed: Dict[str, Dict[Any, str]] = {k: {_value(k, v): v for v in values} for k, values in grid.items()}
    sources = None if inputs is None else [_absolute(f) for f in inputs]
    settings = {k: (v if k == "coll" else _value(k, v)) for k, v in fixed.items()}
    values = {k: [_value(k, v) for v in vs] for k, vs in grid.items()}

    def run(executor: Any) -> Any:
        return simpi.sweep(values, inputs=sources, executor=executor, **settings)

    try:
        if address is None:
            table = run(None)
        else:
            try:
                from dask.distributed import Client
            except ImportError:
                return _fail(2, _DASK)
            try:
                client = Client(address, timeout="10s")
            except (OSError, ValueError) as e:
                return _fail(3, f"cannot reach the Dask scheduler at {address}: {e}")
            with client:
                table = run(client)
    except (ValueError, TypeError) as e:
        return _fail(2, _message(e))
    except simpi.InputError as e:
        return _fail(1, _message(e))
    except simpi.StallError as e:
        return _fail(3, _message(e))
    if inputs is not None:
        table["input"] = table["input"].map(dict(zip(sources or [], inputs)))
    for k in grid:
        table[k] = table[k].map(typed[k])
    sys.stdout.write(table.to_csv(index=False))
    return 0


def _message(e: BaseException) -> str:
    notes = getattr(e, "__notes__", None) or []
    return " ".join([str(e).rstrip(), *(f"({n})" for n in notes)])


def main(argv: Optional[List[str]] = None) -> int:
    """Runs the command line ``argv`` (default ``sys.argv[1:]``); returns the exit code."""
    p = argparse.ArgumentParser(prog="python -m simpi.sweep_main", description=__doc__.split("\n\n")[0])
    p.add_argument("--spec", metavar="SWEEP.json", help="run the sweep this file describes")
    p.add_argument("--dask", metavar="ADDRESS", help="on the Dask cluster of this scheduler")
    p.add_argument("--parquet", nargs=2, metavar=("TABLE.csv", "OUT.parquet"), help="rewrite a table as Parquet")
    p.add_argument("--check", choices=["dask", "parquet"], help="check that what this needs is installed")
    a = p.parse_args(argv)
    if a.check:
        return _check(a.check)
    if a.parquet:
        return _parquet(*a.parquet)
    if a.spec:
        return _sweep(a.spec, a.dask)
    p.error("give --spec, --parquet or --check")
    return 2


if __name__ == "__main__":
    sys.exit(main())
