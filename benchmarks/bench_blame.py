"""How often a step that MC never blames (`labeling.mc.spared`) is a human's first error.

Over ProcessBench's dev split (`../shared/data/processbench_dev/`, human first-error labels),
per subset: the steps before the last that `may_err` spares, among the human first errors
and among the steps the human called right (before the first error, or every step of a right
chain), in all and of them those that restate the question or an earlier step (the rest name
nothing: no number, variable, formula or operation); then the spared first errors' text, so a
reader can judge what was given up.

Then the restatement check against misreadings (`../shared/data/gsm8k/train.jsonl`): every
sentence of a GSM8K question that gives a value, changed as a misreading changes it (a
relation word changed or dropped inside the sentence, a negation added, two names swapped
wherever they stand, two other words swapped), is checked as a step of that question; a
changed sentence read as said again would never be blamed. Beside them, the same sentences
unchanged and put in other words ("N X of M Y each" for "N X with M Y in each Z"), which
should be. Prints Markdown tables; asserts nothing.

    PYTHONPATH=. .venv/bin/python benchmarks/bench_blame.py
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from labeling.mc.spared import _FUNCTION, _RELATION, may_err, restates  # noqa: E402

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "processbench_dev"
GSM8K = DATA.parent / "gsm8k" / "train.jsonl"
# a relation word and the one a misreading puts in its place
_MISREAD = {"more": "less", "less": "more", "fewer": "more", "each": "total", "and": "of",
            "than": "of", "per": "of", "twice": "half", "half": "twice", "before": "after",
            "after": "before", "every": "one", "only": "also", "left": "gave", "total": "each"}


def main() -> None:
    if not DATA.is_dir():
        sys.exit(f"no dev split at {DATA}")
    print("| subset | first errors spared (restating) | right steps spared (restating) |")
    print("|---|---|---|")
    spared_errors = []
    for path in sorted(DATA.glob("*.json")):
        first = first_spared = first_again = right = right_spared = right_again = 0
        for rec in json.loads(path.read_text()):
            steps, label = rec["steps"], rec["label"]
            flags, again = may_err(steps, rec["problem"]), restates(steps, rec["problem"])
            for i in range(len(steps) - 1):  # the last step may always err
                if i == label:
                    first += 1
                    first_spared += not flags[i]
                    first_again += again[i]
                    if not flags[i]:
                        spared_errors.append(f"{path.stem} {rec['id']} step {i}: {steps[i]!r}")
                elif label == -1 or i < label:
                    right += 1
                    right_spared += not flags[i]
                    right_again += again[i]
        print(f"| {path.stem} | {first_spared} ({first_again}) / {first} "
              f"| {right_spared} ({right_again}) / {right} |")
    print("\nSpared first errors:")
    for line in spared_errors:
        print(f"- {line[:300]}")
    if GSM8K.is_file():
        misreadings()


def _variants(sentence: str) -> list[tuple[str, str]]:
    """(family, changed sentence) of one given sentence; families in the module docstring."""
    words, out = sentence.split(), [("unchanged", sentence)]
    for i, w in enumerate(words):
        bare = w.lower().strip(".,;")
        if i and bare in _MISREAD:  # inside the sentence: a dropped "After" leaves its end
            out.append(("a relation word changed",
                        " ".join([*words[:i], w.lower().replace(bare, _MISREAD[bare]),
                                  *words[i + 1:]])))
            out.append(("a relation word dropped", " ".join(words[:i] + words[i + 1:])))
    for verb, negated in ((" has ", " does not have "), (" is ", " is not "),
                          (" are ", " are not ")):
        if verb in sentence:
            out.append(("a negation added", sentence.replace(verb, negated, 1)))
            break
    names = list(dict.fromkeys(w.strip(".,;") for w in words[1:] if w[:1].isupper()
                               and w.strip(".,;").isalpha()
                               and w.lower().strip(".,;") not in _FUNCTION | _RELATION))
    if len(names) >= 2:
        a, b = names[:2]
        out.append(("two names swapped", re.sub(rf"\b({a}|{b})\b",
                                                lambda m: b if m[1] == a else a, sentence)))
    plain = [i for i, w in enumerate(words) if w.isalpha() and w.islower() and len(w) > 3
             and w not in _FUNCTION | _RELATION]
    pairs = [(i, j) for i in plain for j in plain if i < j and words[i][:4] != words[j][:4]]
    if pairs:
        i, j = pairs[len(pairs) // 2]
        swapped = list(words)
        swapped[i], swapped[j] = words[j], words[i]
        out.append(("two other words swapped", " ".join(swapped)))
    m = re.search(r"(\d+) (\w+) with (\d+) (\w+) in each \w+", sentence)
    if m:
        out.append(("in other words", sentence.replace(m[0], f"{m[1]} {m[2]} of {m[3]} {m[4]} "
                                                            "each")))
    return out


def misreadings() -> None:
    counts: Counter[str] = Counter()
    spared: Counter[str] = Counter()
    examples: dict[str, str] = {}
    for line in GSM8K.read_text().splitlines():
        question = json.loads(line)["question"]
        for sentence in re.split(r"(?<=[.!?])\s+", question):
            if sentence.endswith("?") or not re.search(r"\d", sentence) \
                    or len(sentence.split()) < 6:
                continue
            for family, step in _variants(sentence):
                if family != "unchanged" and step.split() == sentence.split():
                    continue
                counts[family] += 1
                if restates([step], question)[0]:
                    spared[family] += 1
                    examples.setdefault(family, f"{sentence!r} -> {step!r}")
    print(f"\nGSM8K train's given sentences, changed, as a step of their question "
          f"({GSM8K.name}):\n")
    print("| family | sentences | read as said again |")
    print("|---|---|---|")
    for family, n in counts.most_common():
        print(f"| {family} | {n} | {spared[family]} |")
    print("\nAn example of each family read as said again:")
    for family, text in examples.items():
        print(f"- {family}: {text[:300]}")


if __name__ == "__main__":
    main()
