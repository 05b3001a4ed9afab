"""What the Hydra apps share: typed errors and the exit status each means, the pre-check of
the config, `--help` (config fields themselves: `pipelines.config_fields`).

Every Hydra app declares itself once, in its own module: `APP = HydraApp(...)` (its script
name as in pyproject's `[project.scripts]`, its primary config `conf/<config_name>.yaml`, its
structured schema and `register`, what runs the config), and its `main()` is `APP.main()`.
The tests find every app from `[project.scripts]` and that declaration, and every group
option from `conf/` (tests/apps.py): a new app is tested for `--help`, composing with each
group option, defaults written once and shipping in the wheel without a test list to edit.

Exit statuses (docs/exit-codes.md keeps the table a scheduler reads):
- 0: done.
- 2: the configuration (one sentence on stderr, no traceback, nothing left behind): a key,
  type or enum value that does not fit the structured config, a value outside its field's
  range, a `ConfigError` from an app's check (values that span fields), a `UserError` raised
  while running (a missing input file, a held output directory). The config is composed and
  checked the same way from command-line overrides, group options and a whole job file under
  `--config-dir/--config-name`, for every job of a sweep, before the first job starts.
- 3: the job finished but failed its own bar (`QualityError`: too many problems quarantined).
- 130: interrupted (SIGINT or SIGTERM): one line says what is kept and that the same command
  resumes.
- 1: anything else (a bug): the traceback, then its one-sentence reason as the last line.
"""

from __future__ import annotations

import errno
import re
import shutil
import signal
import sys
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

from pipelines.cli_help import group_options


class JobExit(Exception):  # noqa: N818 (an exit, not always an error)
    """A run that ends with one sentence and its own exit status, without a traceback."""

    status = 1


class UserError(JobExit):
    """An error the user can fix; printed as one sentence, without a traceback (exit 2)."""

    status = 2


class QualityError(JobExit):
    """The job finished and wrote its output, but failed a bar the user set (exit 3)."""

    status = 3


class Interrupted(JobExit):
    """SIGINT or SIGTERM stopped the run (exit 130); the sentence says what is kept."""

    status = 130


class ConfigError(UserError):
    """A config value that is wrong; raised at start-up, before any work."""


def first_line(exc: BaseException) -> str:
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def explain(exc: BaseException) -> str | None:
    """One sentence for errors a user causes; None for bugs."""
    from omegaconf.errors import MissingMandatoryValue

    if isinstance(exc, JobExit | FileNotFoundError | IsADirectoryError | MissingMandatoryValue):
        return first_line(exc)
    if isinstance(exc, OSError) and exc.errno == errno.ENOSPC:
        where = exc.filename or "the output"
        return f"no space left on the device while writing {where}; free space and re-run"
    return None


_MISSING_OPTION = re.compile(r"Could not (?:load|find) '([\w/.-]+)/([^'/]+)'")


def field_paths(node_type: Any, prefix: str = "") -> list[str]:
    """Every dotted key of a (nested) structured config dataclass."""
    import dataclasses
    import typing

    hints = typing.get_type_hints(node_type)
    out = []
    for f in dataclasses.fields(node_type):
        path = prefix + f.name
        out.append(path)
        if dataclasses.is_dataclass(hints.get(f.name)):
            out += field_paths(hints[f.name], path + ".")
    return out


def _valid_keys(cause: BaseException) -> str:
    """The hint for a key that is not in a structured config node: the deeper key of the
    same name (`strategies` -> `search.strategies`) or the nearest name, then the valid keys."""
    import dataclasses
    import difflib

    node_type = getattr(cause, "object_type", None)
    key = str(getattr(cause, "key", "") or "")
    if node_type is None or not dataclasses.is_dataclass(node_type):
        return ""
    names = [f.name for f in dataclasses.fields(node_type)]
    deeper = [p for p in field_paths(node_type) if p.endswith("." + key)]
    close = deeper[:1] or difflib.get_close_matches(key, names, n=1)
    hint = f"did you mean {close[0]}? " if close else ""
    return f"; {hint}valid keys here: {', '.join(names)}"


def composition_sentence(exc: BaseException) -> str:
    """The sentence for a config that Hydra/OmegaConf refused: the key and what was wrong,
    with the valid group options or keys where the mistake was a name."""
    from omegaconf.errors import ConfigAttributeError, ConfigKeyError, OmegaConfBaseException

    from labeling.mc.method import not_a_key

    missing = _MISSING_OPTION.search(str(exc))
    if missing:
        group, name = missing.groups()
        options = group_options(group)
        listed = f"; choose from {', '.join(options)}" if options else ""
        return f"{group}={name}: no such option in group '{group}'{listed}"
    cause: BaseException | None = exc
    while cause is not None:
        if isinstance(cause, OmegaConfBaseException):
            key = getattr(cause, "full_key", None)
            head = first_line(cause)
            kind = getattr(getattr(cause, "object_type", None), "method_name", "")
            chosen_by_name = hasattr(getattr(cause, "object_type", None), "method_name")
            if isinstance(cause, ConfigAttributeError | ConfigKeyError) and key and \
                    chosen_by_name and not kind:
                # Keys merged into a section no option chose (a job file's labels.mc.k while
                # the mc source is off): the same sentence as on the command line.
                parts = str(key).split(".")
                return off_sentence(str(key), ".".join(parts[:2]))
            if isinstance(cause, ConfigAttributeError | ConfigKeyError) and key and kind:
                # A section chosen by name (an MC method): the key belongs to another one.
                import dataclasses

                keys = [f.name for f in dataclasses.fields(cause.object_type)]
                return not_a_key(kind, str(key).rsplit(".", 1)[-1], keys,
                                 where=str(key).rsplit(".", 1)[0])
            if isinstance(cause, ConfigAttributeError | ConfigKeyError) and key:
                head = f"no such key in {getattr(cause.object_type, '__name__', 'the config')}"
            sentence = f"{key}: {head}" if key and key not in head else head
            if isinstance(cause, ConfigAttributeError | ConfigKeyError):
                sentence += _valid_keys(cause)
            return sentence
        cause = cause.__cause__ or cause.__context__  # Hydra re-raises without `from`
    return first_line(exc)


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


def off_sentence(key: str, section: str) -> str:
    """The sentence for `key` set under `section` while that section is off (null)."""
    parts = section.split(".")
    turn_on = (f"add {parts[1]} to labels=[...]" if parts[0] == "labels" and len(parts) == 2
               else f"set {section} first")
    return f"{key}: {section} is off (null) in this config; {turn_on}"


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
    nothing but Hydra's own files (a run that wrote nothing: a failed start, a dry run)."""
    for top in _NEW_DIRS:
        remove_failed_start(top)


_APP = ["prm-label"]  # the running app's name; `run_or_explain` sets it


class AppLogger:
    """A logger named after the running app (set by `run_or_explain`), for modules that
    several apps share (the engine pool): its lines read `[prm-search]` inside prm-search."""

    def __getattr__(self, name: str) -> Any:
        import logging

        return getattr(logging.getLogger(_APP[0]), name)


def run_or_explain(
    prog: str,
    run: Callable[[Any], Any],
    cfg: Any,
    explain_fn: Callable[[BaseException], str | None] = explain,
) -> int:
    """`run(cfg)` and the exit status it earned (the module's table): 0 when it returned; for
    an error `explain_fn` turns into a sentence, that sentence on stderr without a traceback
    and the error's status (`JobExit.status`, 2 for the other user errors); for an interrupt,
    130 with a line; for a bug, its traceback, then its reason as the last line, and 1.
    A run that fails with a status of 2 removes the directories its start created."""
    _APP[0] = prog
    try:
        run(cfg)
        return 0
    except KeyboardInterrupt:
        print(f"{prog}: interrupted; run the same command to resume", file=sys.stderr)
        return Interrupted.status
    except Exception as exc:
        sentence = explain_fn(exc)
        status = getattr(exc, "status", UserError.status) if sentence is not None else 1
        if status == UserError.status:
            remove_started_dirs()
        if sentence is None:
            traceback.print_exc()
            sentence = f"{type(exc).__name__}: {first_line(exc)}"
        word = "" if status == Interrupted.status else "error: "
        print(f"{prog}: {word}{sentence}", file=sys.stderr)
        return status


def _interrupt_on_sigterm() -> None:
    """SIGTERM (a scheduler's stop) ends the run as Ctrl-C does: the finished units stay, the
    lock is released and the exit status is 130."""

    def stop(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)


@dataclass(frozen=True)
class HydraApp:
    """One Hydra app (see the module docstring). `run(cfg)` gets the composed config (tests
    call it directly); `explain` turns the errors a user causes into one sentence;
    `extra_overrides(argv)` may add overrides derived from the given ones (prm-label names a
    dataset after its file); `check(cfg)` validates a composed config as `run` would (before
    Hydra starts: every way of configuring and every job of a sweep is checked the same way)."""

    prog: str
    config_name: str
    schema: type | Callable[[], type]  # a function: the schema depends on registrations
    register: Callable[[], None]
    run: Callable[[Any], Any]
    doc: str | None = None
    explain: Callable[[BaseException], str | None] = explain
    extra_overrides: Callable[[list[str]], list[str]] | None = None
    check: Callable[[Any], Any] | None = None

    def current_schema(self) -> type:
        """The app's config dataclass, as the registrations stand now."""
        return self.schema if isinstance(self.schema, type) else self.schema()

    def main(self) -> None:
        """Register the config, put Hydra's flags before the overrides (so `-m` may stand
        anywhere), compose and check it once (`--help` and bad configs end here) and hand it
        to Hydra, which runs `run` under `run_or_explain`. Each job of a multirun writes into
        its own folder under `output.dir`, named after its values of the swept keys
        (`hydra_argv.sweep_name`). Exits with the run's status; a sweep runs every job and
        exits with the first failing job's status (130 at once on an interrupt)."""
        import hydra

        from pipelines.confdir import CONF_DIR
        from pipelines.hydra_argv import in_sweep, split_argv

        self.register()
        line = split_argv(sys.argv[1:])
        extra = self.extra_overrides(line.overrides) if self.extra_overrides else []
        sys.argv[1:] = line.line(extra)
        compose_or_explain(self.prog, CONF_DIR, self.config_name, sys.argv[1:],
                           self.current_schema(), self.doc, self.check)  # fmt: skip
        _interrupt_on_sigterm()
        statuses: list[int] = []

        def task(cfg: Any) -> None:
            in_sweep(cfg)  # a multirun job's own output folder
            status = run_or_explain(self.prog, self.run, cfg, self.explain)
            statuses.append(status)
            if status == Interrupted.status or (status and not line.multirun):
                sys.exit(status)

        # Hydra names the job (and its log file) after the task function's module: the app's.
        task.__module__ = self.run.__module__
        hydra.main(config_path=CONF_DIR, config_name=self.config_name, version_base=None)(task)()
        sys.exit(next((s for s in statuses if s), 0))

