"""What a checkpoint records about the data it was trained on: the rules that cut its chains.

A reward model must cut a policy's completion into steps the way its training chains were cut
(`pipelines.reward`), so prm-train writes a `split` record into the checkpoint's
`prm_format.json` (`StepFormat.split`) from the prm-label manifests of its datasets.

What it promises: the rule is recorded when it is known, with who cut (`cut_by`):
- `prm-label`: the label job cut the chains itself, sampled ones or response strings given
  with the input (a reasoning trace cut with `split.mode=sections`): the manifest's `split`
  config, which a reward repeats exactly;
- `people`: reasoning traces given in people's sections (an adapter that declares
  `SECTIONS`, DeltaBench's) record `mode: sections`, the machine cut a label run uses for
  traces, the nearest repeatable cut there is;
- `given`: every chain came as a list of steps (ProcessBench, PRM800K, `steps` fields): no
  rule cut them, so `mode` is None and a reward picks its own (and says so);
- `mixed`: datasets cut by different rules: `mode` is None, `rules` names each dataset's,
  and a warning says so here (a reward warns again at start).
Datasets given as step lists beside ones prm-label cut are named under `given` of the cut
rule's record. Paths without a prm-label manifest say nothing; with none at all, no record.
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


def _who_cut(manifest: dict[str, Any]) -> tuple[int, int]:
    """(chains prm-label cut, chains that came split) of one manifest. The label job counts
    both in its `split` block; a manifest without the counts was cut by prm-label unless its
    chains were given (`model.name == "given"`)."""
    block = manifest.get("split") if isinstance(manifest.get("split"), dict) else {}
    if "chains_cut" in block or "chains_given_split" in block:
        return int(block.get("chains_cut") or 0), int(block.get("chains_given_split") or 0)
    given = (manifest.get("model") or {}).get("name") == "given"
    return (0, 1) if given else (1, 0)


def dataset_split(paths: list[str]) -> dict[str, Any] | None:
    """The `split` record of a checkpoint trained on `paths` (see the module docstring);
    None when no path has a prm-label manifest with a split config."""
    cut: dict[str, dict[str, Any]] = {}
    given: list[str] = []
    for path in paths:
        manifest = _manifest(path) or {}
        config = manifest.get("config") or {}
        split = config.get("split")
        if not isinstance(split, dict):
            continue
        n_cut, n_given = _who_cut(manifest)
        if n_cut:
            cut[path] = {**split, "cut_by": "prm-label"}
        if n_given:
            if gives_sections(_adapter(config)):
                cut[path] = {**split, "mode": "sections", "cut_by": "people"}
            else:
                given.append(path)
    rules = {json.dumps(s, sort_keys=True) for s in cut.values()}
    if len(rules) > 1:
        log.warning(
            "the datasets were cut into steps by different rules (%s); the checkpoint records "
            "them as mixed, so a reward must set its split.mode", "; ".join(
                f"{p}: {json.dumps(s, sort_keys=True)}" for p, s in cut.items()),
        )  # fmt: skip
        return {"mode": None, "cut_by": "mixed", "rules": cut, "given": given}
    if cut:
        return {**next(iter(cut.values())), "given": given}
    if given:
        return {"mode": None, "cut_by": "given", "given": given}
    return None
