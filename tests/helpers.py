"""What tests share: the CLI versions they probe, running `probe` as a user would, and helpers
more than one test module uses. Test modules import from here, never from each other."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest
import yaml

from probes.agents import AGENTS
from probes.evidence.load import load
from probes.evidence.model import load_evidence
from probes.report.page import html_page
from probes.report.ranges import known_candidates
from probes.runner.contract import Reply, ScriptStep
from probes.runner.model import Body, ScriptedModel, plan_reply
from probes.sweep import schedule
from tests.synthetic import releases, write_points, write_published

ROOT = Path(__file__).resolve().parent.parent  # the repository
RESULTS = ROOT / "results"  # the committed evidence


COPILOT = "copilot@1.0.92"


COPILOT_OLD = "copilot@1.0.80"


COPILOT_OLDER = "copilot@1.0.71"


CLAUDE = "claude@2.1.328"


CODEX = "codex@0.171.0"


def need(condition: bool, reason: str) -> None:
    if condition:
        return
    if os.environ.get("CI"):
        pytest.fail(f"CI must provide this: {reason}")
    pytest.skip(reason)


def probe_cmd(*args: str, results: Path | None = None, check_json: bool = False, timeout: float = 300):
    """Run the `probe` command line in a subprocess, as a user would."""
    argv = [sys.executable, "-m", "probes.cli", *args]
    if results is not None:
        argv += ["--results", str(results)]
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=piped_env())


def write(root: Path, files: dict[str, str | dict], mode: int = 0o755) -> Path:
    for rel, content in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(content if isinstance(content, str) else json.dumps(content))
        if rel.endswith(".sh"):
            p.chmod(mode)
    return root


SCRIPT = [{"tool": "shell", "command": "echo hi"}, {"text": "done"}]


EXPECTED_ARGS = {"command": "echo hi", "description": "probe step"}


def request(port, path, body=None, method="POST"):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}",
        data=data,
        method=method,
        headers={"Content-Type": "application/json", "User-Agent": "probe-test/1.0"},
    )
    with urllib.request.urlopen(req, timeout=5) as resp:
        return resp.status, resp.headers.get("Content-Type"), resp.read().decode()


def sse(raw: str) -> list[tuple[str | None, str]]:
    """[(event, data)] from an SSE body."""
    out = []
    for block in raw.split("\n\n"):
        if not block.strip():
            continue
        event, data = None, None
        for line in block.split("\n"):
            if line.startswith("event: "):
                event = line[len("event: ") :]
            elif line.startswith("data: "):
                data = line[len("data: ") :]
        out.append((event, data))
    return out


def log_entries(model):
    return [json.loads(line) for line in model.log_path.read_text().splitlines()]


SYNTHETIC_AGENTS = {"copilot": "1.0.", "claude": "2.1."}


def tree(root: Path) -> Path:
    """150 releases per agent: exit2-pretool probed on all (denied until the 60th, allowed
    after: exact; 1.0.100 flaky), hang-pretool on every 7th (held, then fail-open: open)."""
    for agent, prefix in SYNTHETIC_AGENTS.items():
        published = releases(prefix, 150)
        write_published(root, agent, published)
        flaky = {published[100]: {"allowed": 4, "denied": 1}}  # one version's repeats disagree
        outcomes = {v: "denied" if i < 60 else "allowed" for i, v in enumerate(published)}
        write_points(root, agent, "exit2-pretool", outcomes, flaky)
        write_points(
            root, agent, "hang-pretool", {v: "held" if i < 100 else "fail-open" for i, v in enumerate(published) if i % 7 == 0}
        )
    return root


def page(root: Path) -> str:
    cells = load(root)
    classifiers = {"exit2-pretool": "decision", "hang-pretool": "liveness"}
    return html_page(cells, classifiers, root, known_candidates(root, sorted(SYNTHETIC_AGENTS)))


CANARIES = {
    "GITHUB_TOKEN": "ghp_CanaryCanaryCanary0000000000000001",
    "GH_ENTERPRISE_TOKEN": "gho_CanaryCanaryCanary0000000000000002",
    "OPENAI_API_KEY": "sk-CanaryCanaryCanary0000000000000003",
    "ANTHROPIC_API_KEY": "sk-ant-CanaryCanaryCanary00000000000004",
    "SLACK_BOT": "xoxb-Canary-Canary-0000000000000005",
    "SESSION_BLOB": "eyJhbGciOiJIUzI1NiJ9.eyJjYW5hcnkiOiI2In0.Q2FuYXJ5Q2FuYXJ5MDAwNg",
    "MY_NOTES": "github_pat_CanaryCanaryCanary0000000000000007",
    "DB_PASSWORD": "plain-canary-password-0008",
}


def env_with_canaries(**extra) -> dict:
    return {**os.environ, **CANARIES, **extra}


def leaked(paths, texts=()) -> list[str]:
    """Canary values found in any of the files (recursively) or texts."""
    hits = []
    for root in paths:
        for f in [root] if root.is_file() else root.rglob("*"):
            if f.is_file():
                data = f.read_text(errors="replace")
                hits += [f"{f}: {k}" for k, v in CANARIES.items() if v in data]
    hits += [f"output: {k}" for t in texts for k, v in CANARIES.items() if v in t]
    return hits


def processes_with(text: str) -> list[int]:
    """Live processes whose environment mentions `text` (a run id, a run's temp path)."""
    needle = text.encode()
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/environ", "rb") as f:
                    if needle in f.read():
                        with open(f"/proc/{entry}/stat", "rb") as s:
                            if s.read().rsplit(b")", 1)[1].split()[0] not in (b"Z", b"X"):
                                found.append(int(entry))
            except OSError:
                pass
    return found


def run_json(*args, results: Path, env=None, timeout=600):
    argv = [sys.executable, "-m", "probes.cli", "run", *args, "--json", "--results", str(results)]
    return subprocess.run(argv, capture_output=True, text=True, env=env, timeout=timeout)


GRACE_S = 20.0  # stopping.STOP_GRACE_S, and a margin for a loaded machine


def leftovers(pgid: int, markers: list[str]) -> list[str]:
    """Processes of process group `pgid`, or naming one of `markers` (a path only that
    command's processes use) in their command line, environment or working directory."""
    found = []
    me = os.getpid()
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == me:
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read()
            name = stat[stat.find(b"(") + 1 : stat.rfind(b")")].decode(errors="replace")
            state, _ppid, group = stat.rsplit(b")", 1)[1].split()[:3]
            if int(group) == pgid:
                found.append(f"{entry} {name} {state.decode()} (its group)")
                continue
            blob = b""
            for part in ("cmdline", "environ"):
                with open(f"/proc/{entry}/{part}", "rb") as f:
                    blob += f.read()
            try:
                blob += os.readlink(f"/proc/{entry}/cwd").encode()
            except OSError:
                pass
            if any(m.encode() in blob for m in markers):
                found.append(f"{entry} {name} {state.decode()} (marked)")
        except (OSError, ValueError, IndexError):
            continue
    return found


def gone_within(pgid: int, markers: list[str], until: float) -> list[str]:
    """What is left of the command at `until` (monotonic), or [] as soon as nothing is."""
    while (left := leftovers(pgid, markers)) and time.monotonic() < until:
        time.sleep(0.1)
    return left


def interrupt(proc: subprocess.Popen[str], sig: signal.Signals, markers: list[str], group: bool = True) -> tuple[str, float]:
    """Send `sig` (to the group, as `timeout`, a CI runner and a terminal do, or to `probe`
    alone, as `kill PID` and `docker stop` do); the command exits 130 within GRACE_S leaving
    no process. Its stderr, and how long it took to exit."""
    sent = time.monotonic()
    if group:
        os.killpg(proc.pid, sig)
    else:
        os.kill(proc.pid, sig)
    try:
        _, err = proc.communicate(timeout=GRACE_S)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail(f"still running {GRACE_S:.0f}s after {sig.name}: {leftovers(proc.pid, markers)}")
    took = time.monotonic() - sent
    assert proc.returncode == 130, err
    assert gone_within(proc.pid, markers, sent + GRACE_S) == []
    assert "Traceback" not in err, err
    return err, took


def probe(*args, cwd=None, env=None):
    """`probe ARGS` as a pipe would run it: no COLUMNS (pytest's readline exports COLUMNS=80 to
    children, which would fit tables and lists to 80 columns) unless `env` sets it."""
    return subprocess.run(
        [sys.executable, "-m", "probes.cli", *args], capture_output=True, text=True, cwd=cwd, env=piped_env(env)
    )


def piped_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of a `probe` whose stdout is a pipe: no COLUMNS, then `extra`."""
    return {k: v for k, v in os.environ.items() if k != "COLUMNS"} | (extra or {})


def chromium(*args, tmp_path):
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    need(exe is not None, "chromium not on PATH (apt-get install chromium)")
    flags = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-quic",
        f"--user-data-dir={tmp_path / 'chromium-profile'}",
    ]
    return subprocess.run([exe, *flags, *args], capture_output=True, text=True, timeout=120)


class Gauge(schedule.CpuGauge):
    """Reports the same idle CPU at every tick; opens `gate` after `ticks` samples."""

    def __init__(self, idle: float | None, gate: threading.Event, ticks: int) -> None:
        self.idle, self.gate, self.left = idle, gate, ticks

    def sample(self, now: float | None = None) -> None:
        self.left -= 1
        if self.left <= 0:
            self.gate.set()

    def idle_cores(self) -> float | None:
        return self.idle


def canary_recipes(tmp_path: Path) -> Path:
    """The shipped recipes plus one whose hook prints canaries and whose prompt and extra
    environment carry them: redaction of hook output, model requests and CLI output."""
    d = tmp_path / "recipes"
    shutil.copytree(ROOT / "recipes", d)
    words = " ".join(CANARIES.values())
    body = {
        "question": "canary",
        "agents": ["copilot", "claude"],
        "classifier": "decision",
        "prompt": f"Run the probe step. {CANARIES['GITHUB_TOKEN']}",
        "env": {"MY_SERVICE_TOKEN": CANARIES["OPENAI_API_KEY"], "HARMLESS": CANARIES["SESSION_BLOB"]},
        "hooks": [
            {
                "event": "pre_tool",
                "behavior": {"stdout": {"permissionDecision": "deny", "permissionDecisionReason": words}, "stderr": words},
            },
            {"event": "post_tool", "behavior": {"stdout": words}},
        ],
    }
    (d / "canary-pretool.yaml").write_text(json.dumps({"name": "canary-pretool", "control": "canary-pretool-control", **body}))
    (d / "canary-pretool-control.yaml").write_text(
        json.dumps({"name": "canary-pretool-control", "control_of": "canary-pretool", **body})
    )
    return d


CONNECT_RE = re.compile(
    r"connect\(\d+, \{sa_family=AF_INET6?, sin6?_port=htons\(\d+\), "
    r'(?:sin6_flowinfo=[^,]+, )?(?:inet_pton\(AF_INET6, "|sin_addr=inet_addr\(")([^"]+)"\)'
    r".*\) = (0|-1 EINPROGRESS)"
)


def assert_no_connection_beyond_loopback(spec: str, tmp_path: Path) -> None:
    """The CLI, traced by strace: every connection it made went to the scripted model on loopback."""
    need(shutil.which("strace") is not None, "strace not on PATH")
    results = tmp_path / "results"
    assert run_json(spec, "payload-pretool", results=results).returncode == 0  # installed first
    trace = tmp_path / "trace"
    proc = subprocess.run(
        [
            "strace",
            "-f",
            "-e",
            "trace=connect",
            "-o",
            str(trace),
            sys.executable,
            "-m",
            "probes.cli",
            "run",
            spec,
            "payload-pretool",
            "--json",
            "--results",
            str(results),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["network"] == "isolated"
    lines = trace.read_text().splitlines()
    made = [m.group(1) for line in lines if (m := CONNECT_RE.search(line))]
    assert made, "the trace saw no successful connect at all (the CLI's to the model server)"
    assert all(a.startswith("127.") or a in ("::1", "::ffff:127.0.0.1") for a in made), made


def every_tool_name() -> dict[str, list[str]]:
    """Each kind's tool names over every agent, in registry order: for a scripted model that
    serves no one agent."""
    out: dict[str, list[str]] = {}
    for agent in AGENTS.values():
        for kind, names in agent.tool_names.items():
            known = out.setdefault(kind, [])
            known += [n for n in names if n not in known]
    return out


class AnyAgentModel(ScriptedModel):
    """The scripted model with every agent's tool names (a run's gets its agent's from the plan)."""

    def __init__(self, script: list[ScriptStep], log_path: Path, subagent: tuple[str, list[ScriptStep]] | None = None):
        super().__init__(script, log_path, subagent=subagent, tool_names=every_tool_name())


def any_agent_reply(
    body: Body,
    script: list[ScriptStep],
    subagent: tuple[str, list[ScriptStep]] | None = None,
    prompts: dict[str, list[ScriptStep]] | None = None,
) -> Reply:
    """model.plan_reply with every agent's tool names."""
    return plan_reply(body, script, subagent, prompts, every_tool_name())


WORKFLOW = ROOT / ".github" / "workflows" / "nightly.yml"


def shard_tree(tmp_path: Path, name: str, *cells: str) -> Path:
    """A results tree holding copies of committed records, e.g. "copilot/1.0.92/hang-pretool"."""
    tree = tmp_path / name
    for cell in cells:
        copy_record(RESULTS / f"{cell}.json", tree / f"{cell}.json")
    return tree


def copy_record(src: Path, dst: Path) -> None:
    """A committed record copied into another results tree (src and dst both
    RESULTS/AGENT/VERSION/RECIPE.json in shape) with what it refers to (store.py), from its
    agent's store: its refs' blobs, and the part it shares (lean.shares)."""
    dst.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(src, dst)
    copy_blobs(src, dst.parent.parent)


def copy_blobs(record: Path, agent_dir: Path) -> list[str]:
    """The blobs the committed `record` refers to and shares, copied into `agent_dir`'s store
    (its agent's folder in another tree); their names."""
    from probes.evidence import store

    stored = json.loads(record.read_text())
    names = [*store.refs(stored), *([n] if (n := store.shared_ref(stored)) else [])]
    (agent_dir / store.BLOBS).mkdir(parents=True, exist_ok=True)
    for name in names:
        shutil.copy(record.parent.parent / store.BLOBS / f"{name}.txt", agent_dir / store.BLOBS)
    return names


def copy_version(src: Path, dst: Path) -> None:
    """A committed version's folder (RESULTS/AGENT/VERSION) copied with what its records refer to."""
    for record in sorted(src.glob("*.json")):
        copy_record(record, dst / record.name)


def fixture(agent: str, version: str, recipe: str) -> dict:
    return load_evidence(RESULTS / agent / version / f"{recipe}.json")


def workflow_probe_commands() -> list[list[str]]:
    """Every `probe ...` command in the workflow's run steps, with ${{ }} expressions and
    shell variables replaced by sample values."""
    jobs = yaml.safe_load(WORKFLOW.read_text())["jobs"]
    commands = []
    for job in jobs.values():
        for step in job["steps"]:
            script = step.get("run", "").replace("\\\n", " ")
            for line in script.splitlines():
                line = line.strip().replace('"${args[@]}" ', "")
                line = re.sub(r"\$\{\{[^}]*\}\}", "1/2", line)
                line = re.sub(r"\$\{?(\w+)\}?", "1", line)
                if line.startswith("probe "):
                    commands.append(shlex.split(line.split(">")[0].split("||")[0]))
    return commands
