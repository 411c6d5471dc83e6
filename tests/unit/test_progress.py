"""Progress on stderr (probes/progress.py): quiet unless stderr is a terminal or --progress
asked for it; a step says its start and `done in N.Ns`; on a terminal its line is redrawn in
place by a thread that is gone when the step ends; bisect's rounds name their interval. And
the start-up of a probe exec'd by a shell that ran something first (probes.startup_began)."""

from __future__ import annotations

import os
import re
import select
import threading
import time

import pytest

from probes import progress, startup_began
from probes.agents import AGENTS
from probes.sweep import bisect
from probes.sweep.search import Point, search


@pytest.fixture(autouse=True)
def quiet_after():
    yield
    progress.ON[0] = False
    progress.ACTIVE[0] = 0


def redraws() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "probe-progress"]


def test_progress_is_quiet_unless_a_terminal_or_asked(capsys):
    progress.enable(False)  # capsys's stderr is no terminal
    with progress.step("installing copilot 1.0.92 from npm", sizer=lambda: 5_000_000):
        pass
    progress.say("bisect round 1 of ~3")
    assert capsys.readouterr() == ("", "")
    progress.enable(True)
    with progress.step("installing copilot 1.0.92 from npm", sizer=lambda: 5_000_000):
        time.sleep(0.05)
    out, err = capsys.readouterr()
    assert out == ""  # never on stdout
    start, end = err.splitlines()
    assert start == "probe: installing copilot 1.0.92 from npm ..."
    assert re.fullmatch(r"probe: installing copilot 1\.0\.92 from npm: done in \d+\.\ds \(5 MB\)", end), end


def test_a_step_that_raises_says_it_stopped_and_a_step_inside_another_is_quiet(capsys):
    progress.enable(True)
    with pytest.raises(KeyboardInterrupt), progress.step("session: payload-pretool on claude 2.1.3 (budget 20s)"):
        with progress.step("inner"):
            pass
        raise KeyboardInterrupt
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert len(lines) == 2 and "inner" not in err
    assert re.fullmatch(r"probe: session: .*: stopped after \d+\.\ds", lines[1]), lines
    assert progress.ACTIVE[0] == 0


def test_on_a_terminal_the_line_is_redrawn_with_bytes_and_seconds_and_the_thread_ends(monkeypatch):
    master, slave = os.openpty()
    with open(slave, "w", closefd=True) as tty:
        monkeypatch.setattr("sys.stderr", tty)
        progress.enable(False)  # a terminal: on without --progress
        assert progress.ON[0]
        with progress.step("installing copilot 1.0.93 from npm", sizer=lambda: 212_000_000, every=0.05):
            time.sleep(0.3)
            assert redraws()
        assert not redraws()
        tty.flush()
        shown = ""
        while select.select([master], [], [], 1.0)[0] and "done in" not in shown.rsplit("\r", 1)[-1]:
            shown += os.read(master, 65536).decode()
    os.close(master)
    assert re.search(r"\rprobe: installing copilot 1\.0\.93 from npm: 212 MB, \d+s\x1b\[K\r", shown), shown
    assert re.search(r"\rprobe: installing copilot 1\.0\.93 from npm: done in \d+\.\ds \(212 MB\)\x1b\[K\r?\n$", shown), shown


def test_dir_bytes_counts_the_files_below_a_linked_one_once(tmp_path):
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "claude.exe").write_bytes(b"x" * 1000)
    (tmp_path / "claude").hardlink_to(tmp_path / "bin" / "claude.exe")  # as npm lays out claude's binary
    (tmp_path / "a").write_bytes(b"y" * 10)
    assert progress.dir_bytes(tmp_path) == 1010
    assert progress.dir_bytes(tmp_path / "no such directory") == 0


def test_a_shell_that_ran_something_first_is_not_the_probes_start_up():
    now = time.time()
    # bash -c "pip install ... && probe run ...": probe keeps bash's start time, 80 s back
    assert startup_began(now, now - 80) == now
    # started by itself: the interpreter's start counts
    assert startup_began(now, now - 0.3) == now - 0.3


def test_bisect_rounds_name_their_interval(tmp_path, monkeypatch, capsys):
    """One line a round: its number out of about how many, what it probes, and between which
    versions (the ends first)."""
    versions = [f"1.0.{i}" for i in range(9)]

    def probe(agent: str, version: str, recipe: str, results: str, repeat: int, observation: str | None) -> Point:
        v = "denied" if bisect.spec.semver_key(version) >= bisect.spec.semver_key("1.0.5") else "allowed"
        return Point(version, v, v)

    monkeypatch.setattr(bisect, "_probe", probe)
    monkeypatch.setattr(bisect.install, "release", lambda agent, version: None)
    monkeypatch.setattr(bisect, "control_of", lambda recipe, agent: None)
    progress.enable(True)
    with bisect.Runner(AGENTS["copilot"], "exit2-pretool", tmp_path) as runner:
        runner.expect(len(versions))
        found = search(versions, runner.probe, 1, lambda _: None)
    assert found.status == "boundary"
    rounds = [line for line in capsys.readouterr().err.splitlines() if "round" in line]
    assert rounds[0] == "probe: bisect round 1 of ~4: exit2-pretool on copilot 1.0.0, 1.0.8 (the ends)"
    assert rounds[1] == "probe: bisect round 2 of ~4: exit2-pretool on copilot 1.0.4 (between 1.0.0 and 1.0.8)"
    assert len(rounds) == len(found.probed) - 1  # the ends are one round
