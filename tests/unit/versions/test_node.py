"""The Node.js a CLI asks for (versions/node.py): reading npm's ranges as packages write them,
and which entry points Node runs. Installing a Node from npm is tested for real
(tests/real/test_real.py: Copilot 1.0.56 on the Node 24 its launcher asks for)."""

from __future__ import annotations

from pathlib import Path

import pytest

from probes.versions import node

HOST_20 = (20, 20, 2)


@pytest.mark.parametrize(
    ("engines", "have", "expected"),
    [
        (">=20", HOST_20, (True, None)),
        (">=20.6.0", HOST_20, (True, None)),
        (">=22.0.0", HOST_20, (False, 22)),
        (">=20", (18, 19, 0), (False, 20)),  # Gemini CLI on Debian bookworm's Node
        ("^18 || ^20 || >=22", HOST_20, (True, None)),
        ("^22 || ^24", HOST_20, (False, 22)),  # the nearest major above
        ("^24 || ^22", HOST_20, (False, 22)),
        (">=18 <20", HOST_20, (False, None)),  # nothing newer would do
        ("^22", (24, 1, 0), (False, None)),
        ("20.x", HOST_20, (True, None)),
        ("*", HOST_20, (True, None)),
        (">=16", HOST_20, (True, None)),
    ],
)
def test_a_range_accepts_the_host_or_names_the_nearest_major(engines, have, expected):
    assert node.accepts(engines, have) == expected


def test_only_an_entry_point_node_runs_asks(tmp_path: Path):
    script, binary = tmp_path / "cli.js", tmp_path / "cli"
    script.write_text("#!/usr/bin/env node\nconsole.log(1)\n")
    binary.write_bytes(b"\x7fELF\x02\x01\x01" + b"\0" * 64)
    assert node.run_by_node(script) and not node.run_by_node(binary)
    assert not node.run_by_node(tmp_path / "missing")


def test_the_package_engines_are_read_only_for_a_node_script(tmp_path: Path):
    package = tmp_path / "node_modules" / "@scope" / "cli"
    package.mkdir(parents=True)
    (package / "package.json").write_text('{"engines": {"node": ">=22.0.0"}}')
    (package / "cli.js").write_text("#!/usr/bin/env node\n")
    (package / "native").write_bytes(b"\x7fELF")
    assert node.package_wants(tmp_path, "@scope/cli", package / "cli.js") == ">=22.0.0"
    assert node.package_wants(tmp_path, "@scope/cli", package / "native") == ""
    (package / "package.json").write_text('{"engines": "node 22"}')
    assert node.package_wants(tmp_path, "@scope/cli", package / "cli.js") == ""


def test_nothing_is_installed_when_the_host_will_do_and_a_range_none_meets_is_one_line(tmp_path: Path):
    assert node.ensure(tmp_path, "") is None
    assert node.ensure(tmp_path, ">=1") is None
    assert not (tmp_path / node.NODE_DIR).exists()
    with pytest.raises(node.NodeError, match=r"it asks for Node\.js <1, the host has \d+\.\d+\.\d+"):
        node.ensure(tmp_path, "<1")


@pytest.mark.parametrize("filters", [True, False], ids=["python-3.11.4+", "python-3.11.2"])
def test_a_node_tarball_unpacks_inside_its_directory_with_or_without_tarfile_filters(tmp_path, monkeypatch, filters):
    import io
    import tarfile

    if not filters:  # Debian bookworm's Python 3.11.2: extractall has no `filter`
        monkeypatch.delattr(tarfile, "data_filter")

    def tgz(name: str, *members: tuple[str, str | None]) -> Path:
        path = tmp_path / name
        with tarfile.open(path, "w:gz") as tar:
            for member, link in members:
                info = tarfile.TarInfo(member)
                if link is None:
                    info.size, info.mode = 2, 0o4775
                    tar.addfile(info, io.BytesIO(b"hi"))
                else:
                    info.type, info.linkname = tarfile.SYMTYPE, link
                    tar.addfile(info)
        return path

    good = tgz("good.tgz", ("package/bin/node", None), ("package/bin/npm", "../lib/npm-cli.js"))
    node.unpack(good, tmp_path / "out")
    assert (tmp_path / "out/package/bin/node").stat().st_mode & 0o7777 == 0o755
    assert (tmp_path / "out/package/bin/npm").readlink() == Path("../lib/npm-cli.js")
    for bad in (("../escape", None), ("package/x", "/etc/passwd"), ("package/y", "../../../etc")):
        with pytest.raises((node.NodeError, tarfile.FilterError)):
            node.unpack(tgz("bad.tgz", bad), tmp_path / "bad")
    assert not (tmp_path / "escape").exists()
