"""Shared helpers of the Python package's tests: the repository's files and small
schedules written for a test."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import List

import pytest

#: The repository root (crates/python/tests/ is three levels down).
ROOT = Path(__file__).resolve().parents[3]
THESIS = ROOT / "examples" / "thesis.goal"
OSU_ALLREDUCE = ROOT / "tests" / "golden" / "smpi-replay" / "osu_allreduce"
OTF2_HANDWRITTEN = ROOT / "tests" / "golden" / "otf2" / "handwritten"


def ping_goal(directory: Path, size: int) -> Path:
    """A GOAL schedule: rank 0 sends `size` bytes to rank 1."""
    path = directory / f"ping-{size}.goal"
    path.write_text(
        "num_ranks 2\n"
        f"rank 0 {{\nl1: send {size}b to 1 tag 0\n}}\n"
        f"rank 1 {{\nl1: recv {size}b from 0 tag 0\n}}\n"
    )
    return path


@pytest.fixture
def ping(tmp_path: Path):
    """Makes a 2-rank ping schedule of a given size in the test's directory."""
    return lambda size: ping_goal(tmp_path, size)


def cli(*args: str) -> subprocess.CompletedProcess:
    """Runs the `simpi` binary (built by scripts/test-python before pytest runs)."""
    binary = os.environ.get("SIMPI_BIN", str(ROOT / "target" / "release" / "simpi"))
    return subprocess.run([binary, *args], capture_output=True, text=True)


def host_lines(out: str) -> List[int]:
    """End times of `--format loggopsim` output, in the schedule's unit."""
    return [int(line.split(": ")[1]) for line in out.splitlines() if line.startswith("Host ")]
