"""What the Hydra apps share: typed user errors, the one-sentence exit, `--help` (config
fields themselves: `pipelines.config_fields`).

Every Hydra app declares itself once, in its own module: `APP = HydraApp(...)` (its script
name as in pyproject's `[project.scripts]`, its primary config `conf/<config_name>.yaml`, its
structured schema and `register`, what runs the config), and its `main()` is `APP.main()`.
The tests find every app from `[project.scripts]` and that declaration, and every group
option from `conf/` (tests/apps.py): a new app is tested for `--help`, composing with each
group option, defaults written once and shipping in the wheel without a test list to edit.

A user's mistake leaves as one sentence on stderr and exit code 2, never a traceback:
- a key, type or enum value that does not fit the structured config (caught when the config
  is composed, before anything starts: `compose_or_explain`);
- a value outside its field's range (`config_fields.check_fields`), or a `ConfigError` from
  an app's `validate` (values that span fields);
- a `UserError` raised while running (a missing input file, a held output directory).
Bugs keep their traceback.
"""

from __future__ import annotations

import errno
import re
import shutil
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipelines import cli_help
from pipelines.confdir import CONF_DIR


class UserError(Exception):
    """An error the user can fix; printed as one sentence, without a traceback."""


class ConfigError(UserError):
    """A config value that is wrong; raised at start-up, before any work."""


def first_line(exc: BaseException) -> str:
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def explain(exc: BaseException) -> str | None:
    """One sentence for errors a user causes; None for bugs."""
    from omegaconf.errors import MissingMandatoryValue

    if isinstance(exc, UserError | FileNotFoundError | IsADirectoryError | MissingMandatoryValue):
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

    # Read only when a composition failed; every app imports this module at start.
    from labeling.mc.method import not_a_key

    missing = _MISSING_OPTION.search(str(exc))
    if missing:
        group, name = missing.groups()
        options = cli_help.group_options(group)
        listed = f"; choose from {', '.join(options)}" if options else ""
        return f"{group}={name}: no such option in group '{group}'{listed}"
    cause: BaseException | None = exc
    while cause is not None:
        if isinstance(cause, OmegaConfBaseException):
            key = getattr(cause, "full_key", None)
            head = first_line(cause)
            kind = getattr(getattr(cause, "object_type", None), "method_name", "")
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
        cause = cause.__cause__
    return first_line(exc)


def compose_or_explain(prog: str, conf_dir: str, config_name: str, argv: Sequence[str],
                       schema: Any = None, doc: str | None = None) -> None:  # fmt: skip
    """`--help` prints the app's own page (`pipelines.cli_help`: its groups, keys and their
    help, from `schema`) and exits 0. Otherwise: compose the config from `argv` overrides
    once before Hydra runs the app, so a bad key, type or enum value exits 2 with one
    sentence instead of Hydra's exit 1 and its report.
    Also notes which directories on the way to Hydra's run dir exist already, so that a run
    that fails at start can remove what it created (`remove_failed_start`).
    Multirun sweeps and Hydra's own flags are left to Hydra."""
    if schema is not None and cli_help.wants_help(argv):
        print(cli_help.help_page(prog, doc, schema, conf_dir, config_name, argv))
        sys.exit(0)
    if any(a.startswith("-") for a in argv):
        return
    from hydra import compose, initialize_config_dir
    from hydra.errors import HydraException
    from omegaconf import OmegaConf
    from omegaconf.errors import OmegaConfBaseException

    with initialize_config_dir(config_dir=conf_dir, version_base=None):
        try:
            cfg = compose(config_name=config_name, overrides=list(argv), return_hydra_config=True)
        except (HydraException, OmegaConfBaseException) as exc:
            sentence = composition_sentence(exc)  # inside: it lists the group's options
            print(f"{prog}: error: {sentence}", file=sys.stderr)
            sys.exit(2)
    try:
        run_dir = OmegaConf.select(cfg, "hydra.run.dir")
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
) -> None:
    """`run(cfg)`; an error `explain_fn` turns into a sentence is printed without a traceback
    and exits with 2. Errors it returns None for (bugs) propagate with their traceback."""
    _APP[0] = prog
    try:
        run(cfg)
    except Exception as exc:
        sentence = explain_fn(exc)
        if sentence is None:
            raise
        for top in _NEW_DIRS:
            remove_failed_start(top)
        print(f"{prog}: error: {sentence}", file=sys.stderr)
        sys.exit(2)


@dataclass(frozen=True)
class HydraApp:
    """One Hydra app (see the module docstring). `run(cfg)` gets the composed config (tests
    call it directly); `explain` turns the errors a user causes into one sentence;
    `extra_overrides(argv)` may add overrides derived from the given ones (prm-label names a
    dataset after its file)."""

    prog: str
    config_name: str
    schema: type | Callable[[], type]  # a function: the schema depends on registrations
    register: Callable[[], None]
    run: Callable[[Any], Any]
    doc: str | None = None
    explain: Callable[[BaseException], str | None] = explain
    extra_overrides: Callable[[list[str]], list[str]] | None = None

    def current_schema(self) -> type:
        """The app's config dataclass, as the registrations stand now."""
        return self.schema if isinstance(self.schema, type) else self.schema()

    def main(self) -> None:
        """Register the config, compose it once (`--help` and bad overrides end here) and
        hand it to Hydra, which runs `run` under `run_or_explain`."""
        import hydra

        self.register()
        if self.extra_overrides is not None:  # before Hydra's own flags (--cfg job, -m)
            sys.argv[1:1] = self.extra_overrides(sys.argv[1:])
        compose_or_explain(self.prog, CONF_DIR, self.config_name, sys.argv[1:],
                           self.current_schema(), self.doc)  # fmt: skip

        def task(cfg: Any) -> None:
            run_or_explain(self.prog, self.run, cfg, self.explain)

        # Hydra names the job (and its log file) after the task function's module: the app's.
        task.__module__ = self.run.__module__
        hydra.main(config_path=CONF_DIR, config_name=self.config_name, version_base=None)(task)()
