"""What the Hydra apps share: typed user errors, the one-sentence exit, config field help.

A user's mistake leaves as one sentence on stderr and exit code 2, never a traceback:
- a key, type or enum value that does not fit the structured config (caught when the config
  is composed, before anything starts: `compose_or_explain`);
- a `ConfigError` from an app's `validate` (values that span fields or need a range);
- a `UserError` raised while running (a missing input file, a held output directory).
Bugs keep their traceback.
"""

from __future__ import annotations

import errno
import sys
from collections.abc import Callable, Sequence
from dataclasses import MISSING, field
from typing import Any


class UserError(Exception):
    """An error the user can fix; printed as one sentence, without a traceback."""


class ConfigError(UserError):
    """A config value that is wrong; raised at start-up, before any work."""


def help_text(text: str) -> dict[str, str]:
    """`field(metadata=help_text("..."))`: where a field needs more than `option`."""
    return {"help": text}


def option(default: Any = MISSING, help: str = "", *, factory: Any = MISSING) -> Any:  # noqa: A002
    """A dataclass field with its help text in `metadata["help"]` (TRL's habit)."""
    if factory is not MISSING:
        return field(default_factory=factory, metadata=help_text(help))
    return field(default=default, metadata=help_text(help))


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


def composition_sentence(exc: BaseException) -> str:
    """The sentence for a config that Hydra/OmegaConf refused: the key and what was wrong."""
    from omegaconf.errors import OmegaConfBaseException

    cause: BaseException | None = exc
    while cause is not None:
        if isinstance(cause, OmegaConfBaseException):
            key = getattr(cause, "full_key", None)
            head = first_line(cause)
            return f"{key}: {head}" if key and key not in head else head
        cause = cause.__cause__
    return first_line(exc)


def compose_or_explain(prog: str, conf_dir: str, config_name: str, argv: Sequence[str]) -> None:
    """Compose the config from `argv` overrides once before Hydra runs the app, so a bad key,
    type or enum value exits 2 with one sentence instead of Hydra's exit 1 and its report.
    Multirun sweeps and Hydra's own flags are left to Hydra."""
    if any(a.startswith("-") for a in argv):
        return
    from hydra import compose, initialize_config_dir
    from hydra.errors import HydraException
    from omegaconf.errors import OmegaConfBaseException

    try:
        with initialize_config_dir(config_dir=conf_dir, version_base=None):
            compose(config_name=config_name, overrides=list(argv))
    except (HydraException, OmegaConfBaseException) as exc:
        print(f"{prog}: error: {composition_sentence(exc)}", file=sys.stderr)
        sys.exit(2)


def run_or_explain(
    prog: str,
    run: Callable[[Any], Any],
    cfg: Any,
    explain_fn: Callable[[BaseException], str | None] = explain,
) -> None:
    """`run(cfg)`; an error `explain_fn` turns into a sentence is printed without a traceback
    and exits with 2. Errors it returns None for (bugs) propagate with their traceback."""
    try:
        run(cfg)
    except Exception as exc:
        sentence = explain_fn(exc)
        if sentence is None:
            raise
        print(f"{prog}: error: {sentence}", file=sys.stderr)
        sys.exit(2)
