"""Every hint an app prints is pasted back into that app and must parse: the overrides its
error sentences suggest, the group options they list, the example commands of its `--help`
page, and the `vllm serve` command prm-export and the model card print."""

from __future__ import annotations

import re
import shlex
import subprocess

import pytest

from pipelines.cli import ConfigError
from tests.apps import hydra_apps
from tests.conftest import compose

APPS = hydra_apps()

# `key=value` written in a sentence; placeholders (<dir>, ...) are not pasteable and skipped.
OVERRIDE = re.compile(r"(?<![\w.$])([a-z_][\w.]*=[^\s,;()<>]+(?:,[^\s,;()<>\]]+)*\]?)")


def hints(sentence: str) -> list[str]:
    return [h.rstrip(".") for h in OVERRIDE.findall(sentence) if "..." not in h and "{" not in h]


def _validated(app: str, overrides: list[str]) -> None:
    """Compose `overrides` for `app` and run the checks its start runs."""
    import importlib

    declared = APPS[app]
    declared.register()
    typed = importlib.import_module(declared.run.__module__).typed
    typed(compose(overrides, config_name=declared.config_name))


def _error(app: str, overrides: list[str]) -> str:
    with pytest.raises(ConfigError) as info:
        _validated(app, overrides)
    return str(info.value)


@pytest.mark.parametrize(
    ("app", "mistake", "expected"),
    [
        ("prm-search", [], ["prm.backend=none", "search.strategies=[majority]"]),
        ("prm-search", ["prm.backend=none"], ["search.strategies=[majority]"]),
        ("prm-label", ["labels=[]"], ["labels=[answer,calc]"]),
    ],
)
def test_suggested_overrides_parse_and_fix_the_mistake(app, mistake, expected):
    sentence = _error(app, mistake)
    found = hints(sentence)
    assert found == expected, sentence
    fixed = {o.split("=")[0]: o for o in [*mistake, *found]}
    _validated(app, list(fixed.values()))  # pasted: no ConfigError any more


def test_a_misplaced_key_hint_names_the_key_that_parses():
    from hydra.errors import ConfigCompositionException

    from pipelines.cli import composition_sentence
    from pipelines.search.config import register

    register()
    with pytest.raises(ConfigCompositionException) as info:
        compose(["strategies=[majority]", "prm.backend=none"], config_name="search")
    key = re.search(r"did you mean ([\w.]+)\?", composition_sentence(info.value)).group(1)
    _validated("prm-search", [f"{key}=[majority]", "prm.backend=none"])


@pytest.mark.parametrize(("group", "typo"), [("labels", "labels=[answer,clac]"),
                                             ("dataset", "dataset=gsm8k8")])
def test_every_listed_group_option_parses(group, typo):
    from hydra import compose as hydra_compose
    from hydra import initialize_config_dir
    from hydra.errors import MissingConfigException

    from pipelines.cli import composition_sentence
    from tests.conftest import CONF_DIR

    compose([])  # registers the schemas
    with initialize_config_dir(config_dir=CONF_DIR, version_base=None):
        with pytest.raises(MissingConfigException) as info:
            hydra_compose(config_name="prm-label", overrides=[typo])
        sentence = composition_sentence(info.value)
    options = sentence.split("choose from ", 1)[1].split(", ")
    assert len(options) >= 5
    for option in options:
        compose([f"{group}=[answer,{option}]" if group == "labels" else f"{group}={option}"])


@pytest.mark.parametrize("app", sorted(APPS))
def test_help_page_examples_parse(app):
    from pipelines.cli_help import summary

    declared = APPS[app]
    declared.register()
    examples = [line for line in summary(declared.doc or "")
                if line.strip().startswith(app + " ")]  # fmt: skip
    assert examples, f"{app}'s --help shows no example command"
    for line in examples:
        words = shlex.split(line.split("#")[0])
        pasteable = [w for w in words[1:] if "..." not in w and "<" not in w]
        compose(pasteable, config_name=declared.config_name)


def test_printed_serve_command_uses_the_launcher_of_this_install(tmp_path):
    import importlib.metadata

    from pipelines.checkpoint.format import StepFormat
    from pipelines.checkpoint.serving import serve_command

    words = shlex.split(serve_command(StepFormat(step_tag_id=5, label_tokens=["-", "+"]),
                                      tmp_path / "my prm"))
    try:
        importlib.metadata.version("vllm")
        assert words[0].endswith("vllm")
    except importlib.metadata.PackageNotFoundError:  # the CPU wheel: the shim
        assert words[1:3] == ["-m", "pipelines.serve.vllm_cli"]
    assert words[words.index("serve") + 1] == str(tmp_path / "my prm")


@pytest.mark.engine  # vLLM's own command line (it only parses here: --help)
def test_printed_serve_command_parses_in_vllm(tmp_path):
    """The whole printed command, pasted with `--help` appended: vLLM parses every option."""
    from pipelines.checkpoint.format import StepFormat
    from pipelines.checkpoint.serving import serve_command

    command = serve_command(StepFormat(step_tag_id=5, label_tokens=["-", "+"]), tmp_path)
    proc = subprocess.run(f"{command} --help", shell=True, capture_output=True, text=True,
                          timeout=300, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "PackageNotFoundError" not in proc.stderr
