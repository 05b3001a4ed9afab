"""The label job: units of problems flow through sampling, labeling and writing.

It runs on the driver it shares with prm-search (`pipelines.unit_job`): work is cut into
units by content (`labeling.unit_plan`): the problems' content hashes, sorted and cut into
units of at most `output.problems_per_unit`, so the order of the input does not matter. A
unit's key hashes its members with every config field that changes labels, so:
- a re-run with the same config skips units whose record and shard check out (resume);
- a refresh with `output.previous=<old dir>` keeps the old version's units: a unit whose
  members are all still there is copied, one that lost members keeps the rows of the rest,
  and only problems the old version did not have are labeled, in new units (lineage in the
  manifest). Old versions cut in input order are reused the same way.
The input's ids are read whole before the first unit (problems are held in memory: about a
kilobyte each), then up to `lookahead` units are sampled ahead of the one being labeled, so
the engine actors always have queued work while verifiers run.
"""

from __future__ import annotations

import logging
import time
from collections import Counter, deque
from datetime import UTC, datetime
from typing import Any

from labeling.engine_request import EngineRequest
from labeling.ids import config_hash as hash_of
from labeling.ids import derive_seed
from labeling.rows import quarantine_row
from labeling.schema import Problem, Quarantined
from labeling.shards import UnitRecord
from labeling.unit_plan import PlannedUnit, refresh_cost
from pipelines.cli import interrupt_on_sigterm
from pipelines.config_fields import config_hash as rows_hash
from pipelines.engine.runtime import init_ray
from pipelines.generation_config import ModelConfig
from pipelines.hydra_argv import sweep_job
from pipelines.label.config import LabelJobConfig, resolve
from pipelines.label.labelers import settle_labelers
from pipelines.label.manifest import (
    build_manifest,
    given_model,
    log_done,
    numerics,
    redone,
    say_coverage,
    say_numerics,
    split_cost,
    who_cut,
    write_report_quietly,
)
from pipelines.label.plan import (
    RunPlan,
    dry_run,
    estimate,
    make_plan,
    plan_lines,
    say_what_resume_redoes,
)
from pipelines.label.questions import AskedQuestions, mc_question_requests
from pipelines.label.reuse import copy_unit
from pipelines.label.sources import rules_of
from pipelines.label.unit import Sampled, UnitLabeler, UnitResult
from pipelines.progress import engine_throughput
from pipelines.unit_job import (
    UnitJob,
    check_input_paths,
    failure,
    split_members,
)

log = logging.getLogger("prm-label")


def unit_hash(cfg: LabelJobConfig) -> str:
    """What keys this job's units and fills `config_hash`: the fields that change rows, and
    the rules of the sources that hold them in code (`sources.rules_of`)."""
    rules = rules_of(cfg)
    return hash_of({"config": rows_hash(cfg), "rules": rules}) if rules else rows_hash(cfg)


class LabelJob(UnitJob):
    app = "prm-label"

    def __init__(self, cfg: LabelJobConfig) -> None:
        cfg = resolve(cfg)  # `auto` values written in before the unit keys are hashed
        super().__init__(cfg.output.dir, unit_hash(cfg), cfg.output.resume)
        self.cfg = cfg
        # Engine pools of the models that are not the sampler's (a judge's, a completer's),
        # one per distinct model: (model, pool).
        self.own_pools: list[tuple[ModelConfig, Any]] = []
        self.labelers: list[Any] = []
        self._calls = 0
        self.refresh: dict[str, int] | None = None  # what a refresh copied and labeled
        self.units_retried_by_problem = 0  # units whose labeling call failed (see _labeled)
        self._places: list[Any] = []  # each labeler's (node, pid) at start: Ray refs
        self.reused_units: set[int] = set()  # resumed or copied: not this run's work
        self.numerics: dict[str, Any] = {}

    # -- set-up ---------------------------------------------------------------------------

    def _critic(self) -> Any:
        """The judge's critic: on the sampler's pool when the judge's model is the sampler's
        (the default), else on an engine pool of its own (e.g. a 72B judge beside a small
        sampler on a cluster)."""
        judge = self.cfg.labels.judge
        if judge is None:
            return None
        from pipelines.engine.judge import EngineJudge

        return EngineJudge(*self._pool_for(judge.own_model(self.cfg.model)))

    def _completer(self) -> Any:
        """MC's completer: the sampler's pool when `labels.mc.model` is the sampler's (the
        default), else a pool of its own (a stronger completer than the chains' writer)."""
        mc = self.cfg.labels.mc
        if mc is None:
            return None
        from pipelines.engine.completer import EngineCompleter

        # On the sampler's pool, rollout requests carry the sampler's top_p
        # (pipelines.label.sources), so its chains are samples of the completer when
        # labels.mc keeps its cap and temperature.
        return EngineCompleter(*self._pool_for(mc.own_model(self.cfg.model)))

    def pools(self) -> list[tuple[str, Any]]:
        """The sampler's pool and each model of its own's (named), for the progress lines."""
        return [("", self.pool), *((model.name, pool) for model, pool in list(self.own_pools))]

    def _own_models(self) -> list[ModelConfig]:
        """The distinct models besides the sampler's that sources run (judge, completer)."""
        out: list[ModelConfig] = []
        for section in (self.cfg.labels.judge, self.cfg.labels.mc):
            own = section.own_model(self.cfg.model) if section is not None else None
            if own is not None and own not in out:
                out.append(own)
        return out

    def _pool_for(self, own: ModelConfig | None) -> tuple[Any, str]:
        """(pool, model name) a source runs on: the sampler's when `own` is None, else the
        pool of that model, started once and shared by every source that names it."""
        if own is None:
            self._ensure_engine()
            return self.pool, self.cfg.model.name
        for known, pool in self.own_pools:
            if known == own:
                return pool, own.name
        pool, _ = self._start_pool(own)
        self.own_pools.append((own, pool))
        return pool, own.name

    def _cpu_share(self) -> float:
        """Each pool's share of a node's cores on CPU engines: an equal share for the
        sampler's and each model of its own (a judge's, a completer's); on GPUs, all."""
        pools = 1 + len(self._own_models())
        return 1.0 if self.cfg.engine.num_gpus else 1.0 / pools

    def _start_pool(self, model: ModelConfig) -> tuple[Any, str]:
        """A pool whose engines are still loading: its first call waits for them."""
        return self.start_pool(model, self.cfg.engine, self.cfg.ray,
                               verbose=self.cfg.debug.verbose_engine, cpu_share=self._cpu_share(),
                               every_s=self.cfg.debug.log_every_s, wait=False)

    def _ensure_engine(self) -> None:
        if self.pool is None:
            self.pool, self.model_path = self._start_pool(self.cfg.model)

    def _ensure_labelers(self) -> None:
        if self.labelers:
            return
        completer = self._completer()
        critic = self._critic()
        rc = self.cfg.ray
        if not rc.enabled:
            self.labelers = [UnitLabeler(self.cfg, self.hash, completer, critic)]
            return
        import ray

        cls = ray.remote(
            num_cpus=rc.label_num_cpus,
            max_restarts=rc.max_restarts,
            max_task_retries=rc.max_task_retries,
            scheduling_strategy="SPREAD",  # over a cluster's nodes, beside their engines
        )(UnitLabeler)
        self.labelers = [
            cls.remote(self.cfg, self.hash, completer, critic) for _ in range(rc.label_actors or 1)
        ]
        # Asked now, answered by each labeler's first life; read at the end (manifest.redone), so
        # the labelers start while the engines load instead of before.
        self._places = [a.where.remote() for a in self.labelers]

    # -- stages ---------------------------------------------------------------------------

    def _requests(self, problems: list[Problem]) -> list[EngineRequest]:
        from labeling.prompts import user_message

        s = self.cfg.sampler
        return [
            EngineRequest.user(user_message(p, s.math_instruction), key=p.problem_id, n=s.n,
                               seed=derive_seed(s.seed, p.problem_id), max_tokens=s.max_tokens,
                               temperature=s.temperature, top_p=s.top_p, stop=tuple(s.stop))
            for p in problems
            if not p.given_chains
        ]

    def _submit_sampling(self, problems: list[Problem]) -> tuple[list[EngineRequest], Any, Any]:
        """The unit's sampling requests and their ticket, and MC's bare-question rollouts
        (`pipelines.label.questions`: sent now, so the engines run both in one batch)."""
        requests = self._requests(problems)
        questions = mc_question_requests(self.cfg, problems)
        if requests:
            self._ensure_engine()
        if requests or questions:
            # The labelers (their processes, checkers and sandbox pools) start while the
            # engines load: the first submit below is what waits for the engines.
            self._ensure_labelers()
        ticket = self.pool.submit(requests) if requests else None
        if not questions:
            return requests, ticket, None
        pool = self._pool_for(self.cfg.labels.mc.own_model(self.cfg.model))[0]
        return requests, ticket, AskedQuestions(questions, pool)

    def _collect_samples(self, requests, ticket) -> dict[str, Sampled] | None:
        if ticket is None:
            return None
        results = self.pool.collect(ticket)
        return {req.key: (req.seed, res) for req, res in zip(requests, results, strict=True)}

    def _submit_label(self, problems, samples, questions=None) -> Any:
        self._ensure_labelers()
        actor = self.labelers[self._calls % len(self.labelers)]
        self._calls += 1
        if not self.cfg.ray.enabled:
            return actor.label(problems, samples, questions)
        return actor.label.remote(problems, samples, questions)

    def _result(self, ref: Any) -> Any:
        if not self.cfg.ray.enabled:
            return ref
        import ray

        return ray.get(ref)

    def _labeled(self, ref: Any, problems: list[Problem], samples: Any,
                 questions: Any = None) -> UnitResult:
        """The unit's result; if its call failed even after Ray's retries (an actor that
        keeps dying, a crash in a verifier), label problem by problem so that only the
        problems that fail again are quarantined, each with the reason."""
        try:
            return self._result(ref)
        except Exception as exc:  # RayActorError, RayTaskError, or a bug in-process
            log.warning("labeling a unit failed (%s); retrying problem by problem",
                        failure(exc))
            self.units_retried_by_problem += 1
        merged = UnitResult()
        for p in problems:
            one = {p.problem_id: samples[p.problem_id]} if samples and p.problem_id in samples \
                else None
            asked = {p.problem_id: questions[p.problem_id]} \
                if questions and p.problem_id in questions else None
            try:
                part = self._result(self._submit_label([p], one, asked))
            except Exception as exc:
                reason = f"labeling failed twice: {failure(exc)}"
                part = UnitResult()
                part.counts.update(problems_in=1, problems_quarantined=1)
                part.quarantine.append(quarantine_row(
                    Quarantined(p.source_dataset, -1, reason, p.question[:2000],
                                p.problem_id, "verify"), self.hash))
            merged.rows += part.rows
            merged.quarantine += part.quarantine
            merged.counts.update(part.counts)
            merged.tokens.update(part.tokens)
        merged.counts["rows"] = len(merged.rows)
        return merged

    # -- the run --------------------------------------------------------------------------

    def _reuse(self, pu: PlannedUnit, plan: RunPlan) -> UnitRecord | None:
        """Done already (resume), or copied from the previous version (`reuse.copy_unit`)."""
        if pu.unit in plan.resumed:
            return plan.resumed[pu.unit]
        old = plan.before.get(pu.unit)
        if plan.prev is None or old is None:
            return None
        return copy_unit(self.out, plan.prev, old, pu, plan.keys[pu.unit], self.cfg.sampler.n,
                         self.cfg.output.row_group_size)

    def _finish_unit(self, unit, key, problems, bad, started, result) -> UnitRecord:
        counts: Counter = Counter(result.counts)
        counts["problems_in"] += len(bad)
        counts["problems_quarantined"] += len(bad)
        quarantine = [quarantine_row(q, self.hash) for q in bad] + result.quarantine
        return self.out.write_unit(
            unit, key, result.rows, quarantine, counts, result.tokens,
            time.monotonic() - started, self.cfg.output.row_group_size,
        )

    def dry_run(self) -> dict[str, Any]:
        """The plan and its estimate, printed; nothing started or written (`plan.dry_run`)."""
        return dry_run(self)

    def check_inputs(self) -> None:
        """What can be checked before anything starts (no directory, no Ray): the input file
        and the previous version named by the config exist."""
        check_input_paths(self.cfg.dataset.path, self.cfg.output.previous)

    def _run(self) -> dict[str, Any]:
        started_at = datetime.now(UTC).isoformat(timespec="seconds")
        t0 = time.monotonic()
        plan = make_plan(self)
        items, prev = plan.items, plan.prev
        say_what_resume_redoes(self, plan.keys)
        init_ray(self.cfg.ray)
        interrupt_on_sigterm(again=True)  # ray.init replaced SIGTERM's handler
        settle_labelers(self.cfg, len(plan.units), {x.domain for x in items.values()
                                                     if isinstance(x, Problem)})
        self.refresh = refresh_cost(plan.units) if prev else None
        summary = plan.summary()
        guess = estimate(self.cfg, summary, self.hash)
        for line in plan_lines(self.cfg, summary, guess):
            log.info(line)
        self.numerics = numerics(self.cfg, [self.cfg.model, *self._own_models()])
        say_numerics(self.numerics)
        records: dict[int, UnitRecord] = {}
        progress = self.progress(self.cfg.debug.log_every_s, summary["records"],
                                 len(plan.units), guess.get("seconds"))
        sampling: deque = deque()
        labeling: deque = deque()
        lookahead = 2
        reused = 0

        def finish_label() -> None:
            unit, key, problems, bad, started, samples, questions, ref = labeling.popleft()
            result = self._labeled(ref, problems, samples, questions)
            rec = self._finish_unit(unit, key, problems, bad, started, result)
            records[unit] = rec
            progress.update(rec)

        def start_label() -> None:
            unit, key, problems, bad, started, requests, ticket, asked = sampling.popleft()
            samples = self._collect_samples(requests, ticket)
            questions = asked.collect() if asked else None
            labeling.append((unit, key, problems, bad, started, samples, questions,
                             self._submit_label(problems, samples, questions)))
            while len(labeling) > max(1, len(self.labelers)) - 1:
                finish_label()

        for pu in plan.units:
            unit, key = pu.unit, plan.keys[pu.unit]
            problems, bad = split_members(items, pu)
            rec = self._reuse(pu, plan)
            if rec is not None:
                records[unit] = rec
                self.reused_units.add(unit)
                reused += 1
                progress.update(rec, reused=True)
                continue
            requests, ticket, asked = self._submit_sampling(problems)
            sampling.append((unit, key, problems, bad, time.monotonic(), requests, ticket, asked))
            while len(sampling) > lookahead:
                start_label()
        while sampling:
            start_label()
        while labeling:
            finish_label()
        progress.close()
        return self._manifest(records, started_at, time.monotonic() - t0, reused, prev)

    def _manifest(self, records, started_at, wall, reused, prev) -> dict[str, Any]:
        head = self.manifest_head(records, started_at, wall, reused, "problems_labeled")
        manifest = build_manifest(self.cfg, head, self.model_path, wall, prev)
        manifest["throughput"].update(engine_throughput(self.pool, wall, manifest["counts"]))
        if not self.model_path:  # no engine ran: the chains came with the input
            manifest["model"] = given_model(self.out.root, manifest["shards"])
        manifest["split"].update(who_cut(self.out.root, manifest["shards"]))
        manifest["unit_cutting"] = "content"  # older versions cut units in input order
        manifest["lineage"]["refresh"] = self.refresh
        manifest["cost"].update(split_cost(records, self.reused_units))
        manifest["sweep"] = sweep_job()  # which job of a multirun, its swept values
        manifest["numerics"] = self.numerics  # whether the same config and seed repeat
        manifest["rules"] = rules_of(self.cfg)  # the code-held rules in `config_hash`
        manifest["retries"] = retries = redone(
            self.pool, self.labelers if self.cfg.ray.enabled else [], self._places,
            self.units_retried_by_problem)
        if any(v for v in retries.values()):
            log.warning("redone after failures: %s", ", ".join(
                f"{k}={len(v) if isinstance(v, list) else v}" for k, v in retries.items() if v))
        self.out.write_manifest(manifest)
        say_coverage(self.out.root)
        if self.cfg.output.report:
            write_report_quietly(self.out.root)
        log_done(manifest, wall, self.out.root)
        return manifest
