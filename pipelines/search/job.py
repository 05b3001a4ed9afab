"""The `prm-search` driver: units of problems, every strategy and budget searched together.

The job runs on the driver `prm-label` runs on (`pipelines.unit_job`): the input is cut into
units of at most `output.problems_per_unit` problems by content (duplicates quarantined), a
unit's key hashes its members with every config field that changes rows, and a re-run skips
units whose record and shard check out (resume). A unit's tasks (each problem x each
strategy family x each budget) run in lockstep (`driver.run_tasks`), so every round sends
the generations of the whole unit to the engine at once. Code problems are quarantined
(math only for now).
"""

from __future__ import annotations

import logging
import time
from dataclasses import asdict
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

from labeling.prm.search import canonical_answer
from labeling.prompts import user_message
from labeling.rows import quarantine_row
from labeling.schema import Problem, Quarantined
from labeling.shards import UnitRecord
from labeling.steps.splitters import split_steps
from pipelines.config_fields import config_hash as rows_hash
from pipelines.search import registry
from pipelines.search.config import SearchConfig
from pipelines.search.driver import Generator, PoolGenerator, StepScorer, Task, run_tasks
from pipelines.search.output import read_rows, summarize, write_unit
from pipelines.search.prm import load_prm
from pipelines.search.registry import SearchContext
from pipelines.unit_job import (
    UnitJob,
    check_input_paths,
    read_members,
    split_members,
)
from verifiers.answer import AnswerChecker, extract_answer

log = logging.getLogger("prm-search")


def final_answer(text: str) -> str | None:
    """The chain's answer as the answer source reads it (the last number as a fallback)."""
    answer, _ = extract_answer(text)
    return answer


def states_answer(text: str) -> bool:
    """True when `text` states a final answer (boxed, '####', 'the answer is'); a bare
    number, which `final_answer` falls back to, does not end a chain in beam search."""
    answer, how = extract_answer(text)
    return answer is not None and how != "last_number"


def build_tasks(cfg: SearchConfig, p: Problem) -> list[Task]:
    """The searches of every selected strategy for one problem: one `build` call per
    strategy family (`pipelines.search.registry`), each search a task."""
    messages = (("user", user_message(p, cfg.sampler.math_instruction)),)
    split = partial(split_steps, mode=str(cfg.split.mode), options=cfg.split.section_options())
    ctx = SearchContext(cfg, p, messages, split, final_answer, states_answer)
    tasks = []
    for spec, members in registry.families(cfg.search.strategies):
        for co, label in spec.build(ctx, members):
            tasks.append(Task(co, p.question, f"problem {p.problem_id} ({label})"))
    return tasks


def check_decisions(cfg: SearchConfig, problems: list[Problem],
                    decisions: list[tuple[Problem, Any]]) -> None:  # fmt: skip
    """Every selected strategy decided on every problem, and no other strategy did; raises
    RuntimeError (a strategy's builder is broken: a bug, never zero rows and a clean run)."""
    wanted = {str(x) for x in cfg.search.strategies}
    got: dict[str, set[str]] = {p.problem_id: set() for p in problems}
    for p, d in decisions:
        got[p.problem_id].add(d.strategy)
    for pid, made in got.items():
        missing, extra = sorted(wanted - made), sorted(made - wanted)
        if missing or extra:
            raise RuntimeError(
                f"problem {pid}: strategies {', '.join(missing) or '-'} made no decision and "
                f"{', '.join(extra) or '-'} decided unasked; their builders in "
                "pipelines.search.registry must serve exactly the strategies they are given"
            )


class SearchJob(UnitJob):
    app = "prm-search"

    def __init__(self, cfg: SearchConfig, generator: Generator | None = None,
                 prm: StepScorer | None = None) -> None:  # fmt: skip
        """`generator`/`prm` given (tests) are used as they are; else built from the config."""
        super().__init__(cfg.output.dir, rows_hash(cfg), cfg.output.resume)
        self.cfg = cfg
        self.generator, self.prm = generator, prm
        self.prm_name = Path(cfg.prm.checkpoint).name if cfg.prm.checkpoint else ""
        self.checker: AnswerChecker | None = None

    def _ensure_backends(self) -> None:
        if self.prm is None and registry.needs_prm(self.cfg.search.strategies):
            self.prm = load_prm(self.cfg.prm)
        if self.generator is None:
            self.pool, self.model_path = self.start_pool(self.cfg.model, self.cfg.engine,
                                                         self.cfg.ray)  # fmt: skip
            self.generator = PoolGenerator(self.pool)

    def _correct(self, answer: str | None, reference: str, cache: dict) -> bool | None:
        key = canonical_answer(answer)
        if key is None:
            return False
        if key not in cache:
            assert self.checker is not None
            cache[key] = self.checker.equivalent(answer or "", reference)
        return cache[key]

    def search_unit(self, problems: list[Problem]) -> tuple[list[dict], list[Quarantined], int]:
        """Rows, quarantined problems and the tokens generated (the shared sample of the
        sampling strategies counted once, though every budget's row reports its share)."""
        math = [p for p in problems if p.domain == "math" and p.reference.strip()]
        bad = [Quarantined(p.source_dataset, -1, "prm-search needs a math problem with a "
                           "reference answer", p.question[:2000], p.problem_id, "filter")
               for p in problems if p not in math]  # fmt: skip
        tasks = [(p, t) for p in math for t in build_tasks(self.cfg, p)]
        decided: list = []
        if tasks:
            self._ensure_backends()
            generator: Any = self.generator
            decided = run_tasks([t for _, t in tasks], generator, self.prm)
        # also when no strategy built a search: that is a broken builder, never zero rows
        check_decisions(self.cfg, math, [(p, d) for (p, _), ds in zip(tasks, decided,
                                                                       strict=True) for d in ds])
        rows, caches = [], {}
        for (p, _), decisions in zip(tasks, decided, strict=True):
            cache = caches.setdefault(p.problem_id, {})
            for d in decisions:
                rows.append({
                    "problem_id": p.problem_id, "source_dataset": p.source_dataset,
                    "strategy": d.strategy, "aggregation": d.aggregation, "budget": d.budget,
                    "chosen_answer": d.answer, "reference_answer": p.reference,
                    "correct": self._correct(d.answer, p.reference, cache),
                    "chosen_score": d.score, "chosen_text": d.text,
                    "candidates": d.candidates, "generated_tokens": d.tokens,
                    "prm_calls": d.prm_calls, "rounds": d.rounds,
                    "seed": d.seed,
                    "model": self.cfg.model.name, "prm": self.prm_name,
                    "config_hash": self.hash,
                })  # fmt: skip
        generated = sum(max((d.tokens for d in ds), default=0) for ds in decided)
        return rows, bad, generated

    def check_inputs(self) -> None:
        check_input_paths(self.cfg.dataset.path)

    def close(self) -> None:
        if self.checker is not None:
            self.checker.close()
        if self.pool is not None:
            self.pool.shutdown()

    def _run(self) -> dict[str, Any]:
        started_at = datetime.now(UTC).isoformat(timespec="seconds")
        t0 = time.monotonic()
        self.checker = AnswerChecker(timeout_s=self.cfg.answer_check.timeout_s)
        items = read_members(self.cfg.dataset)
        plan, keys = self.plan(items, self.cfg.output.problems_per_unit)
        progress = self.progress(10.0, self.cfg.dataset.limit)
        records: dict[int, UnitRecord] = {}
        resumed = 0
        for pu in plan:
            unit, key = pu.unit, keys[pu.unit]
            rec = self.resumed(unit, key)
            if rec is not None:
                records[unit], resumed = rec, resumed + 1
                progress.update(rec, reused=True)
                continue
            problems, bad = split_members(items, pu)
            started = time.monotonic()
            rows, skipped, generated = self.search_unit(problems)
            skipped = bad + skipped
            counts = {"problems_in": len(problems) + len(bad), "rows": len(rows),
                      "problems_searched": len(problems) - (len(skipped) - len(bad)),
                      "problems_quarantined": len(skipped)}  # fmt: skip
            tokens = {"generated": generated}
            records[unit] = write_unit(self.out, unit, key, rows,
                                       [quarantine_row(q, self.hash) for q in skipped],
                                       counts, tokens, time.monotonic() - started)  # fmt: skip
            progress.update(records[unit])
        progress.close()
        return self._finish(records, resumed, started_at, time.monotonic() - t0)

    def _finish(self, records: dict[int, UnitRecord], resumed: int, started_at: str,
                wall: float) -> dict[str, Any]:  # fmt: skip
        manifest = {**self.manifest_head(records, started_at, wall, resumed,
                                         "problems_searched"),
                    "config": _plain(asdict(self.cfg))}  # fmt: skip
        self.out.write_manifest(manifest)  # the rows are readable from here on
        manifest["summary"] = summarize(read_rows(self.out.root))
        self.out.write_manifest(manifest)
        if self.cfg.output.report:
            # matplotlib loads only when the report is drawn.
            from pipelines.search.report import write_report

            write_report(self.out.root, manifest)
        print(done_text(manifest, self.out.root, self.cfg.output.report))
        return manifest


def done_text(manifest: dict[str, Any], root: Path, report: bool) -> str:
    """What prm-search prints at the end: the accuracy table and where the results are."""
    c = manifest["counts"]
    lines = [f"prm-search: {c.get('problems_searched', 0)} problems searched "
             f"({c.get('problems_quarantined', 0)} quarantined), {c.get('rows', 0)} rows in "
             f"{manifest['wall_time_s']}s"
             + (f"; {manifest['units_reused']} of {manifest['units']} units reused"
                if manifest.get("units_reused") else ""),
             f"  {'strategy':<14}{'aggregation':<12}{'N':>4}{'problems':>9}{'accuracy':>10}"
             f"{'tokens/problem':>16}"]  # fmt: skip
    for r in manifest.get("summary", []):
        lines.append(f"  {r['strategy']:<14}{r['aggregation'] or '-':<12}{r['budget']:>4}"
                     f"{r['problems']:>9}{r['accuracy']:>10.3f}"
                     f"{r['tokens_per_problem']:>16.0f}")  # fmt: skip
    lines.append(f"  rows: {root / 'shards'}, manifest: {root / 'manifest.json'}"
                 + (f", report: {root / 'report.html'}" if report else ""))
    return "\n".join(lines)


def _plain(x: Any) -> Any:
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_plain(v) for v in x]
    return str(x) if hasattr(x, "value") else x
