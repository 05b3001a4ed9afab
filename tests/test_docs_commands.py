"""Every shell command in README.md and docs/*.md runs as written from a fresh clone.

Each fenced `bash`/`sh` block runs in bash, in an empty directory beside a `shared/data`
folder (where a clone sits beside ../shared), with the project's commands replaced by shell
functions that record them; `cd`, `mkdir` and the like run for real, so a directory that
does not exist fails here as it would for a reader. Each recorded command is then checked
as far as it can be without doing its work:
- a Hydra app's entry point runs (in this process) with `--cfg job --resolve` (Hydra
  composes the config and prints it; multirun sweeps, one run per value), so a wrong key,
  group option or value fails; the printed config then goes through the app's own typing
  and cross-field checks (`typed` / `to_config`: a warmup longer than the run fails), and
  every value naming the shared data folder must exist there;
- an argparse app answers `--help`; `python -c` runs; `python -m` names an importable
  module; `python <file>` names a file of the repository; `make` names a target of the
  Makefile; `ray job submit ... -- <command>` checks the command;
- `pip`, `ray start`, `curl` are other tools: nothing is checked but the syntax.
No block may carry a development machine's scratch path (under /tmp, an absolute path to
the shared data folder). A command whose name the test does not know fails: teach it here.
"""

from __future__ import annotations

import importlib
import importlib.util
import itertools
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml

from pipelines.cli import HydraApp
from tests.apps import hydra_apps
from tests.conftest import ROOT, SHARED_DATA, storing_once

SCRIPTS = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
MODULES = {target.split(":")[0]: name for name, target in SCRIPTS.items()}
HYDRA_APPS = hydra_apps()  # the scripts whose module declares `APP = HydraApp(...)`
OTHER_TOOLS = {"pip", "ray", "curl"}
SHELL = {"cd", "mkdir", "mktemp", "printf", "echo", "cat"}
RECORDED = set(SCRIPTS) | OTHER_TOOLS | {"python", "make"}
SEP = "\x1e"  # ends one recorded command (its fields are NUL-separated)


def shell_blocks() -> list[tuple[str, str]]:
    """(file:line, text) of every fenced bash/sh block."""
    out = []
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        lines = path.read_text().splitlines()
        start = None
        for i, line in enumerate(lines):
            if start is None and re.match(r"^```(bash|sh|shell)\s*$", line):
                start = i + 1
            elif start is not None and line.startswith("```"):
                out.append((f"{path.relative_to(ROOT)}:{start}", "\n".join(lines[start:i])))
                start = None
    return out


def without_heredocs(text: str) -> str:
    """The block without the bodies of its here-documents (`cat > f <<'EOF'` ... `EOF`): a
    file's text, not commands."""
    out, end = [], None
    for line in text.splitlines():
        if end is not None:
            end = None if line.strip() == end else end
            continue
        out.append(line)
        found = re.search(r"<<-?\s*['\"]?(\w+)['\"]?", line)
        end = found.group(1) if found else None
    return "\n".join(out)


def command_names(text: str) -> set[str]:
    """The first word of every simple command in a block (pipelines, lists, `$(...)`)."""
    import shlex

    names = set()
    for line in without_heredocs(text).replace("\\\n", " ").splitlines():
        lex = shlex.shlex(line.replace("$(", "; "), posix=True, punctuation_chars=True)
        lex.whitespace_split, lex.commenters = True, "#"
        first = True
        for token in lex:
            if token in {"&&", "||", ";", "|", "&", "(", ")"}:
                first = True
            elif first:
                names.add(token)
                first = False
    return names


def run_block(text: str, cwd: Path, record: Path) -> list[tuple[Path, list[str]]]:
    """Run the block in bash with the recorded commands as functions; [(cwd, argv)]."""
    stubs = "".join(f'{name}() {{ rec {name} "$@"; }}\n' for name in sorted(RECORDED))
    script = (f"set -euo pipefail\nrec() {{ printf '%s\\0' \"$PWD\" \"$@\" $'{SEP}' "
              f'>> "{record}"; }}\n{stubs}{text}\nwait\n')
    proc = subprocess.run(["bash", "-c", script], cwd=cwd, capture_output=True, text=True,
                          timeout=60, env=dict(os.environ, HOME=str(cwd.parent)))
    assert proc.returncode == 0, f"the block stopped: {proc.stderr[-1500:]}"
    fields = record.read_text().split("\0") if record.exists() else []
    out, current = [], []
    for f in fields:
        if f == SEP:
            out.append((Path(current[0]), current[1:]))
            current = []
        elif f or current:
            current.append(f)
    return out


def _sweeps(args: list[str]) -> list[list[str]]:
    """A multirun's overrides, one list per job (Hydra's own parser splits the sweeps)."""
    from hydra.core.override_parser.overrides_parser import OverridesParser

    from pipelines.hydra_argv import split_argv

    line = split_argv(args)
    flags = [a for a in line.flags if a not in ("-m", "--multirun")]
    overrides = line.overrides
    choices = []
    for o in OverridesParser.create().parse_overrides(overrides):
        key = o.get_key_element()
        values = list(o.sweep_string_iterator()) if o.is_sweep_override() else None
        choices.append([f"{key}={v}" for v in values] if values else [o.input_line])
    return [flags + list(job) for job in itertools.product(*choices)]


def _typed(module, app: HydraApp, printed: dict) -> None:
    """The printed config through the app's schema and its own checks."""
    from hydra.core.config_store import ConfigStore
    from omegaconf import OmegaConf

    with storing_once():
        app.register()
    primary = ROOT / "conf" / f"{app.config_name}.yaml"
    defaults = yaml.safe_load(primary.read_text())["defaults"]
    schema = next(d for d in defaults if isinstance(d, str) and d.endswith("_schema"))
    node = ConfigStore.instance().load(f"{schema}.yaml").node
    _choose_variants(node, printed)
    merged = OmegaConf.merge(node, printed)
    check = getattr(module, "typed", None) or getattr(module, "to_config", None)
    check(merged) if check else OmegaConf.to_object(merged)


def _choose_variants(node, printed: dict) -> None:
    """A printed config says which variant a section is of (`labels.mc.method`): the schema
    node takes that variant's type before the printed values are merged into it."""
    from omegaconf import OmegaConf

    from pipelines.label.sources import how_to_run, sections

    labels = printed.get("labels") or {}
    for name, _, _ in sections():
        variants = dict(how_to_run(name).variants)
        chosen = (labels.get(name) or {}).get("method") if variants else None
        if chosen in variants:
            node.labels[name] = OmegaConf.structured(variants[chosen])


def _strings(value) -> list[str]:
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return [value] if isinstance(value, str) else []


def run_main(name: str, argv: list[str], cwd: Path) -> tuple[int, str, str]:
    """The app's console-script entry point, in this process (as `name argv...` from `cwd`):
    (exit code, stdout, stderr). In-process to spare a Python start and the app's imports
    per command; the entry point, its argument handling and Hydra's are the same."""
    import contextlib
    import io

    module, func = SCRIPTS[name].split(":")
    main = getattr(importlib.import_module(module), func)
    out, err = io.StringIO(), io.StringIO()
    import signal

    saved, here, code = sys.argv, Path.cwd(), 0
    sigterm = signal.getsignal(signal.SIGTERM)  # an app sets its own (exit 130)
    sys.argv = [name, *argv]
    try:
        os.chdir(cwd)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), storing_once():
            main()
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    finally:
        sys.argv = saved
        os.chdir(here)
        signal.signal(signal.SIGTERM, sigterm)
    return code, out.getvalue(), err.getvalue()


def check_app(name: str, args: list[str], cwd: Path) -> None:
    module = importlib.import_module(SCRIPTS[name].split(":")[0])
    app = HYDRA_APPS.get(name)
    if app is None:  # an argparse tool
        code, _, err = run_main(name, [*args, "--help"], cwd)
        assert code == 0, f"{name} --help: {err[-1500:]}"
        return
    if name == "prm-label" and (runs_for_real(args)):
        dry = args if "dry_run=true" in args else [*args, "dry_run=true"]
        code, out, err = run_main(name, dry, cwd)
        assert code == 0, f"{name} {' '.join(dry)}: {err[-1500:]}"
        assert "prm-label dry run" in out, out[-1500:]
    jobs = _sweeps(args) if {"-m", "--multirun"} & set(args) else [args]
    for job in jobs:
        code, out, err = run_main(name, [*job, "--cfg", "job", "--resolve"], cwd)
        assert code == 0, f"{name} {' '.join(job)} --cfg job: {err[-1500:]}"
        printed = yaml.safe_load(out)
        _typed(module, app, printed)
        for value in _strings(printed):
            if value.startswith("../shared/data/") and SHARED_DATA.is_dir():
                assert (cwd / value).exists(), f"{name}: {value} does not exist"


def runs_for_real(args: list[str]) -> bool:
    """A prm-label command the docs show for a scheduler's sake (a dry run, a sweep, a job
    file under --config-dir) runs for real, as a dry run (no engine starts): every job of the
    sweep, the job file's whole config, the plan printed."""
    return bool({"dry_run=true", "-m", "--multirun", "--config-dir"} & set(args))


def check(argv: list[str], cwd: Path) -> None:
    name, args = argv[0], argv[1:]
    if name in SCRIPTS:
        check_app(name, args, cwd)
    elif name == "python" and args[:1] == ["-m"]:
        if args[1] in MODULES:
            check_app(MODULES[args[1]], args[2:], cwd)
        else:
            assert importlib.util.find_spec(args[1]), f"python -m {args[1]}: no such module"
    elif name == "python" and args[:1] == ["-c"]:
        # The docs' commands run from a clone's root, where `python -c` imports its folders
        # (`tests.prm_fixtures`); the block's own folder stands in for the clone's files.
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        proc = subprocess.run([sys.executable, "-c", args[1]], cwd=cwd, capture_output=True,
                              text=True, timeout=120, env=env)  # fmt: skip
        assert proc.returncode == 0, f"python -c: {proc.stderr[-1500:]}"
    elif name == "python":
        assert (ROOT / args[0]).is_file(), f"python {args[0]}: no such file in the repository"
    elif name == "make":
        targets = re.findall(r"^([\w-]+):", (ROOT / "Makefile").read_text(), re.M)
        assert set(args) <= set(targets), f"make {args}: targets are {targets}"
    elif name == "ray" and "--" in args:
        check(args[args.index("--") + 1 :], cwd)


BLOCKS = shell_blocks()


def scratch_paths(text: str) -> list[str]:
    """Paths of a development machine: under /tmp, inside this checkout's parent (an
    absolute path to ../shared), or any absolute path to a shared/data folder."""
    here = re.escape(str(ROOT.parent))
    return re.findall(rf"/tmp/\S*|{here}/\S*|(?<![\w.])/\S*/shared/data\S*", text)


def test_the_scratch_path_check_finds_what_it_must():
    assert scratch_paths("prm-train data.shards=[/tmp/use14/labels] x=../shared/data/a") == [
        "/tmp/use14/labels]"]
    assert scratch_paths(f"p=[{ROOT.parent}/shared/data/g.json] q=/srv/shared/data/m.json") == [
        f"{ROOT.parent}/shared/data/g.json]", "/srv/shared/data/m.json"]


def test_the_docs_have_blocks_to_check():
    assert len(BLOCKS) >= 8 and any("prm-label" in text for _, text in BLOCKS)


@pytest.mark.parametrize("text", [t for _, t in BLOCKS], ids=[where for where, _ in BLOCKS])
def test_every_documented_command_runs_as_written(text, tmp_path):
    unknown = command_names(text) - RECORDED - SHELL
    assert not unknown, f"commands this test cannot check yet: {sorted(unknown)}"
    assert not scratch_paths(text), f"a development machine's paths: {scratch_paths(text)}"
    clone = tmp_path / "clone"
    clone.mkdir()
    if SHARED_DATA.is_dir():  # ../shared/data beside the clone, as in the README
        (tmp_path / "shared").mkdir()
        (tmp_path / "shared" / "data").symlink_to(SHARED_DATA.resolve())
    commands = run_block(text, clone, tmp_path / "record")
    assert commands, "the block ran no command"
    for cwd, argv in commands:
        check(argv, cwd)


def test_the_exit_status_table_lists_every_status_the_apps_use():
    """docs/nightly.md's table holds 0, 1 and each `JobExit`'s status, and nothing else."""
    from pipelines import cli

    text = (ROOT / "docs" / "nightly.md").read_text()
    section = text.split("## Exit statuses", 1)[1].split("\n## ", 1)[0]
    documented = {int(m) for m in re.findall(r"^\| (\d+) \|", section, re.M)}
    kinds = [cli.JobExit, *cli.JobExit.__subclasses__()]
    kinds += [k for c in list(kinds) for k in c.__subclasses__()]
    assert documented == {0, 1} | {k.status for k in kinds}, documented
