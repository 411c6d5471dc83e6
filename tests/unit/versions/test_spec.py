import pytest

from probes.agents import AGENTS
from probes.errors import InputError
from probes.versions import spec

VERSIONS = ["1.0.57", "1.0.58", "1.0.80", "1.0.81-0", "1.0.81", "1.0.89-0", "1.0.89", "1.0.92", "1.0.102"]


@pytest.mark.parametrize(
    "text, agent, version",
    [
        ("copilot@1.0.92", "copilot", "1.0.92"),
        ("claude@2.1.328", "claude", "2.1.328"),
        ("claude@latest", "claude", "latest"),
        ("copilot@1.0.81-0", "copilot", "1.0.81-0"),
        ("copilot@v1.0.92", "copilot", "1.0.92"),  # the `v` is not the version's: paths never hold it
        ("copilot@v1.0.81-0", "copilot", "1.0.81-0"),
        ("copilot", "copilot", "latest"),
    ],
)
def test_parse(text, agent, version):
    assert spec.parse_spec(text, AGENTS) == spec.Spec(agent, version)


@pytest.mark.parametrize(
    "text, message",
    [
        ("copilot@", "malformed spec"),
        ("copilot@vlatest", "malformed spec"),
        ("copilot@V1.0.92", "malformed spec"),
        ("copilot@vv1.0.92", "malformed spec"),
        ("copilot@v", "malformed spec"),
        ("copilot@1.0.92v", "malformed spec"),
        ("copilot@1.0", "malformed spec"),
        ("copilot@1.0.92; rm -rf /", "malformed spec"),
        ("copilot@$(id)", "malformed spec"),
        ("Copilot@1.0.92", "malformed spec"),
        ("cursor@1.0.0", "unknown agent 'cursor'"),
    ],
)
def test_bad_specs_are_input_errors(text, message):
    with pytest.raises(InputError, match=message):
        spec.parse_spec(text, AGENTS)


def test_a_malformed_spec_says_the_forms_in_one_line():
    with pytest.raises(InputError) as e:
        spec.parse_spec("copilot@vlatest", AGENTS)
    assert "\n" not in str(e.value) and "AGENT@vVERSION" in str(e.value)


@pytest.mark.parametrize(
    "given, wanted",
    [
        ("v1.0.80", "1.0.80"),
        ("1.0.80", "1.0.80"),
        ("v1.0.80..v1.0.92", "1.0.80..1.0.92"),
        ("v1.0.80,1.0.81, v1.0.82", "1.0.80,1.0.81,1.0.82"),
        ("v1.0.80..latest", "1.0.80..latest"),
        ("latest:3", "latest:3"),
        ("vv1.0.80", "vv1.0.80"),  # refused where it is parsed, not quietly mended
        ("vlatest", "vlatest"),
    ],
)
def test_bare_versions_drops_one_leading_v_per_version(given, wanted):
    assert spec.bare_versions(given) == wanted


@pytest.mark.parametrize(
    "version, below, above",
    [
        ("1.0.93", "1.0.92", "1.0.102"),
        ("1.0.1", None, "1.0.57"),
        ("9.0.0", "1.0.102", None),
        ("1.0.85", "1.0.81", "1.0.89"),  # releases are preferred to pre-releases
    ],
)
def test_nearest(version, below, above):
    assert spec.nearest(version, VERSIONS) == (below, above)


def test_resolve_names_nearest_published(monkeypatch):
    monkeypatch.setattr(spec, "published", lambda pkg: spec.Published(VERSIONS, "1.0.102"))
    with pytest.raises(InputError, match=r"^copilot 1\.0\.93 is not published; nearest: 1\.0\.92, 1\.0\.102$"):
        spec.resolve(spec.Spec("copilot", "1.0.93"), "@github/copilot")
    assert spec.resolve(spec.Spec("copilot", "latest"), "@github/copilot") == "1.0.102"
    assert spec.resolve(spec.Spec("copilot", "1.0.80"), "@github/copilot") == "1.0.80"


def test_a_failed_build_step_names_the_compilers_error():
    """code-server's kerberos module fails to build without libkrb5-dev: npm says only `code 1`."""
    from probes.versions.spec import npm_error

    stderr = (
        "npm error code 1\nnpm error path /x/node_modules/kerberos\n"
        "npm error ../src/kerberos.h:5:10: fatal error: gssapi/gssapi.h: No such file or directory\n"
        "npm error A complete log of this run can be found in: /root/.npm/_logs/x.log\n"
    )
    assert npm_error(stderr) == (
        "npm error code 1; a build step failed: "
        "npm error ../src/kerberos.h:5:10: fatal error: gssapi/gssapi.h: No such file or directory"
    )
    assert npm_error("npm error code E404\nnpm error 404 Not Found") == "npm error code E404"
