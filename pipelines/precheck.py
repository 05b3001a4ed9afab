"""The check of a Hydra app's config before Hydra runs it, and what a failed start leaves.

`compose_or_explain` composes the config as Hydra will (the overrides, `--config-name`,
`--config-dir`; every job of a multirun) and runs the app's own check on it, so a user's
mistake exits 2 with one sentence (`pipelines.cli.composition_sentence`) before anything is
created, whichever way the config was given. It notes which directories on the way to
Hydra's run dir did not exist, so that a run that fails at start (or a dry run) removes
what it created (`remove_started_dirs`).
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

from pipelines.errors import UserError, composition_sentence, explain, off_sentence


def compose_or_explain(prog: str, conf_dir: str, config_name: str, argv: Sequence[str],
                       schema: Any = None, doc: str | None = None,
                       check: Callable[[Any], Any] | None = None) -> None:  # fmt: skip
    """`--help` prints the app's own page (`pipelines.cli_help`: its groups, keys and their
    help, from `schema`) and exits 0. Otherwise: compose the config as Hydra will (the
    overrides, `--config-name`, `--config-dir`; for a multirun every job of the sweep,
    `hydra_argv.sweep_combinations`) and run `check` on it (the app's typed validation), so a
    wrong key, type, value or combination exits 2 with one sentence before Hydra creates a
    directory, whichever way the config was given.
    Also notes which directories on the way to Hydra's run dir exist already, so that a run
    that fails at start can remove what it created (`remove_failed_start`).
    Hydra's flags that show instead of running (`--cfg`, `--info`) are left to Hydra."""
    from pipelines.cli_help import help_page, wants_help
    from pipelines.hydra_argv import split_argv, sweep_combinations

    if schema is not None and wants_help(argv):
        print(help_page(prog, doc, schema, conf_dir, config_name, argv))
        sys.exit(0)
    line = split_argv(argv)
    if line.shows or any(f in ("--config-path", "-cp") for f in line.flags):
        return
    jobs = sweep_combinations(line.overrides) if line.multirun else [line.overrides]
    for n, overrides in enumerate(jobs):
        cfg = _compose(prog, conf_dir, line.config_name or config_name, line.config_dir,
                       overrides, line.multirun)
        if n == 0:
            _note_new_dirs(cfg, line.multirun)
        if check is not None:
            _check(prog, cfg, check)


def _compose(prog: str, conf_dir: str, config_name: str, extra_dir: str | None,
             overrides: list[str], multirun: bool) -> Any:
    """The config Hydra will compose (with its `hydra` node), or exit 2 with one sentence."""
    import os

    from hydra.errors import HydraException
    from omegaconf.errors import OmegaConfBaseException

    from pipelines.hydra_argv import hydra_composer

    if extra_dir is not None and not os.path.isdir(extra_dir):
        _refuse(prog, f"--config-dir {extra_dir} is not a directory")
    with hydra_composer(prog, conf_dir, extra_dir) as compose:
        try:
            return compose(config_name, overrides, multirun)
        except (HydraException, OmegaConfBaseException) as exc:
            _refuse(prog, composition_sentence(exc))  # inside: it lists the group's options
        except AssertionError:  # OmegaConf's "Unexpected type for root": a key under a null
            base = [o for o in overrides if "." not in o.split("=", 1)[0]]
            sentence = _under_null(compose(config_name, base, multirun), overrides)
            _refuse(prog, sentence or "a key is set under a section that is off")


def _refuse(prog: str, sentence: str) -> NoReturn:
    print(f"{prog}: error: {sentence}", file=sys.stderr)
    sys.exit(UserError.status)


def _under_null(cfg: Any, overrides: list[str]) -> str | None:
    """The sentence for an override of a key whose section is off (null) in `cfg`, e.g.
    `labels.mc.k=5` while the mc source is not on."""
    from omegaconf import OmegaConf

    for o in overrides:
        key = o.split("=", 1)[0].lstrip("+~")
        parts = key.split(".")
        for i in range(1, len(parts)):
            section = ".".join(parts[:i])
            if OmegaConf.select(cfg, section, default="absent") is None:
                return off_sentence(key, section)
    return None


def _check(prog: str, cfg: Any, check: Callable[[Any], Any]) -> None:
    """`check` on the job's part of `cfg` (what the app's `run` gets); a user's mistake exits 2
    with one sentence, a bug keeps its traceback."""
    from omegaconf import OmegaConf, open_dict
    from omegaconf.errors import OmegaConfBaseException

    job = OmegaConf.masked_copy(cfg, [k for k in cfg if k != "hydra"])
    with open_dict(job):
        job.pop("hydra", None)
    try:
        check(job)
    except Exception as exc:
        sentence = explain(exc)
        if sentence is None and isinstance(exc, OmegaConfBaseException):
            sentence = composition_sentence(exc)
        if sentence is None:
            raise
        _refuse(prog, sentence)


def _note_new_dirs(cfg: Any, multirun: bool) -> None:
    from omegaconf import OmegaConf
    from omegaconf.errors import OmegaConfBaseException

    try:
        run_dir = OmegaConf.select(cfg, "hydra.sweep.dir" if multirun else "hydra.run.dir")
    except OmegaConfBaseException:  # an interpolation only the app can resolve
        return
    if run_dir:
        _NEW_DIRS.append(first_new_dir(Path(str(run_dir))))


# The outermost directory each start of this process creates on the way to Hydra's run dir
# (None: all existed); read by `remove_failed_start`.
_NEW_DIRS: list[Path | None] = []


def first_new_dir(path: Path) -> Path | None:
    """The outermost ancestor of `path` (or `path`) that does not exist yet; None if it does."""
    new = None
    for p in [path.absolute(), *path.absolute().parents]:
        if p.exists():
            break
        new = p
    return new


def remove_failed_start(top: Path | None, leftovers: tuple[str, ...] = (".lock",)) -> bool:
    """Remove `top` (a directory this run created) when it holds nothing but directories,
    lock files and what Hydra writes for the run (`.hydra/`, `<app>.log`); True if removed.
    A run that wrote anything else (a shard, a checkpoint) keeps it all."""
    if top is None or not top.is_dir():
        return False
    for f in top.rglob("*"):
        if f.is_dir() or f.name in leftovers or f.suffix == ".log" or ".hydra" in f.parts:
            continue
        return False
    shutil.rmtree(top, ignore_errors=True)
    return True


def remove_started_dirs() -> None:
    """Remove what this process's start created on the way to Hydra's run dir, when it holds
    nothing but Hydra's own files (a run that wrote nothing: a failed start, a dry run). The
    log handlers writing into a removed folder are closed and dropped first, so that a later
    line does not fail on a file that is gone."""
    import logging

    for top in _NEW_DIRS:
        if top is None or not top.is_dir():
            continue
        for logger in [logging.getLogger(), *logging.getLogger().manager.loggerDict.values()]:
            for h in list(getattr(logger, "handlers", [])):
                name = getattr(h, "baseFilename", None)
                if name and Path(name).is_relative_to(top.absolute()):
                    logger.removeHandler(h)
                    h.close()
        remove_failed_start(top)
