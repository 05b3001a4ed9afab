"""The one driver of the jobs that work through units of problems: `prm-label` and `prm-search`.

What both jobs do around their own per-unit work lives here, once:
- check the input paths before anything starts (one sentence, no directory, no Ray);
- hold the output directory's lock so that two runs cannot interleave, and drop the manifest
  until the run writes it again (a dir without one is unfinished);
- read the input into members (a problem by its content id; a record the loader quarantined
  and a second copy of a problem by ids of their own, from their content and how many
  copies came before: never a line number) and cut them into units by content
  (`labeling.unit_plan`), so the order of the input does not matter;
- key a unit by its members and the job's config hash (the hash of the fields that change
  rows, `config_fields.config_hash`), and skip a unit whose record and shard check out
  (resume);
- resolve the model (a path, a profile prepared by name, or a hub id) and start the engines;
- report progress: a line per finished unit, and the engine's work while it runs;
- start the manifest from the finished units: counts that must add up, shards, tokens, the
  code version, the config hash, units done and reused.
A job subclasses `UnitJob` and writes `_run` (its stages per unit) and `check_inputs`.
"""

from __future__ import annotations

import logging
import subprocess
import time
from collections import Counter
from dataclasses import asdict
from pathlib import Path
from typing import Any, ClassVar

from filelock import FileLock, Timeout

from labeling.datasets import load_problems
from labeling.ids import config_hash
from labeling.schema import Problem, Quarantined
from labeling.shards import FORMAT_VERSION, DatasetDir, UnitRecord, summarize_units
from labeling.unit_plan import PlannedUnit, plan_units
from pipelines.cli import UserError, interrupt_on_sigterm
from pipelines.engine.pool import EnginePool
from pipelines.engine.prepare_model import prepare
from pipelines.engine.runtime import init_ray
from pipelines.generation_config import DatasetConfig, EngineConfig, ModelConfig, RayConfig
from pipelines.progress import Progress

Members = dict[str, Problem | Quarantined]


def check_input_paths(dataset_path: str | None, previous: str | None = None) -> None:
    """One sentence (UserError) for an input file or previous output dir that is not there."""
    if dataset_path and not Path(dataset_path).expanduser().exists():
        raise UserError(f"dataset.path={dataset_path} does not exist; set dataset.path to the "
                        "input file")
    if previous and not Path(previous).expanduser().is_dir():
        raise UserError(f"output.previous={previous} is not a directory; set it to an earlier "
                        "prm-label output dir")


def code_version() -> str:
    """The git commit of the checkout the job runs from, else the installed version."""
    here = Path(__file__).resolve().parent
    try:
        return subprocess.run(
            ["git", "-C", str(here), "rev-parse", "--short", "HEAD"],
            capture_output=True, text=True, timeout=5, check=True,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        from importlib.metadata import version

        return version("prm-labeler")


def resolve_model(model: ModelConfig, engine_kind: str) -> str:
    """The engine's model: `model.path` when it exists, a profile this tool prepares by name
    (converted on first use, see `prepare_model`) when the path is empty, or a hub id (for
    clusters that can reach a hub). A path that is not there is one sentence."""
    if str(engine_kind) == "simulated":
        return "simulated"
    if not model.path:
        try:
            return str(prepare(model=model.name))
        except ValueError as exc:
            raise UserError(f"model.path is empty and there is {exc}") from None
    p = Path(model.path).expanduser()
    if p.exists():
        return str(p)
    if model.path.startswith(("/", ".", "~")) or model.path.count("/") != 1:
        raise UserError(f"model.path {model.path!r} does not exist; set model.path")
    return model.path


def read_members(dataset: DatasetConfig) -> Members:
    """Every input record by member id (see the module): what units are cut from."""
    members: Members = {}
    seen: Counter[str] = Counter()  # copies of each bad record so far
    for index, x in enumerate(load_problems(asdict(dataset))):
        if isinstance(x, Problem) and x.problem_id in members:
            x = Quarantined(x.source_dataset, index,
                            "duplicate of an earlier problem with the same content",
                            x.question[:2000], x.problem_id, "load")
        if isinstance(x, Quarantined):
            members[load_member(x, seen)] = x
        else:
            members[x.problem_id] = x
    return members


def load_member(q: Quarantined, seen: Counter[str]) -> str:
    """The member id of a record the loader quarantined, counting copies in `seen`: a second
    copy of a problem `d<problem id>-<copy>`, an unreadable record `q<hash of its text and
    reason>` (`-<copy>` from the second copy on). By content and copy, never by line number,
    so a bad line that moved in tomorrow's dump is the same member and a refresh carries it
    with its unit (`pipelines.label.reuse` computes the same ids from the previous version's
    quarantine rows)."""
    if q.problem_id:
        seen["d" + q.problem_id] += 1
        return f"d{q.problem_id}-{seen['d' + q.problem_id]}"
    key = "q" + config_hash({"raw": q.raw, "why": q.reason})
    seen[key] += 1
    return key if seen[key] == 1 else f"{key}-{seen[key]}"


def split_members(items: Members, pu: PlannedUnit) -> tuple[list[Problem], list[Quarantined]]:
    """A unit's problems and its records quarantined at load, in unit order."""
    records = [items[m] for m in pu.members]
    return ([x for x in records if isinstance(x, Problem)],
            [x for x in records if isinstance(x, Quarantined)])


class UnitJob:
    app: ClassVar[str] = "prm-label"  # names the job in lock messages and progress lines

    def __init__(self, out_dir: str, config_hash_: str, resume: bool) -> None:
        self.out = DatasetDir(out_dir)
        self.hash = config_hash_
        self.resume = resume
        self.pool: Any = None  # the engine pool, started on first use
        self.model_path = ""
        self.log = logging.getLogger(self.app)
        self._progress: Progress | None = None  # closed after every run, interrupted too

    # -- what a job writes ------------------------------------------------------------------

    def check_inputs(self) -> None:
        """What can be checked before anything starts (no directory, no Ray)."""

    def _run(self) -> dict[str, Any]:
        raise NotImplementedError

    def close(self) -> None:
        """Release what the run holds (engines, checkers); called after every run."""

    # -- the run ------------------------------------------------------------------------------

    def run(self) -> dict[str, Any]:
        """The whole job; one run at a time per output directory (a file lock)."""
        self.check_inputs()
        self.out.root.mkdir(parents=True, exist_ok=True)
        lock = FileLock(self.out.root / ".lock")
        try:
            lock.acquire(timeout=0)
        except Timeout:
            raise UserError(
                f"another {self.app} run holds {self.out.root} (lock file "
                f"{self.out.root / '.lock'}); wait for it or choose another output.dir"
            ) from None
        try:
            (self.out.root / "manifest.json").unlink(missing_ok=True)  # unfinished until written
            return self._run()
        finally:
            if self._progress is not None:  # its thread asks the engines: stop it first
                self._progress.close()
            self.close()
            lock.release()

    def plan(self, items: Members, size: int,
             previous: dict[int, tuple[str, ...]] | None = None,
             ) -> tuple[list[PlannedUnit], dict[int, str]]:  # fmt: skip
        """The units (cut by content; `previous` maps an old version's units to members) and
        each unit's key."""
        plan = plan_units(items, size, previous)
        return plan, {pu.unit: self.unit_key(pu.members) for pu in plan}

    def unit_key(self, members: tuple[str, ...]) -> str:
        """A unit's identity: its members (content ids) and the config, not its place."""
        return config_hash({"config": self.hash, "members": list(members)})

    def resumed(self, unit: int, key: str) -> UnitRecord | None:
        """The unit's record when a run with this config finished it and its files check out;
        else None (a unit whose files do not check out is redone, with a line saying why)."""
        if not self.resume:
            return None
        rec = self.out.read_record(unit)
        if rec is None or rec.key != key:
            return None
        problem = self.out.verify_unit(rec)
        if problem:
            self.log.warning("unit %d will be redone: %s", unit, problem)
            return None
        return rec

    def start_pool(self, model: ModelConfig, engine: EngineConfig, ray: RayConfig,
                   **kwargs: Any) -> tuple[EnginePool, str]:  # fmt: skip
        """An engine pool for `model` (Ray started first) and the model's path; kwargs go to
        `EnginePool` (`wait=False`: return while the engines load; the pool says when they
        are ready)."""
        t = time.monotonic()
        init_ray(ray)
        interrupt_on_sigterm(again=True)  # ray.init replaced SIGTERM's handler
        if kwargs.get("verbose"):
            self.log.info("ray ready in %.1fs", time.monotonic() - t)
        path = resolve_model(model, engine.kind)
        self.log.info("engine: starting %s", path)
        return EnginePool(path, model, engine, ray, **kwargs), path

    def manifest_head(self, records: dict[int, UnitRecord], started_at: str, wall: float,
                      reused: int, done: str) -> dict[str, Any]:  # fmt: skip
        """What every job's manifest starts with, from this run's unit records (stale units of
        an earlier, longer run in the same dir are not part of it). Raises RuntimeError when
        the counts do not add up: every problem in leaves `done` or quarantined."""
        summary = summarize_units(records.values())
        c = summary["counts"]
        for k in ("problems_in", done, "problems_quarantined", "rows"):
            c.setdefault(k, 0)
        if c["problems_in"] != c[done] + c["problems_quarantined"]:
            raise RuntimeError(f"accounting error: {c}")
        return {
            "kind": self.app, "format_version": FORMAT_VERSION, "created_at": started_at,
            "wall_time_s": round(wall, 2), "code_version": code_version(),
            "config_hash": self.hash, "units": len(records), "units_reused": reused,
            **summary,
        }  # fmt: skip

    def progress(self, every_s: float, total: int | None, units: int | None = None,
                 eta_s: float | None = None) -> Progress:
        """Progress lines for this run (`total` problems in `units` units, `eta_s` the
        plan's estimate); each engine pool's work is reported once it runs."""
        progress = self._progress = Progress(self.app, every_s, total, units, eta_s)
        progress.watch(self.pools)
        return progress

    def pools(self) -> list[tuple[str, Any]]:
        """The engine pools to report on, as (label, pool): the sampler's ('')."""
        return [("", self.pool)]


def failure(exc: BaseException) -> str:
    """What went wrong, in one line: a Ray task error's first line names only the actor and
    the call, so its last line (the exception raised inside) is added."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()] or [repr(exc)]
    head, tail = lines[0][:200], lines[-1][:300]
    return head if tail == head else f"{head} ... {tail}"
