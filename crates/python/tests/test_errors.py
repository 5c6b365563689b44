"""Bad settings raise ValueError with the command line's message (the same parser),
bad input files raise simpi.InputError naming file and line, and workloads that cannot
finish raise simpi.StallError."""

from __future__ import annotations

import pytest

import simpi
from conftest import OSU_ALLREDUCE, THESIS, cli

TRACE = OSU_ALLREDUCE / "trace.txt"


@pytest.mark.parametrize(
    "kwargs, flag, value",
    [
        ({"speed": -1}, "--speed", "-1"),
        ({"test_cost": float("nan")}, "--test-cost", "nan"),
        ({"coll_selector": "intel"}, "--coll-selector", "intel"),
    ],
)
def test_value_errors_carry_the_command_lines_message(kwargs, flag, value):
    with pytest.raises(ValueError) as e:
        simpi.replay(TRACE, **kwargs)
    key = next(iter(kwargs))
    message = str(e.value)
    assert message.startswith(f"{key}: ")
    out = cli("replay", str(TRACE), f"{flag}={value}")
    assert out.returncode == 2
    # clap's own wording differs for its value lists; the parsers' messages must agree.
    if flag != "--coll-selector":
        assert message[len(key) + 2:] in out.stderr


def test_factor_and_duration_domains(tmp_path):
    platform = OSU_ALLREDUCE / "platform.xml"
    with pytest.raises(ValueError, match=r"^bw_factor: 0 is not a positive finite bandwidth factor$"):
        simpi.replay(TRACE, platform=platform, bw_factor={0: 0})
    with pytest.raises(ValueError, match=r"^os: -1 is not a finite overhead >= 0 \(seconds\)$"):
        simpi.replay(TRACE, platform=platform, os={0: (-1, 0)})
    with pytest.raises(ValueError, match="beyond the simulated clock"):
        simpi.replay(TRACE, model="constant", constant_time="1e9s")


def test_whole_numbers(ping):
    with pytest.raises(ValueError, match=r"^L: '-1' is not a whole number"):
        simpi.replay(ping(8), L=-1)
    with pytest.raises(ValueError, match=r"^L: '1.5' is not a whole number"):
        simpi.replay(ping(8), L=1.5)
    with pytest.raises(ValueError, match=r"^ranks: '0' is not a rank count between 1 and 4294967294$"):
        simpi.pattern("rd-allreduce", ranks=0)
    with pytest.raises(ValueError, match=r"^iterations: '0' is not a whole number between 1"):
        simpi.replay(pattern="rd-allreduce", iterations=0)
    with pytest.raises(ValueError, match="-L overflows 2\\^64 picoseconds in unit s"):
        simpi.replay(ping(8), L=10**8, time_unit="s")


def test_types_are_checked(ping):
    with pytest.raises(TypeError, match="report: expected True or False"):
        simpi.replay(ping(8), report="yes")
    with pytest.raises(TypeError, match="L: expected a number or a string, got a bool"):
        simpi.replay(ping(8), L=True)


def test_names_are_checked(ping):
    with pytest.raises(ValueError, match=r"^pattern: unknown pattern 'nope': expected one of binomial-bcast"):
        simpi.pattern("nope")
    with pytest.raises(ValueError, match=r"^model: 'fast' is not a model"):
        simpi.replay(ping(8), model="fast")
    with pytest.raises(ValueError, match=r"^time_unit: "):
        simpi.replay(ping(8), time_unit="fortnight")
    with pytest.raises(ValueError, match=r"^coll: unknown allreduce algorithm 'nope': expected one of "):
        simpi.replay(TRACE, coll={"allreduce": "nope"})
    with pytest.raises(ValueError, match=r"^timeline: unknown timeline extension '.txt'"):
        simpi.replay(THESIS, timeline="t.txt")


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"model": "flow"}, "model='flow' needs platform=FILE"),
        ({"model": "constant", "L": 10}, "L is a LogGOPS parameter: model='constant' does not use it"),
        ({"preset": "plain"}, "preset is a setting of SMPI's protocol: model='loggops' uses LogGOPS (L, o, g, G, O, S) instead"),
        ({"coll": {"allreduce": "rdb"}}, "coll applies to TIT traces; a GOAL schedule has its operations already"),
        ({"constant_time": "1us"}, "constant_time is for model='constant', not model='loggops'"),
        ({"ranks": 4}, "ranks is a pattern parameter: it needs pattern=NAME"),
        ({"pattern": "rd-allreduce"}, "give a file to replay or a pattern, not both"),
        ({"timeline_ranks": "0"}, "timeline_ranks selects what timeline=FILE shows: give timeline too"),
    ],
)
def test_settings_the_run_would_ignore_are_refused(kwargs, message):
    with pytest.raises(ValueError) as e:
        simpi.replay(THESIS, **kwargs)
    assert str(e.value) == message


def test_refusals_follow_the_command_line():
    # The same combinations the CLI refuses (exit code 2), in its flags' names.
    platform = str(OSU_ALLREDUCE / "platform.xml")
    out = cli("replay", str(TRACE), "--model", "flow", "--platform", platform, "--mapping", "round-robin",
              "--ranks-per-host", "2")
    assert out.returncode == 2 and "--ranks-per-host is for --mapping block" in out.stderr
    with pytest.raises(ValueError, match=r"^ranks_per_host is for mapping='block'$"):
        simpi.replay(TRACE, model="flow", platform=platform, mapping="round-robin", ranks_per_host=2)
    with pytest.raises(ValueError, match=r"^periodic is for pattern='stencil3d'$"):
        simpi.pattern("rd-allreduce", periodic=True)
    assert simpi.pattern("stencil3d", ranks=8, periodic=True).periodic


def test_malformed_schedule_names_file_and_line(tmp_path):
    bad = tmp_path / "bad.goal"
    bad.write_text("num_ranks 2\nrank 0 {\nl1: send 10b to 1 tag 0\nl2: bogus\n}\nrank 1 {\n}\n")
    with pytest.raises(simpi.InputError) as e:
        simpi.replay(bad)
    assert str(e.value).startswith(f"{bad}:4:5: expected 'send', 'recv' or 'calc'")
    assert isinstance(e.value, simpi.SimpiError)
    # The CLI says the same (exit code 1).
    out = cli("replay", str(bad))
    assert out.returncode == 1 and str(e.value) in out.stderr


def test_missing_files_are_input_errors(tmp_path):
    with pytest.raises(simpi.InputError, match="nothere.goal: cannot open"):
        simpi.replay(tmp_path / "nothere.goal")
    with pytest.raises(simpi.InputError, match="nothere.xml"):
        simpi.replay(THESIS, platform=tmp_path / "nothere.xml", model="flow")


def test_a_deadlock_is_a_stall_error(tmp_path):
    stuck = tmp_path / "stuck.goal"
    stuck.write_text("num_ranks 2\nrank 0 {\nl1: recv 8b from 1\n}\nrank 1 {\n}\n")
    with pytest.raises(simpi.StallError) as e:
        simpi.replay(stuck)
    # The report names the blocked rank and the line of its receive.
    assert "rank 0" in str(e.value) and f"{stuck}:3" in str(e.value)
