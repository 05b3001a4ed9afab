"""Independent text for the calculator's false-flag scan: one reader per corpus in shared/data.

Every reader yields `Chain`s: a problem, its steps as a labeling run would see them, and per
step what a label says about it (True: a label says the step is right, False: wrong, None: no
label). A calculator flag on a step a label calls right is a likely false flag; on a
reference solution every step counts as right (reference solutions are nearly always right).

Corpora (all outside the ProcessBench dev split the calculator was tuned on):
- gsm8k: GSM8K train `answer`s, one step per line (reference solutions).
- math: MATH train `solution`s, one step per line or sentence (`split_sentences`).
- math_paragraphs: the same solutions, one step per paragraph (blank lines between), as
  model chains write them: a display over several lines, an Asymptote figure and a relation
  with the one before it in the same step stay whole.
- prm800k: PRM800K samples, the chosen completion of each step, human rating (1/0 right,
  -1 wrong).
- shepherd: Math-Shepherd samples, "Step k: ... ки" with the MC label `+`/`-`.
- birm: BiRM responses of three models (steps split at "ки"); the label is `step_labels`.
- aps: OmegaPRM (math-aps) trees; a node's step is its prefix minus its parent's, split into
  lines; the label is the node's MC value (0: no rollout from it reached the answer).
- shards (only with a directory): chains a model wrote in a labeling run (`prm-label`'s
  Parquet shards); a chain whose final answer is right counts its steps as right (a weak
  label: a right answer can follow a slip), otherwise no label.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
CORPORA = ("gsm8k", "math", "math_paragraphs", "prm800k", "shepherd", "birm", "aps")
# A sentence ends at . ! ? before a capital, a dollar or a backslash (the next sentence may
# open with math); "e.g. the" and "$1.5$" stay whole. Lines always end a step.
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z$\\])|\n+")
_STEP_MARK = "ки"
_STEP_NUMBER = re.compile(r"^\s*Step \d+:\s*")


@dataclass(frozen=True)
class Chain:
    corpus: str
    id: str
    question: str
    steps: list[str]
    labels: list[bool | None]  # per step: does a label say it is right?


def split_sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text) if s.strip()]


def _lines(path: Path) -> Iterator[dict]:
    with open(path) as f:
        for line in f:
            if line.strip():
                yield json.loads(line)


def _gsm8k() -> Iterator[Chain]:
    for i, row in enumerate(_lines(DATA / "gsm8k" / "train.jsonl")):
        steps = [s.strip() for s in row["answer"].split("\n") if s.strip()]
        yield Chain("gsm8k", f"gsm8k-train-{i}", row["question"], steps, [True] * len(steps))


def _math() -> Iterator[Chain]:
    for i, row in enumerate(_lines(DATA / "math" / "train.jsonl")):
        steps = split_sentences(row["solution"])
        chain_id = row.get("unique_id", f"math-train-{i}")
        yield Chain("math", chain_id, row["problem"], steps, [True] * len(steps))


def _math_paragraphs() -> Iterator[Chain]:
    for i, row in enumerate(_lines(DATA / "math" / "train.jsonl")):
        steps = [p.strip() for p in row["solution"].split("\n\n") if p.strip()]
        chain_id = row.get("unique_id", f"math-train-{i}")
        yield Chain("math_paragraphs", chain_id, row["problem"], steps, [True] * len(steps))


def _prm800k() -> Iterator[Chain]:
    for i, row in enumerate(_lines(DATA / "prm800k" / "openr_samples_prm800k.jsonl")):
        steps, labels = [], []
        for step in row["label"]["steps"]:
            chosen = step["chosen_completion"]
            done = step["human_completion"] if chosen is None else step["completions"][chosen]
            if not done:
                break
            steps.append(done["text"])
            rating = done.get("rating")
            labels.append(None if rating is None else rating >= 0)
        yield Chain("prm800k", f"prm800k-{i}", row["question"]["problem"], steps, labels)


def _shepherd() -> Iterator[Chain]:
    for i, row in enumerate(
        _lines(DATA / "math_shepherd_sample" / "openr_samples_math-shepherd.jsonl")
    ):
        question, _, body = row["label"].partition(" Step 1:")
        steps, labels = [], []
        for raw in ("Step 1:" + body).split("\n"):
            text = _STEP_NUMBER.sub("", raw).rstrip()
            if not text:
                continue
            mark = text[-1]
            steps.append(text[:-1].rstrip() if mark in "+-" else text)
            labels.append({"+": True, "-": False}.get(mark))
        yield Chain("shepherd", f"shepherd-{i}", question, steps, labels)


def _birm() -> Iterator[Chain]:
    for path in sorted((DATA / "math_shepherd_sample").glob("birm_*.jsonl")):
        model = path.stem.removeprefix("birm_example_responses_n15_").removesuffix("_math_process")
        for row in _lines(path):
            for k, out in enumerate(row["outputs"]):
                parts = out["response"].split(_STEP_MARK)
                steps = [p.strip() for p in parts if p.strip()]
                given = list(out.get("step_labels") or [])
                labels = [given[j] if j < len(given) else None for j in range(len(steps))]
                yield Chain(
                    "birm", f"birm-{model}-{row['idx']}-{k}", row["question"], steps, labels
                )


def _aps() -> Iterator[Chain]:
    """One chain per tree node: the node's new text, in lines, after its parent's prefix."""
    for row in _lines(DATA / "math_shepherd_sample" / "openr_samples_math-aps.jsonl"):
        nodes = row["reasoning_steps"]
        prefixes = [n["solution_prefix"] for n in nodes]
        for i, node in enumerate(nodes):
            parents = [j for j in range(i) if prefixes[i].startswith(prefixes[j])]
            start = max((len(prefixes[j]) for j in parents), default=len(row["question"]))
            steps = [s.strip() for s in prefixes[i][start:].split("\n") if s.strip()]
            if steps:
                right = node["mc_value"] > 0
                yield Chain(
                    "aps",
                    f"aps-{row['question_id']}-{i}",
                    row["question"],
                    steps,
                    [right] * len(steps),
                )


READERS = {
    "gsm8k": _gsm8k,
    "math": _math,
    "math_paragraphs": _math_paragraphs,
    "prm800k": _prm800k,
    "shepherd": _shepherd,
    "birm": _birm,
    "aps": _aps,
}


def shard_chains(directory: Path) -> Iterator[Chain]:
    """Chains of a labeling run's shards (`directory`/shards/*.parquet, or the directory's)."""
    import pyarrow.parquet as pq

    files = sorted(directory.glob("shards/*.parquet")) or sorted(directory.glob("*.parquet"))
    for path in files:
        for row in pq.read_table(
            path, columns=["prompt", "completions", "chain_id", "outcome_correct"]
        ).to_pylist():
            steps = list(row["completions"])
            label = True if row["outcome_correct"] else None
            yield Chain("shards", row["chain_id"], row["prompt"], steps, [label] * len(steps))


def chains(corpus: str, limit: int | None = None, shards: Path | None = None) -> Iterator[Chain]:
    """The corpus's chains, the first `limit` only when given."""
    source = shard_chains(shards) if corpus == "shards" and shards else READERS[corpus]()
    for i, chain in enumerate(source):
        if limit is not None and i >= limit:
            return
        yield chain
