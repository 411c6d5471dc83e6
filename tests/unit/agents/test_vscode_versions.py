"""`vscode@VERSION`: a VS Code version (1.N.P) resolves to the code-server release that bundles
it; a code-server version (4.N.P) and `latest` resolve as for any package. Fast: the registry's
answer is recorded here (the code-server versions the registry served on 2026-11-30), the cache
is an empty temporary directory."""

from __future__ import annotations

import pytest

from probes.agents import AGENTS
from probes.errors import InputError
from probes.versions import spec

SERVED = [
    "4.12.0",
    "4.110.0",
    "4.112.0",
    "4.113.0",
    "4.113.1",
    "4.116.0",
    "4.117.0",
    "4.133.0",
    "4.134.0",
    "4.135.0",
    "4.136.2",
    "4.137.0",
    "4.138.0",
    "4.139.1",
]
PUB = spec.Published(SERVED, "4.139.1")
VSCODE = AGENTS["vscode"]


@pytest.fixture(autouse=True)
def empty_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("PROBE_CACHE", str(tmp_path))


def resolve(version: str) -> str:
    return spec.resolve(spec.Spec("vscode", version), "code-server", PUB, VSCODE.translate_version)


def test_a_code_server_version_and_latest_resolve_as_published():
    assert resolve("4.139.1") == "4.139.1"
    assert resolve("latest") == "4.139.1"


def test_a_known_vs_code_version_resolves_offline(monkeypatch):
    monkeypatch.setattr(spec, "published", lambda package: pytest.fail("asked the registry"))
    assert spec.resolve(spec.Spec("vscode", "1.139.1"), "code-server", None, VSCODE.translate_version) == "4.139.1"


def test_an_unknown_pairing_takes_the_newest_release_of_the_same_minor():
    assert resolve("1.113.5") == "4.113.1"


def test_a_vs_code_version_no_release_bundles_is_refused_in_one_line():
    with pytest.raises(
        InputError, match=r"no served code-server release bundles VS Code 1\.139\.0; .*4\.139\.1 \(VS Code 1\.139\.1\)"
    ):
        resolve("1.139.0")
    with pytest.raises(InputError, match=r"code-server 4\.120\.x served: none"):
        resolve("1.120.0")


def test_other_agents_keep_their_own_versions():
    assert spec.resolve(spec.Spec("copilot", "1.0.92"), "@github/copilot", spec.Published(["1.0.92"], "1.0.92")) == "1.0.92"


def host(monkeypatch, lacking: set[str]) -> None:
    """A host without the commands and header files in `lacking` (what the preflight reads)."""
    from probes.agents import vscode

    monkeypatch.setattr(vscode.shutil, "which", lambda cmd: None if cmd in lacking else f"/usr/bin/{cmd}")
    monkeypatch.setattr(vscode.Path, "exists", lambda self: "gssapi.h" not in lacking)
    debian = "/usr/share/nodejs/npm/bin/npm-cli.js"  # where Debian's npm package puts it
    monkeypatch.setattr(vscode.os.path, "realpath", lambda p: debian if "debian-npm" in lacking else "/usr/lib/node_modules/npm")


def test_preflight_names_what_is_missing_and_the_packages_in_one_line(monkeypatch):
    host(monkeypatch, {"gssapi.h"})
    with pytest.raises(InputError) as e:
        VSCODE.preflight()
    said = str(e.value)
    assert "\n" not in said and "Kerberos headers" in said and said.endswith("apt-get install libkrb5-dev (Debian/Ubuntu)")
    host(monkeypatch, {"gssapi.h", "cc", "gcc", "make"})
    with pytest.raises(
        InputError, match=r"a C/C\+\+ compiler, make, Kerberos .*: apt-get install build-essential libkrb5-dev \("
    ):
        VSCODE.preflight()
    host(monkeypatch, {"chromium", "chromium-browser", "google-chrome"})
    with pytest.raises(InputError, match=r"needs chromium to .*apt-get install chromium \("):
        VSCODE.preflight()
    host(monkeypatch, {"debian-npm"})  # Debian's npm package: its node-gyp links Debian's libnode
    with pytest.raises(InputError, match=r"needs an npm other than Debian's package .*: npm install -g npm@10 \("):
        VSCODE.preflight()


def test_preflight_passes_on_a_host_with_everything(monkeypatch):
    host(monkeypatch, set())
    VSCODE.preflight()
    host(monkeypatch, {"g++", "gcc", "chromium"})  # c++, cc and google-chrome do
    VSCODE.preflight()
