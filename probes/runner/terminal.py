"""The terminal driver: the CLI under a pseudo-terminal (pexpect) of a fixed size, its screen
rendered as a person sees it (pyte), driven through the plan's steps. Only interactive plans
use it, so the runner stays standard-library only otherwise. It knows nothing of agents: the
plan gives the screen markers (regular expressions on the rendered screen) and the keys.

Steps: {"do": "start", "argv"}, {"do": "prompt", "text"}, {"do": "answer", "text", "keys"},
{"do": "command", "text", "presses"} (a slash command, and keys for a dialog it opens),
{"do": "exit", "text"} (quit, wait for the process to end). Every step ends with a snapshot of
the screen; a step that cannot reach the state it waits for ends the drive with an error
naming it, never a hang.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from functools import partial
from typing import IO, TYPE_CHECKING, Any

import pexpect
import pyte

if TYPE_CHECKING:
    from .contract import Plan, TtyRecord, TtyStep, TtyStepRecord
    from .model import ScriptedModel

Tick = Callable[[], None]  # called while waiting: the runner's watch, and its Ctrl-C
Preexec = Callable[[], None]

TURN_TIMEOUT_S = 30.0  # from a prompt or answer to the idle prompt
SETTLE_S = 0.4  # no screen output for this long: the screen is stable
QUIET_S = 1.5  # the ready prompt with no output for this long: idle, even with no sign of work
SCREEN_CHARS = 4000  # a snapshot keeps at most this much of the screen
# A dialog may refuse keys typed ahead: Claude Code 2.1.332's folder-trust dialog takes an arrow
# only 500 ms after it is drawn and 700 ms after the last key (kIn), and Enter only just after an arrow.
KEY_PAUSE_S = 1.0
NOTICES_MAX = 3  # notices dismissed at one start; more is a loop, not a session
DECCKM = 1 << 5  # application cursor keys: pyte keeps a private mode shifted by 5 (its DECAWM is 7 << 5)


class Screen(pyte.Screen):
    """pyte's screen, tolerant of private status queries (CSI ? n), answering the CLI's
    terminal queries through `reply`."""

    reply: Callable[[str], None] | None = None

    def report_device_status(self, mode: int, **kwargs: Any) -> None:
        if not kwargs.get("private"):
            super().report_device_status(mode)

    def select_graphic_rendition(self, *attrs: int, **kwargs: Any) -> None:
        super().select_graphic_rendition(*attrs)

    def write_process_input(self, data: str) -> None:
        if self.reply:
            self.reply(data)


class Terminal:
    def __init__(
        self,
        argv: list[str],
        env: dict[str, str],
        cwd: str,
        rows: int,
        cols: int,
        log: IO[bytes],
        tick: Tick,
        preexec: Preexec | None = None,
    ):
        self.screen = Screen(cols, rows)
        self.stream = pyte.ByteStream(self.screen)
        self.log, self.tick = log, tick
        self.child = pexpect.spawn(
            argv[0], argv[1:], env=env, cwd=cwd, dimensions=(rows, cols), encoding=None, timeout=1, preexec_fn=preexec
        )
        self.screen.reply = lambda data: self.child.send(data.encode())
        self.last_output = time.time()

    def pump(self, timeout: float = 0.05) -> bool:
        """Read what the CLI wrote; False once it has closed the terminal."""
        self.tick()
        try:
            data = self.child.read_nonblocking(65536, timeout=timeout)
        except pexpect.TIMEOUT:
            return True
        except pexpect.EOF:
            return False
        self.log.write(data)
        self.stream.feed(data)
        self.last_output = time.time()
        return True

    def text(self) -> str:
        return "\n".join(str(line).rstrip() for line in self.screen.display).strip("\n")

    def shows(self, pattern: str) -> bool:
        return bool(pattern) and re.search(pattern, self.text()) is not None

    def send(self, text: str) -> None:
        self.child.send(text.encode())

    def press(self, key: str) -> None:
        """A key as this terminal sends it: an arrow in application cursor mode (DECCKM) is ESC O x."""
        if key[:2] == "\x1b[" and len(key) == 3 and DECCKM in self.screen.mode:
            key = "\x1bO" + key[2]
        self.send(key)

    def settle(self, deadline: float) -> None:
        while time.time() < deadline and self.pump() and time.time() - self.last_output < SETTLE_S:
            pass

    def close(self) -> int | None:
        if self.child.isalive():
            self.child.terminate(force=True)
        self.child.close()
        status: int | None = self.child.exitstatus if self.child.signalstatus is None else -self.child.signalstatus
        return status


class Driver:
    def __init__(
        self, plan: Plan, env: dict[str, str], tick: Tick, model: ScriptedModel, deadline: float, preexec: Preexec | None = None
    ):
        spec = plan["interactive"]
        self.preexec = preexec
        self.steps, self.markers, self.ready_timeout_s = spec["steps"], spec["markers"], spec["ready_timeout_s"]
        self.rows, self.cols = spec["rows"], spec["cols"]
        self.env, self.cwd, self.tick, self.model, self.deadline = env, plan["cwd"], tick, model, deadline
        self.log = open(plan["stdout"] + ".tty", "ab")
        self.term: Terminal | None = None
        self.exit_codes: list[int | None] = []
        self.dismissed: list[str] = []  # the notices the start steps dismissed
        self.pgids: list[int] = []

    def until(self, limit_s: float) -> float:
        return min(time.time() + limit_s, self.deadline)

    @property
    def terminal(self) -> Terminal:
        assert self.term is not None, "no terminal before the first start step"
        return self.term

    def ready(self) -> bool:
        shows = self.terminal.shows
        return shows(self.markers["ready"]) and not shows(self.markers["busy"]) and not shows(self.markers.get("stuck", ""))

    def notice(self) -> bool:
        """The agent's notice marker on a screen quiet for QUIET_S: a dialog waiting for a key."""
        pattern = self.markers.get("notice")
        return bool(pattern) and time.time() - self.terminal.last_output >= QUIET_S and self.terminal.shows(pattern or "")

    def redrawn(self, shown: str) -> bool:
        return self.terminal.text() != shown

    def stuck(self) -> bool:
        """The agent's stuck marker on a screen quiet for QUIET_S: drawn for good, not in passing."""
        pattern = self.markers.get("stuck")
        return bool(pattern) and time.time() - self.terminal.last_output >= QUIET_S and self.terminal.shows(pattern or "")

    def wait(self, condition: Callable[[], bool], limit_s: float) -> bool:
        end = self.until(limit_s)
        while time.time() < end:
            if not self.terminal.pump():
                return condition()
            if condition():
                return True
        return False

    def wait_idle(self, finals_before: int, limit_s: float) -> str | None:
        """After input: "idle" once the turn is over (the model's final text served, or the
        busy marker seen and gone) and the ready prompt is back and stable, or the ready prompt
        shows with no output for QUIET_S (a turn cut short); "approval" when an approval prompt
        shows instead; None at the limit."""
        end, seen_busy = self.until(limit_s), False
        while time.time() < end and self.terminal.pump():
            if self.terminal.shows(self.markers["approval"]):
                return "approval"
            if self.terminal.shows(self.markers["busy"]):
                seen_busy = True
            elif self.ready():
                quiet = time.time() - self.terminal.last_output
                worked = self.model.final_texts > finals_before or seen_busy
                if (worked and quiet >= SETTLE_S) or quiet >= QUIET_S:
                    return "idle"
        return None

    def type_line(self, text: str) -> None:
        """Type, wait until the input shows it (and a command menu is drawn), press Enter."""
        self.terminal.send(text)
        self.wait(lambda: text[:40] in self.terminal.text(), 5.0)
        self.terminal.settle(self.until(2.0))
        self.terminal.send("\r")

    def step(self, step: TtyStep) -> tuple[bool, str | None]:
        """Do one step: (whether it reached the state it waits for, the state or the failure)."""
        do = step["do"]
        if do == "start":
            if self.term is not None:
                self.exit_codes.append(self.terminal.close())
            self.term = Terminal(step["argv"], self.env, self.cwd, self.rows, self.cols, self.log, self.tick, self.preexec)
            self.pgids.append(self.terminal.child.pid)
            end = self.until(self.ready_timeout_s)
            ok = self.wait(lambda: self.ready() or self.stuck() or self.notice(), self.ready_timeout_s)
            for _ in range(NOTICES_MAX):
                if not (ok and self.notice()):
                    break
                self.dismissed.append(self.terminal.text()[-SCREEN_CHARS:])
                self.terminal.press("\r")  # its default choice: go on with the session
                self.wait(partial(self.redrawn, self.terminal.text()), 5.0)  # the key taken: the notice redrawn or gone
                ok = self.wait(lambda: self.ready() or self.stuck() or self.notice(), max(0.0, end - time.time()))
            ok = ok and self.ready()
            if not ok and self.stuck():
                return False, "the screen says it will not get ready (" + self.markers.get("stuck", "") + ")"
            return ok, "ready" if ok else "could not reach the ready prompt"
        if do == "prompt":
            finals = self.model.final_texts
            self.type_line(step["text"])
            state = self.wait_idle(finals, TURN_TIMEOUT_S)
            return state is not None, state or "the turn did not end"
        if do == "answer":
            if not self.wait(lambda: self.terminal.shows(self.markers["approval"]), 10.0):
                return False, "no approval prompt on screen"
            finals = self.model.final_texts
            gone = lambda: not self.terminal.shows(self.markers["approval"])  # noqa: E731
            for _ in range(3):  # a prompt drawn before it takes input drops the key: settle, resend
                self.terminal.settle(self.until(2.0))
                self.terminal.send(step["keys"])
                if self.wait(gone, 3.0):
                    break
            else:
                return False, "the approval prompt stayed after the answer"
            state = self.wait_idle(finals, TURN_TIMEOUT_S)
            return state is not None, state or "the turn did not end"
        if do == "command":  # done when the input box is empty again and the screen is still
            self.type_line(step["text"])
            typed = step["text"][:40]
            for key in step.get("presses", []):  # a dialog it opened (the typed line gone): each key at a person's pace
                self.wait(lambda: typed not in self.terminal.text(), 5.0)
                self.terminal.settle(self.until(2.0))
                self.wait(lambda: False, KEY_PAUSE_S)
                self.terminal.press(key)
            ok = self.wait(lambda: self.ready() and time.time() - self.terminal.last_output >= QUIET_S, 10.0)
            return ok, "ready" if ok else "not ready after the command"
        if do == "wait":  # nothing typed; a turn the CLI starts meanwhile is waited out
            finals, end = self.model.final_texts, self.until(step["seconds"])
            while time.time() < end and self.terminal.pump():
                pass
            state = self.wait_idle(finals, TURN_TIMEOUT_S)
            return state is not None, state or "the turn did not end"
        if do == "exit":
            self.type_line(step["text"])
            ok = self.wait(lambda: not self.terminal.child.isalive(), 15.0)
            return ok, "exited" if ok else "still running after exit"
        raise ValueError(f"unknown step {do!r}")

    def run(self, started: float) -> TtyRecord:
        steps: list[TtyStepRecord] = []
        error = None
        try:
            for step in self.steps:
                t = time.time()
                ok, state = self.step(step)
                steps.append(
                    {
                        "do": step["do"],
                        "text": step.get("text"),
                        "offset_s": round(t - started, 3),
                        "took_s": round(time.time() - t, 3),
                        "ok": ok,
                        "state": state,
                        "screen": self.terminal.text()[-SCREEN_CHARS:],
                    }
                )
                if step["do"] == "start" and self.dismissed:
                    steps[-1]["dismissed"], self.dismissed = self.dismissed, []
                if not ok:
                    error = f"{step['do']}: {state}"
                    break
        finally:
            if self.term is not None:
                self.exit_codes.append(self.terminal.close())
            self.log.close()
        return {
            "steps": steps,
            "error": error,
            "rows": self.rows,
            "cols": self.cols,
            "exit_codes": self.exit_codes,
            "timed_out": time.time() >= self.deadline,
        }


def drive(
    plan: Plan,
    env: dict[str, str],
    tick: Tick,
    model: ScriptedModel,
    started: float,
    deadline: float,
    preexec: Preexec | None = None,
) -> tuple[TtyRecord, list[int]]:
    """Run the plan's interactive steps. Returns the drive record and the terminals' pids
    (each the leader of its own session, for the runner's final sweep)."""
    driver = Driver(plan, env, tick, model, deadline, preexec)
    record = driver.run(started)
    return record, driver.pgids
