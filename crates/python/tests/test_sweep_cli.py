"""`simpi sweep` on the command line against simpi.sweep: the same table byte for byte,
and the same table from a local Dask cluster of two worker processes as from the
command line's own pool (issue 20: 64 points, both wall times printed)."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterator, List, Optional

import pandas as pd
import pytest

import simpi
from conftest import ROOT, THESIS, cli

#: The 64-point grid: 8 latencies x 8 gaps per byte.
L_VALUES = [500 * i for i in range(1, 9)]
G_VALUES = list(range(1, 9))


def sweep_cli(*args: str, cwd: Optional[Path] = None) -> subprocess.CompletedProcess:
    """`simpi sweep ARGS` (in `cwd`), with this interpreter as the one it hands Dask
    sweeps and Parquet tables to."""
    binary = os.environ.get("SIMPI_BIN", str(ROOT / "target" / "release" / "simpi"))
    env = dict(os.environ, SIMPI_PYTHON=sys.executable)
    return subprocess.run([binary, "sweep", *args], capture_output=True, text=True, env=env, cwd=cwd)


def joined(values: List[int]) -> str:
    return ",".join(map(str, values))


def test_the_command_lines_table_is_simpi_sweeps(ping):
    path = ping(1000)
    table = simpi.sweep({"L": [1250, 2500], "G": [3, 6]}, inputs=[path, THESIS], o=100)
    out = cli("sweep", str(path), str(THESIS), "--vary", "L=1250,2500", "--vary", "G=3,6", "-o", "100")
    assert out.returncode == 0, out.stderr
    # Same columns, rows, order and float text as pandas writes them.
    assert out.stdout == table.to_csv(index=False)


def test_a_pattern_sweep_is_the_same_too():
    table = simpi.sweep({"bytes": [1, 1001], "ranks": [2, 4]}, pattern="binomial-bcast")
    out = cli("sweep", "--pattern", "binomial-bcast", "--vary", "bytes=1,1001", "--vary", "ranks=2,4")
    assert out.returncode == 0, out.stderr
    assert out.stdout == table.to_csv(index=False)
    # A 2-rank binomial broadcast is one eager message: L + 2o + (bytes-1)G ns.
    assert list(table["makespan_ps"][::2]) == [(2500 + 3000 + (b - 1) * 6) * 1000 for b in (1, 1001)]


@pytest.fixture(scope="module")
def dask_address() -> Iterator[str]:
    """A local Dask cluster: two worker processes of one thread each."""
    from dask.distributed import LocalCluster

    cluster = LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=":0"
    )
    try:
        yield cluster.scheduler_address
    finally:
        cluster.close()


def test_64_points_on_dask_give_the_local_pools_table(dask_address, capsys):
    grid = [str(THESIS), "--vary", f"L={joined(L_VALUES)}", "--vary", f"G={joined(G_VALUES)}"]
    t0 = time.perf_counter()
    local = sweep_cli(*grid)
    t1 = time.perf_counter()
    dask = sweep_cli(*grid, "--dask", dask_address)
    t2 = time.perf_counter()
    assert local.returncode == 0, local.stderr
    assert dask.returncode == 0, dask.stderr
    assert dask.stdout == local.stdout
    rows = pd.read_csv(io.StringIO(local.stdout))
    assert len(rows) == 64
    # Thesis example: 100 + L + 2o + 9G ns.
    assert list(rows["makespan_ps"]) == [(100 + L + 3000 + 9 * G) * 1000 for L in L_VALUES for G in G_VALUES]
    with capsys.disabled():
        print(f"\n64-point sweep: local pool {t1 - t0:.2f} s, Dask (2 worker processes) {t2 - t1:.2f} s")


def test_a_failing_point_on_dask_fails_the_sweep(dask_address, tmp_path):
    stuck = tmp_path / "stuck.goal"
    stuck.write_text("num_ranks 2\nrank 0 {\nl1: recv 8b from 1 tag 0\n}\nrank 1 {\n}\n")
    out = sweep_cli(str(THESIS), str(stuck), "--vary", "L=1,2", "--dask", dask_address)
    assert out.returncode == 3, out.stderr
    assert "cannot complete" in out.stderr and "stuck.goal" in out.stderr
    assert out.stdout == ""


def test_relative_paths_reach_the_workers(dask_address, tmp_path, ping):
    # The workers run from another directory: the sweep hands them absolute paths, and
    # the table shows the paths as typed.
    ping(10)
    local = sweep_cli("ping-10.goal", "--vary", "o=0,100", cwd=tmp_path)
    dask = sweep_cli("ping-10.goal", "--vary", "o=0,100", "--dask", dask_address, cwd=tmp_path)
    assert local.returncode == 0, local.stderr
    assert dask.returncode == 0, dask.stderr
    assert dask.stdout == local.stdout
    assert dask.stdout.splitlines()[1].startswith("ping-10.goal,0,")


# fastparquet asks pandas 3 about an option it deprecated.
@pytest.mark.filterwarnings("ignore:The 'future.infer_string' option")
def test_parquet_holds_the_csvs_table(tmp_path):
    target = tmp_path / "t.parquet"
    args = [str(THESIS), "--vary", "L=1000,2000", "--vary", "model=loggops"]
    csv = sweep_cli(*args)
    out = sweep_cli(*args, "--output", str(target))
    assert out.returncode == 0, out.stderr
    # The same values; string columns may come back as object or str, by engine.
    pd.testing.assert_frame_equal(pd.read_parquet(target), pd.read_csv(io.StringIO(csv.stdout)), check_dtype=False)


def test_sweep_main_says_what_is_missing():
    # The checks the command line runs before handing a sweep over.
    for what in ("dask", "parquet"):
        r = subprocess.run([sys.executable, "-m", "simpi.sweep_main", "--check", what], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
    r = subprocess.run([sys.executable, "-m", "simpi.sweep_main"], capture_output=True, text=True)
    assert r.returncode == 2 and "give --spec" in r.stderr
