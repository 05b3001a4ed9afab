"""`<app> --help`: the app's own groups and keys, each with its current value and help text.

Hydra's built-in `--help` lists every config group found in `conf/` (prm-label's, whatever
the app) and the `*_schema` names of the ConfigStore; this page is built from the app's own
structured config instead: the groups its YAML's defaults list picks, then every key of its
dataclass with the value after the given overrides, the field's `metadata["help"]` and its
valid range (`pipelines.config_fields`).
Hydra's own flags stay under `--hydra-help`.
"""

from __future__ import annotations

import dataclasses
import enum
import typing
from collections.abc import Sequence
from pathlib import Path
from typing import Any

HELP_FLAGS = ("--help", "-h")



def group_options(group: str) -> list[str]:
    """The options a user may pick for config group `group` (schemas left out), as Hydra
    sees them inside an `initialize_config_dir` context."""
    from hydra.core.global_hydra import GlobalHydra

    if not GlobalHydra.instance().is_initialized():
        return []
    loader = GlobalHydra.instance().config_loader()
    return sorted(o for o in loader.get_group_options(group) if not o.endswith("_schema"))

def wants_help(argv: Sequence[str]) -> bool:
    return any(a in HELP_FLAGS for a in argv)


def _enum_of(tp: Any) -> type[enum.Enum] | None:
    """The Enum class of a field type (`E`, `E | None`, `list[E]`), if any."""
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return tp
    for arg in typing.get_args(tp):
        found = _enum_of(arg)
        if found is not None:
            return found
    return None


def field_rows(schema: Any, values: Any, prefix: str = "") -> list[tuple[str, str, str]]:
    """(key, current value, help) for every leaf key of the dataclass `schema`; `values` is
    the composed config (a DictConfig) or None. Enum fields list their choices."""
    from omegaconf import OmegaConf

    hints = typing.get_type_hints(schema)
    rows = []
    for f in dataclasses.fields(schema):
        key = prefix + f.name
        tp = hints.get(f.name)
        nested = tp if dataclasses.is_dataclass(tp) else None
        if nested is None:  # `Section | None` (an optional group such as labels.mc)
            nested = next((a for a in typing.get_args(tp) if dataclasses.is_dataclass(a)), None)
        if nested is not None:
            rows += field_rows(nested, values, key + ".")
            continue
        value: Any = "?"
        if values is not None:
            try:
                value = OmegaConf.select(values, key, throw_on_missing=False)
            except Exception:  # an interpolation the app resolves at run time
                value = OmegaConf.select(values, key, throw_on_resolution_failure=False)
        if OmegaConf.is_config(value):
            value = OmegaConf.to_container(value, enum_to_str=True)
        help_text = f.metadata.get("help", "")
        choices = _enum_of(tp)
        if choices is not None:
            help_text += f" (one of {', '.join(m.value for m in choices)})"
        if f.metadata.get("range") is not None:
            help_text += f" (valid: {f.metadata['range']})"
        shown = str(getattr(value, "value", value))
        if value == "" or any(c.isspace() for c in shown) and not isinstance(value, list):
            shown = repr(shown)
        rows.append((key, shown, help_text.strip()))
    return rows


def _groups(conf_dir: str, config_name: str, argv: Sequence[str]) -> list[tuple[str, str]]:
    """(group, current choice) for each group the app's primary YAML picks in `defaults`."""
    import yaml

    data = yaml.safe_load((Path(conf_dir) / f"{config_name}.yaml").read_text()) or {}
    chosen = {a.split("=", 1)[0]: a.split("=", 1)[1] for a in argv if "=" in a}
    out = []
    for entry in data.get("defaults", []):
        if not isinstance(entry, dict):
            continue
        for group, option in entry.items():
            if group.startswith(("hydra", "override")):
                continue
            default = f"[{','.join(option)}]" if isinstance(option, list) else str(option)
            out.append((group, chosen.get(group, default)))
    return out


def summary(doc: str) -> list[str]:
    """The module docstring's first paragraph and its indented example commands (the notes
    for developers that follow are left out)."""
    paragraphs = doc.strip().split("\n\n")
    examples = [p for p in paragraphs[1:] if p.startswith("    ")]
    return "\n\n".join([paragraphs[0], *examples]).splitlines()


def help_page(prog: str, doc: str | None, schema: Any, conf_dir: str, config_name: str,
              argv: Sequence[str]) -> str:  # fmt: skip
    """The whole `--help` page (values after the other arguments' overrides)."""
    from hydra import compose, initialize_config_dir


    overrides = [a for a in argv if not a.startswith("-")]
    lines = [*summary(doc or prog), "",
             f"usage: {prog} [group=option ...] [key=value ...]   "
             "(Hydra overrides; --hydra-help: Hydra's own flags)"]  # fmt: skip
    with initialize_config_dir(config_dir=conf_dir, version_base=None):
        try:
            values = compose(config_name=config_name, overrides=overrides)
        except Exception:  # a bad override: show the defaults; running it says what is wrong
            values = compose(config_name=config_name)
        groups = [(g, c, group_options(g)) for g, c in _groups(conf_dir, config_name, overrides)]
    if groups:
        lines += ["", "groups (group=option; now: the current choice):"]
        width = max(len(g) for g, _, _ in groups)
        for group, choice, options in groups:
            lines.append(f"  {group:<{width}}  now: {choice:<14} options: {', '.join(options)}")
    rows = field_rows(schema, values)
    width = min(max(len(k) for k, _, _ in rows), 36)
    lines += ["", "keys (key=value; current value, then what it does):"]
    for key, value, text in rows:
        value = value if len(value) <= 40 else value[:37] + "..."
        lines.append(f"  {key:<{width}} = {value:<16} {text}")
    return "\n".join(lines)
