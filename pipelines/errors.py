"""The errors a user causes, the exit status each means (`pipelines.cli` has the table), and
the one sentence each is told in: a config Hydra refused (`composition_sentence`), a key set
under a section that is off (`off_sentence`), an error raised while running (`explain`).
`pipelines.cli` re-exports them: apps import them from there.
"""

from __future__ import annotations

import errno
import re
from typing import Any

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


def off_sentence(key: str, section: str) -> str:
    """The sentence for `key` set under `section` while that section is off (null)."""
    parts = section.split(".")
    turn_on = (f"add {parts[1]} to labels=[...]" if parts[0] == "labels" and len(parts) == 2
               else f"set {section} first")
    return f"{key}: {section} is off (null) in this config; {turn_on}"
