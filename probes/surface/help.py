"""The CLI's flags, from the `--help` of the CLI and of each subcommand it lists (one level).

Each is run with the agent's own isolation (session_env in a fresh HOME, as a session is, no
model: the port is a closed one), stdin closed, in its own process group, killed at
HELP_TIMEOUT_S; at most HELP_MAX_BYTES of its output is kept and at most MAX_SUBCOMMANDS
subcommands asked. Nothing but `--help` is ever run."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import tempfile
from pathlib import Path

from probes.agents import Agent
from probes.surface.model import Item

HELP_TIMEOUT_S = 30.0
HELP_MAX_BYTES = 256 * 1024
MAX_SUBCOMMANDS = 40
CLOSED_PORT = "9"  # discard: nothing listens there, and nothing is asked of a model anyway

HEADING_RE = re.compile(r"^\s*(?:commands|subcommands|available commands)\s*:?\s*$", re.IGNORECASE)
COMMAND_RE = re.compile(r"^\s{1,8}([a-z][a-z0-9-]{0,40})(?:[\s|,\[<]|$)")
OPTION_RE = re.compile(r"^\s{0,12}-")
FLAG_RE = re.compile(r"(?<![\w-])--[a-zA-Z0-9][a-zA-Z0-9-]*")
ANCHOR = "an option line of --help (a line starting with -)"


def subcommands(text: str, program: str) -> list[str]:
    """The names listed under a `Commands:` heading (the program's own name, as yargs prints
    `gemini mcp`, skipped), in order, without `help`."""
    names: list[str] = []
    inside = False
    for line in text.splitlines():
        if HEADING_RE.match(line):
            inside = True
            continue
        if not inside:
            continue
        if not line.strip():
            if names:
                inside = False
            continue
        if not line[:1].isspace():
            inside = False
            continue
        words = line.split()
        if words and words[0] == program and len(words) > 1:
            line = "  " + line.strip()[len(program) :].lstrip()
        m = COMMAND_RE.match(line)
        if m and m.group(1) not in ("help", *names):
            names.append(m.group(1))
    return names


def flags(text: str, command: str, sub: str = "") -> list[Item]:
    """Every `--flag` on an option line (its column of names, before the description)."""
    items = []
    for line in text.splitlines():
        if not OPTION_RE.match(line):
            continue
        names = re.split(r"\s{2,}", line.strip(), maxsplit=1)[0]
        for flag in FLAG_RE.findall(names):
            name = f"{sub} {flag}" if sub else flag
            items.append(Item(kind="flag", name=name, help=command, line=line.strip()[:200], anchor=ANCHOR))
    return items


def run_help(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[str, str | None]:
    """The output of one --help (stdout, else stderr) and a note when it failed."""
    try:
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            cwd=cwd,
            start_new_session=True,
        )
    except OSError as e:
        return "", f"{' '.join(argv[-2:])}: could not start ({e.strerror})"
    try:
        out, err = proc.communicate(timeout=HELP_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return "", f"{' '.join(argv[-2:])}: no answer within {HELP_TIMEOUT_S:.0f}s"
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    text = (out or err)[:HELP_MAX_BYTES].decode("utf-8", "replace")
    note = None if proc.returncode == 0 else f"{' '.join(argv[-2:])}: exit {proc.returncode}"
    return text, note


def help_env(agent: Agent, prefix: Path, home: Path) -> dict[str, str]:
    """The agent's session isolation in `home`, with only PATH kept from the caller."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "TMPDIR": str(home),
        "LANG": "C.UTF-8",
        "TERM": "dumb",
        "NO_COLOR": "1",
        "COLUMNS": "200",
        "CI": "1",
    }
    env.update({k: v.replace("{port}", CLOSED_PORT) for k, v in agent.session_env(prefix, home).items()})
    return env


def read_flags(agent: Agent, prefix: Path) -> tuple[list[Item], list[str]]:
    """The flags of the CLI and of each subcommand its --help lists; notes of what failed."""
    binary = agent.binary_path(prefix)
    program = agent.name
    items: list[Item] = []
    notes: list[str] = []
    with tempfile.TemporaryDirectory(prefix="probe-surface-") as tmp:
        home = Path(tmp) / "home"
        home.mkdir()
        env = help_env(agent, prefix, home)
        text, note = run_help([str(binary), "--help"], env, home)
        notes += [note] if note else []
        items += flags(text, f"{program} --help")
        for sub in subcommands(text, program)[:MAX_SUBCOMMANDS]:
            sub_text, note = run_help([str(binary), sub, "--help"], env, home)
            notes += [note] if note else []
            items += flags(sub_text, f"{program} {sub} --help", sub)
    return items, notes
