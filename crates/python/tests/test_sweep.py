"""simpi.sweep: one row per point, values from the LogGOPS closed form of a ping, and
the same table whatever executor runs the points."""

from __future__ import annotations

import pickle
import sys
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

import pandas as pd
import pytest

import simpi
from conftest import THESIS


def closed_form_ns(L: int, o: int, G: int, size: int) -> int:
    """End of the receiver of an eager message: L + 2o + (size-1)G."""
    return L + 2 * o + (size - 1) * G


def test_grid_rows_follow_the_closed_form(ping):
    path = ping(1000)
    grid = {"L": [1250, 2500, 5000], "G": [3, 6]}
    table = simpi.sweep(grid, inputs=[path], o=100)
    assert list(table.columns) == ["input", "L", "G", "makespan", "makespan_ps", "events"]
    # The points are the product of the grid, in the order of its keys.
    assert list(zip(table["L"], table["G"])) == [(1250, 3), (1250, 6), (2500, 3), (2500, 6), (5000, 3), (5000, 6)]
    want = [closed_form_ns(L, 100, G, 1000) * 1000 for L, G in zip(table["L"], table["G"])]
    assert list(table["makespan_ps"]) == want
    assert list(table["makespan"]) == [w / 1e12 for w in want]
    assert set(table["input"]) == {str(path)}
    # 2 operations and 1 message per point.
    assert set(table["events"]) == {3}


def test_inputs_times_grid(ping):
    inputs = [ping(10), ping(100), simpi.pattern("binomial-bcast", ranks=2, bytes=1000)]
    table = simpi.sweep({"o": [0, 1500]}, inputs=inputs)
    assert len(table) == 6
    assert list(table["input"][4:]) == ["binomial-bcast(ranks=2, bytes=1000, iterations=1, compute=0)"] * 2
    sizes = [10, 10, 100, 100, 1000, 1000]
    want = [closed_form_ns(2500, o, 6, s) * 1000 for o, s in zip(table["o"], sizes)]
    assert list(table["makespan_ps"]) == want


def test_pattern_parameters_in_the_grid():
    # A 2-rank binomial broadcast is one eager message from rank 0 to rank 1.
    table = simpi.sweep({"bytes": [1, 1001]}, pattern="binomial-bcast", ranks=2)
    assert list(table.columns) == ["bytes", "makespan", "makespan_ps", "events"]
    assert list(table["makespan_ps"]) == [closed_form_ns(2500, 1500, 6, b) * 1000 for b in (1, 1001)]


def test_executors_give_the_same_table(ping):
    grid = {"L": [100, 200, 300, 400], "G": [1, 2]}
    inputs = [ping(10), ping(5000)]
    sequential = simpi.sweep(grid, inputs=inputs)
    with ThreadPoolExecutor(max_workers=2) as pool:
        threaded = simpi.sweep(grid, inputs=inputs, executor=pool)
    with ProcessPoolExecutor(max_workers=2) as pool:
        processes = simpi.sweep(grid, inputs=inputs, executor=pool)
    pd.testing.assert_frame_equal(sequential, threaded)
    pd.testing.assert_frame_equal(sequential, processes)


class Recorder:
    """The least an executor needs: submit() returning something with result()."""

    def __init__(self) -> None:
        self.submitted = 0

    def submit(self, fn, *args):
        self.submitted += 1
        value = fn(*args)

        class Done:
            def result(self):
                return value

        return Done()


def test_any_submit_result_executor_will_do():
    r = Recorder()
    table = simpi.sweep({"L": [1, 2, 3]}, inputs=[THESIS], executor=r)
    assert r.submitted == 3
    # Thesis example: 100 + 2o + L + 9G = 100 + 3000 + L + 54.
    assert list(table["makespan_ps"]) == [(3154 + L) * 1000 for L in (1, 2, 3)]


def test_bad_grids_are_refused(ping):
    with pytest.raises(ValueError, match="'latency' is not a setting of simpi.replay"):
        simpi.sweep({"latency": [1]}, inputs=[ping(8)])
    with pytest.raises(ValueError, match="'L' is both swept and fixed"):
        simpi.sweep({"L": [1]}, inputs=[ping(8)], L=2)
    with pytest.raises(ValueError, match=r"grid\['L'\] has no value"):
        simpi.sweep({"L": []}, inputs=[ping(8)])
    with pytest.raises(TypeError, match=r"grid\['model'\] must be a list of values"):
        simpi.sweep({"model": "flow"}, inputs=[ping(8)])


def test_a_failing_point_raises_its_error(ping):
    with pytest.raises(ValueError, match="^L: '-1' is not a whole number") as e:
        simpi.sweep({"L": [1, -1]}, inputs=[ping(8)])
    if sys.version_info >= (3, 11):  # notes came with 3.11
        assert "{'L': -1}" in e.value.__notes__[0]


def test_errors_survive_pickling():
    # Executors in other processes send errors back pickled.
    e = pickle.loads(pickle.dumps(simpi.InputError("f.goal:1:1: bad")))
    assert type(e) is simpi.InputError and str(e) == "f.goal:1:1: bad"
