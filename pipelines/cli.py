"""What the Hydra apps share: the exit status each outcome means, running an app under them,
and the app's declaration (errors and their sentences: `pipelines.errors`; the check of a
config before Hydra runs: `pipelines.precheck`; config fields: `pipelines.config_fields`).

Every Hydra app declares itself once, in its own module: `APP = HydraApp(...)` (its script
name as in pyproject's `[project.scripts]`, its primary config `conf/<config_name>.yaml`, its
structured schema and `register`, what runs the config), and its `main()` is `APP.main()`.
The tests find every app from `[project.scripts]` and that declaration, and every group
option from `conf/` (tests/apps.py): a new app is tested for `--help`, composing with each
group option, defaults written once and shipping in the wheel without a test list to edit.

Exit statuses (docs/nightly.md keeps the table a scheduler reads):
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

import signal
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pipelines.errors import (
    ConfigError,
    Interrupted,
    JobExit,
    QualityError,
    UserError,
    composition_sentence,
    explain,
    first_line,
    off_sentence,
)

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
            from pipelines.precheck import remove_started_dirs

            remove_started_dirs()
        if sentence is None:
            traceback.print_exc()
            sentence = f"{type(exc).__name__}: {first_line(exc)}"
        word = "" if status == Interrupted.status else "error: "
        print(f"{prog}: {word}{sentence}", file=sys.stderr)
        return status


def interrupt_on_sigterm(again: bool = False) -> None:
    """SIGTERM (a scheduler's stop) ends the run as Ctrl-C does: the finished units stay, the
    lock is released and the exit status is 130. `HydraApp.main` sets it; `again=True` sets
    it again after `ray.init` (which sets a handler of its own, `sys.exit(15)`) only when an
    app set it first (a job run in-process by a test keeps its process's handler). A process
    forked afterwards (a checker) gets SIGTERM's default back: it dies as it would have.
    A no-op off the main thread."""
    import os
    import threading

    if again and not _SIGTERM_SET:
        return
    owner = os.getpid()

    def stop(signum: int, frame: Any) -> None:
        if os.getpid() != owner:  # a forked child: die of the signal, as without us
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
            return
        raise KeyboardInterrupt

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, stop)
        _SIGTERM_SET.append(True)


_SIGTERM_SET: list[bool] = []  # whether an app's main() set the handler in this process


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
        from pipelines.precheck import compose_or_explain

        self.register()
        line = split_argv(sys.argv[1:])
        extra = self.extra_overrides(line.overrides) if self.extra_overrides else []
        sys.argv[1:] = line.line(extra)
        compose_or_explain(self.prog, CONF_DIR, self.config_name, sys.argv[1:],
                           self.current_schema(), self.doc, self.check)  # fmt: skip
        interrupt_on_sigterm()
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


__all__ = ["AppLogger", "ConfigError", "HydraApp", "Interrupted", "JobExit", "QualityError",
           "UserError", "composition_sentence", "explain", "first_line", "off_sentence",
           "interrupt_on_sigterm", "run_or_explain"]
