"""Property: whatever Unicode a record holds (lone surrogates, NULs, control and combining
characters, very long lines), every dataset adapter turns each record into a Problem whose
texts can be written as UTF-8 or into a quarantine row with one sentence, and the shard
writer writes whatever rows it is given (setting aside, never crashing on, the ones that
cannot be encoded)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from labeling.datasets import load_problems
from labeling.datasets.common import problem_texts
from labeling.rows import labeled_row, quarantine_row
from labeling.schema import Chain, LabeledChain, Problem, Quarantined
from labeling.shards import DatasetDir, read_shard
from labeling.text.unicode import unwritable_field
from tests.test_poison_records import one_sentence
from tests.tiers import examples

# Every code point, surrogates included (Hypothesis leaves category Cs out by default).
ANY_CHAR = st.characters(exclude_categories=())
HOSTILE = st.sampled_from(["\ud800", "\udfff", "\x00", "\x07", "\x1b[31m", "\u0301", "\u202e",
                           "\ufeff", "\r", "\u2028", "\U0001f600", "\ufffd"])
TEXT = st.one_of(
    st.text(ANY_CHAR, max_size=40),
    st.lists(st.one_of(HOSTILE, st.text(max_size=5)), max_size=8).map("".join),
    st.builds(lambda c, n: c * n, HOSTILE | ANY_CHAR, st.integers(1_000, 60_000)),  # long lines
)
SETTINGS = settings(max_examples=examples(60), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _gsm8k(t):
    return {"question": t[0], "answer": f"{t[1]}\n#### {t[2]}"}


def _math(t):
    return {"problem": t[0], "solution": f"{t[1]} \\boxed{{{t[2]}}}"}


def _math_answer(t):
    return {"problem": t[0], "answer": t[1]}


def _mbpp(t):
    return {"text": t[0], "test_list": [t[1], t[2]], "test_setup_code": t[3], "task_id": 1}


def _humaneval(t):
    return {"prompt": t[0], "entry_point": t[1], "test": f"def check(candidate):\n{t[2]}"}


def _processbench(t):
    return {"id": t[3], "problem": t[0], "steps": [t[1], t[2]], "label": 1,
            "final_answer_correct": False, "generator": t[3]}


def _prm800k(t):
    step = {"completions": [{"text": t[2], "rating": 1}, {"text": t[3], "rating": -1}],
            "chosen_completion": 0, "human_completion": None}
    return {"question": {"problem": t[0], "ground_truth_answer": t[1]},
            "label": {"steps": [step], "finish_reason": "solution"}}


def _generic(t):
    return {"q": t[0], "a": t[1], "s": [t[2], t[3]], "fe": 0}


def _generic_code(t):
    return {"q": t[0], "t": [t[1]], "setup": t[2], "entry": t[3]}


GENERIC_FIELDS = {"question": "q", "answer": "a", "steps": "s", "first_error": "fe"}
# (adapter options, record builder, file suffix: .jsonl lines or one .json array)
ADAPTERS = [
    ({"name": "gsm8k"}, _gsm8k, ".jsonl"),
    ({"name": "math"}, _math, ".jsonl"),
    ({"name": "math"}, _math_answer, ".jsonl"),
    ({"name": "mbpp"}, _mbpp, ".jsonl"),
    ({"name": "humaneval"}, _humaneval, ".jsonl"),
    ({"name": "processbench"}, _processbench, ".json"),
    ({"name": "prm800k"}, _prm800k, ".jsonl"),
    ({"name": "generic", "fields": GENERIC_FIELDS}, _generic, ".jsonl"),
    ({"name": "generic", "fields": GENERIC_FIELDS}, _generic, ".json"),
    ({"name": "generic", "domain": "code",
      "fields": {"question": "q", "tests": "t", "test_setup": "setup", "entry_point": "entry"}},
     _generic_code, ".jsonl"),
]


def _write(records: list[dict], suffix: str, folder: Path) -> Path:
    path = folder / f"data{suffix}"
    # ensure_ascii (json's default): a surrogate travels as a `\udXXX` escape, as in the issue.
    if suffix == ".json":
        path.write_text(json.dumps(records))
    else:
        path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def _rows(problems: list[Problem], chain_text: str) -> list[dict]:
    """One labeled row per problem: its given chains, or a chain of (untrusted) model text."""
    rows = []
    for p in problems:
        steps_of = [g.steps for g in p.given_chains] or [(chain_text, "step two")]
        for i, steps in enumerate(steps_of):
            chain = Chain(p.problem_id, f"{p.problem_id}-{i}", i, "\n\n".join(steps), steps, "m")
            lc = LabeledChain(p, chain, p.question, {}, [None] * len(steps), -1)
            rows.append(labeled_row(lc, "verifier_first", "h"))
    return rows


@SETTINGS
@given(
    adapter=st.sampled_from(range(len(ADAPTERS))),
    texts=st.lists(st.tuples(TEXT, TEXT, TEXT, TEXT), min_size=1, max_size=4),
    chain_text=TEXT,
)
def test_every_adapter_and_the_shard_writer_survive_any_unicode(adapter, texts, chain_text):
    options, build, suffix = ADAPTERS[adapter]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        path = _write([build(t) for t in texts], suffix, folder)
        items = list(load_problems({**options, "path": str(path)}))
        assert len(items) == len(texts)  # nothing dropped
        problems = [x for x in items if isinstance(x, Problem)]
        quarantined = [x for x in items if isinstance(x, Quarantined)]
        assert len(problems) + len(quarantined) == len(items)
        for p in problems:
            assert unwritable_field(problem_texts(p)) == ""
        for q in quarantined:
            assert one_sentence(q.reason), q.reason
        rows = _rows(problems, chain_text)
        qrows = [quarantine_row(q, "h") for q in quarantined]
        out = DatasetDir(folder / "out")
        counts = {"rows": len(rows), "chains": len(rows)}
        record = out.write_unit(0, "k", rows, qrows, counts, {}, 0.0)  # must not raise
        assert record.shard_rows + record.quarantine_rows == len(rows) + len(qrows)
        assert record.counts["rows"] == record.shard_rows
        written = read_shard(out.shard_path(0)).num_rows if record.shard else 0
        assert written == record.shard_rows
        unwritable_chain = bool(unwritable_field(chain_text))
        model_chains = sum(not p.given_chains for p in problems)
        assert record.shard_rows == len(rows) - (model_chains if unwritable_chain else 0)
