"""Monte Carlo labels through the whole job on the real engine: the embedded SmolLM2 samples
the chains and completes them, the default `posterior` rule (and `fall`) labels them, and the
rows keep the counts behind every label."""

import pytest

from labeling.report import coverage, stats
from pipelines.label.app import run
from tests.conftest import compose

pytestmark = [pytest.mark.ray, pytest.mark.engine]


@pytest.mark.parametrize("rule", [None, "fall"])
def test_mc_rule_end_to_end_on_smollm2(tmp_path, ray_runtime, rule):
    out = tmp_path / "run"
    m = run(compose([
        "dataset=starter_math", "dataset.limit=2", "sampler.n=2", "sampler.temperature=0.3",
        "sampler.max_tokens=96", "labels=[answer,mc]", "ray.num_cpus=2", f"output.dir={out}",
        *([f"labels/mc={rule}"] if rule else []),
    ]))  # fmt: skip
    own_counts = rule == "fall"  # posterior keeps the chain's own outcome apart
    lf, _, _ = stats.scan_dataset(out)
    rows = lf.collect().to_dicts()
    assert len(rows) == m["counts"]["rows"] > 0
    asked = set()
    placed = {True: 0, False: 0}  # labels the rule placed from rollouts, before the last step
    for row in rows:
        n = len(row["completions"])
        sc = row["mc_self_confidence"]
        # the chains were sampled with the rollouts' settings: they count, and so do the
        # question's 16 rollouts (once per problem)
        assert sc["source"] == "chains+rollouts" and sc["rollouts"] == 16
        assert sc["decided"] <= 16 + 2 and sc["tokens"] > 0
        asked.add((row["problem_id"], sc["rollouts"]))
        for key in ("mc_labels", "mc_successes", "mc_decided", "mc_rollouts"):
            assert len(row[key]) == n
        own = row["outcome_correct"] is not None
        for i in range(n - 1):
            # the chain's own outcome is one decided trial of every step but the last
            assert row["mc_decided"][i] >= (own and own_counts)
            assert row["mc_decided"][i] <= row["mc_rollouts"][i] + (own and own_counts)
            assert 0 <= row["mc_successes"][i] <= row["mc_decided"][i]
        first = next((i for i, x in enumerate(row["mc_labels"]) if x is False), None)
        for x in row["mc_labels"][:-1]:
            if x is not None:
                placed[x] += 1
        if first is not None and first < n - 1:
            # a False the rule placed is a fall of the observed success rate: across the
            # step (fall), across some probed step up to it (posterior)
            rates = [(sc["successes"], sc["decided"])] + [
                (row["mc_successes"][j], row["mc_decided"][j]) for j in range(first + 1)]
            if rule == "fall":
                (b, bd), (x, d) = rates[-2], rates[-1]
                assert x * bd < b * d
            else:
                assert any(x * b[1] < b[0] * d for j, (x, d) in enumerate(rates)
                           for b in rates[:j] if b[1] and d)
        assert row["mc_labels"][-1] == (row["outcome_correct"] if first in (None, n - 1)
                                        else False)
    # both kinds of label came from rollouts, so the fall checks above ran
    assert placed[True] and placed[False], placed
    # the question's rollouts are counted once per problem in the job's cost
    assert m["counts"]["rollouts"] == (sum(r["rollouts"] for r in rows)
                                       + sum(k for _, k in asked))
    cov = coverage.source_coverage(lf)
    assert cov["sources"]["mc"]["steps"] == sum(len(r["completions"]) for r in rows)
    assert cov["self_confidence"]["problems"] == len(asked)
