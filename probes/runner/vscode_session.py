"""One VS Code agent turn, headless, as one command: what the runner starts as "the CLI" for
the vscode agent. Standard library only.

    python3 vscode_session.py PREFIX PROMPT

It writes VS Code's user settings, the scripted model as a custom-endpoint chat model
(PROBE_MODEL_URL) and the driver extension (vscode_driver.js, beside this file), starts
code-server on a free loopback port and headless chromium on its page (the chat runs only
with a web client connected), polls for the driver's result file, then stops both and exits:
0 when the turn ended, 1 when it failed, 2 when code-server or chromium would not start.
Everything it makes lives under $HOME/.vscode-probe; the workspace is the working directory.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

POLL_S = 0.1
START_TIMEOUT_S = 60.0  # code-server answering its health check
TURN_TIMEOUT_S = 600.0  # the runner's budget cuts a session first
STOP_GRACE_S = 3.0
VENDOR = "customendpoint"
MODEL_ID = "probe-model"
DRIVER = "probe.vscode-driver-0.0.1"
CHAT_EXTENSION = "github.copilot-chat"
BROWSERS = ("chromium", "chromium-browser", "google-chrome")  # Debian's; Ubuntu's; GitHub's runners'

SETTINGS = {
    "chat.allowAnonymousAccess": True,
    "chat.useHooks": True,
    "chat.useClaudeHooks": True,
    "chat.permissions.default": "autoApprove",
    "chat.tools.global.autoApprove": True,
    "chat.utilitySmallModel": f"{VENDOR}/{MODEL_ID}",
    "telemetry.telemetryLevel": "off",
    "update.mode": "none",
    "extensions.autoCheckUpdates": False,
    "extensions.autoUpdate": False,
    "workbench.startupEditor": "none",
    "security.workspace.trust.enabled": False,
    # The run's user may have no login shell (nobody): the terminal tool runs bash.
    "terminal.integrated.defaultProfile.linux": "bash",
    "terminal.integrated.profiles.linux": {"bash": {"path": "/bin/bash"}},
}


def write_json(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def prepare(root: Path, prompt: str, model_url: str) -> tuple[Path, Path, Path]:
    """User data and extensions directories, and the result file the driver will write."""
    ud, ext = root / "user-data", root / "extensions"
    write_json(ud / "User" / "settings.json", SETTINGS)
    model = {
        "id": MODEL_ID,
        "name": "Probe Model",
        "url": model_url,
        "toolCalling": True,
        "vision": False,
        "maxInputTokens": 100000,
        "maxOutputTokens": 4000,
    }
    endpoint = {"name": "Probe", "vendor": VENDOR, "apiKey": "probe-offline-placeholder", "apiType": "chat-completions"}
    write_json(ud / "User" / "chatLanguageModels.json", [{**endpoint, "models": [model]}])
    driver = ext / DRIVER
    driver.mkdir(parents=True, exist_ok=True)
    manifest = {
        "name": "vscode-driver",
        "publisher": "probe",
        "version": "0.0.1",
        "engines": dict(vscode="^1.90.0"),  # (a dict call: agent names are said in probes/agents/ only)
        "activationEvents": ["onStartupFinished"],
        "main": "./extension.js",
    }
    write_json(driver / "package.json", manifest)
    shutil.copy(Path(__file__).with_name("vscode_driver.js"), driver / "extension.js")
    result = root / "turn.json"
    config = {
        "query": prompt,
        "vendor": VENDOR,
        "chat_extension": CHAT_EXTENSION,
        "result": str(result),
        "model_wait_ms": int(START_TIMEOUT_S * 1000),
    }
    write_json(driver / "probe-driver.json", config)
    return ud, ext, result


def healthy(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1) as r:
            return bool(r.status == 200)
    except OSError:
        return False


def stop(procs: list[subprocess.Popen[bytes]]) -> None:
    """SIGTERM each process group, then SIGKILL what is left after a short grace."""
    for p in procs:
        try:
            os.killpg(p.pid, signal.SIGTERM)
        except OSError:
            pass
    end = time.monotonic() + STOP_GRACE_S
    for p in procs:
        try:
            p.wait(max(0.0, end - time.monotonic()))
        except subprocess.TimeoutExpired:
            pass
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except OSError:
            pass
        p.wait()


def main(prefix: Path, prompt: str) -> int:
    root = Path(os.environ["HOME"]) / ".vscode-probe"
    ud, ext, result = prepare(root, prompt, os.environ["PROBE_MODEL_URL"])
    node = prefix / "node" / "bin" / "node"
    entry = prefix / "node_modules" / "code-server" / "out" / "node" / "entry.js"
    port = free_port()
    procs: list[subprocess.Popen[bytes]] = []
    logs = root / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    try:
        with open(logs / "code-server.log", "wb") as log:
            argv = [str(node), str(entry), "--auth", "none", "--bind-addr", f"127.0.0.1:{port}"]
            argv += ["--user-data-dir", str(ud), "--extensions-dir", str(ext), "--disable-workspace-trust"]
            argv += ["--disable-telemetry", "--disable-update-check", "--disable-getting-started-override"]
            procs.append(subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, start_new_session=True))
        deadline = time.monotonic() + START_TIMEOUT_S
        while not healthy(port):
            if procs[0].poll() is not None or time.monotonic() > deadline:
                print(f"vscode-session: code-server did not start (see {logs / 'code-server.log'})", file=sys.stderr)
                return 2
            time.sleep(POLL_S)
        chromium = next(filter(None, map(shutil.which, BROWSERS)), BROWSERS[0])
        url = f"http://127.0.0.1:{port}/?folder={os.getcwd()}"
        argv = [chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"]
        argv += [f"--user-data-dir={root / 'chromium'}", "--no-first-run", "--no-default-browser-check", url]
        with open(logs / "chromium.log", "wb") as log:
            try:
                procs.append(subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, start_new_session=True))
            except OSError as e:
                print(f"vscode-session: cannot start {chromium}: {e.strerror}", file=sys.stderr)
                return 2
        deadline = time.monotonic() + TURN_TIMEOUT_S
        while not result.exists():
            if any(p.poll() is not None for p in procs) or time.monotonic() > deadline:
                print("vscode-session: code-server or chromium ended before the turn did", file=sys.stderr)
                return 1
            time.sleep(POLL_S)
        turn = json.loads(result.read_text())
        print(json.dumps(turn))
        if not turn.get("ok"):
            print(f"vscode-session: the turn failed: {turn.get('error', '')[:300]}", file=sys.stderr)
        return 0 if turn.get("ok") else 1
    finally:
        stop(procs)


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]), sys.argv[2]))
