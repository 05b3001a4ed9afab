"""prm-train's own checkpoints: where they lie, what they hold, how one is written.

`<output.dir>/checkpoints/step_NNNNNNN/` is a servable HF directory (`save_checkpoint`) plus
`trainer_state.pt` (optimizer, schedule, step, data position, RNG). A checkpoint is written
from a `snapshot` (host copies taken at its step), so the write can run on a background
thread while training goes on; it goes to a `.tmp` directory renamed when complete, so a
checkpoint is either whole or absent, and `latest_checkpoint` never sees a half-written one.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import torch

from pipelines.checkpoint.export import save_checkpoint, weights_of
from pipelines.train.background import to_host

STATE_FILE = "trainer_state.pt"


def latest_checkpoint(output_dir: Path) -> Path | None:
    found = sorted((output_dir / "checkpoints").glob("step_*/" + STATE_FILE))
    return found[-1].parent if found else None


def resume_path(choice: str, out: Path) -> Path | None:
    """The checkpoint `train.resume` names: auto (latest in `out`), none, or a path."""
    if choice.lower() in ("none", "null", "false", ""):
        return None
    if choice == "auto":
        return latest_checkpoint(out)
    path = Path(choice).expanduser()
    if not (path / STATE_FILE).exists():
        raise FileNotFoundError(f"train.resume={path} has no {STATE_FILE}; use auto or none")
    return path


def snapshot(core: Any, optimizer: Any, scheduler: Any, step: int,
             position: dict[str, int]) -> tuple[dict[str, Any], dict[str, Any]]:  # fmt: skip
    """(weights, trainer state) of this step as host copies: what a background write saves
    while the next steps change the originals."""
    state = {
        "optimizer": to_host(optimizer.state_dict()),
        "scheduler": scheduler.state_dict(),
        "step": step,
        "data": dict(position),
        "rng": torch.get_rng_state(),
    }
    return to_host(weights_of(core)), state


def write_checkpoint(model: Any, tok: Any, weights: dict[str, Any], state: dict[str, Any],
                     out: Path, keep: int) -> Path:  # fmt: skip
    """Write `step_NNNNNNN` from a snapshot (tmp -> rename); keep the newest `keep`."""
    final = out / "checkpoints" / f"step_{state['step']:07d}"
    tmp = final.with_name(final.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    save_checkpoint(model, tok, tmp, weights)
    torch.save(state, tmp / STATE_FILE)
    shutil.rmtree(final, ignore_errors=True)
    tmp.rename(final)  # a checkpoint is either complete or absent
    for old in sorted((out / "checkpoints").glob("step_???????"))[: -max(keep, 1)]:
        shutil.rmtree(old, ignore_errors=True)
    return final
