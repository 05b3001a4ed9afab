"""What a checkpoint records about the data it was trained on: the rules that cut its chains.

A reward model must cut a policy's completion into steps the way its training chains were cut
(`pipelines.reward`), so prm-train copies the `split` section of each dataset's prm-label
manifest into the checkpoint's `prm_format.json` (`StepFormat.split`).

What it promises: a record only when it is known. Datasets whose chains came already split
(`model.name == "given"`: ProcessBench, PRM800K) and paths without a prm-label manifest say
nothing, except given reasoning traces cut into sections by people (an adapter that declares
`SECTIONS`, DeltaBench's), which record `mode: sections`: the machine cut a label run uses
for traces, the nearest repeatable cut there is. Datasets cut by different rules leave no
record (a warning names them) rather than one picked at random.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from labeling.datasets import gives_sections

log = logging.getLogger("prm-train")
MANIFEST = "manifest.json"


def _manifest(path: str) -> dict[str, Any] | None:
    p = Path(path).expanduser()
    try:
        return json.loads((p / MANIFEST).read_text()) if p.is_dir() else None
    except (OSError, ValueError):
        return None


def _adapter(config: dict[str, Any]) -> str | None:
    dataset = config.get("dataset") or {}
    return dataset.get("adapter") or dataset.get("name")


def dataset_split(paths: list[str]) -> dict[str, Any] | None:
    """The `split` section shared by every dataset in `paths` that prm-label cut itself;
    None when no dataset says, or when they disagree."""
    found: dict[str, dict[str, Any]] = {}
    for path in paths:
        manifest = _manifest(path) or {}
        config = manifest.get("config") or {}
        split = config.get("split")
        if not isinstance(split, dict):
            continue
        if (manifest.get("model") or {}).get("name") != "given":
            found[path] = split
        elif gives_sections(_adapter(config)):
            found[path] = {**split, "mode": "sections"}
    rules = {json.dumps(s, sort_keys=True) for s in found.values()}
    if len(rules) > 1:
        log.warning(
            "the datasets were cut into steps by different rules (%s); the checkpoint records "
            "none, so a reward must set its split.mode", "; ".join(
                f"{p}: {json.dumps(s, sort_keys=True)}" for p, s in found.items()),
        )  # fmt: skip
        return None
    return next(iter(found.values()), None)
