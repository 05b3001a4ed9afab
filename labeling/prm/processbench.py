"""The ProcessBench metric, and the step-level precision of `incorrect` verdicts.

Pure functions on plain data. One `ChainScore` per chain: the human first error (`-1` when
humans judged every step correct), the labeler's predicted first error (its first `incorrect`
step, or -1), and optionally the per-step statuses the prediction came from.

Chain level (ProcessBench, Zheng et al. 2024): per subset, accuracy on erroneous chains (exact
first-error index) and on correct chains (predicting -1), and their harmonic mean F1; the
average is the simple mean of the subset F1s.

Step level: a flag (`incorrect`) on the human first error is right; a flag before it, or
anywhere in a chain humans judged correct, is wrong; flags after the first error are counted
apart (`flags_after`), since humans did not label those steps. `precision` = right / (right +
wrong); `first_error_recall` = share of erroneous chains whose human first error is flagged.
Chains without a human label (None) are not scored; they are counted in `unlabeled`. A
labeler that left a chain undecided (`predicted` None: no step labeled wrong, not every step
labeled right) scores a miss on it, never a "no error" hit; such chains are counted in
`undecided`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from labeling.schema import Status


@dataclass(frozen=True, slots=True)
class ChainScore:
    human: int | None  # 0-based first wrong step, -1 all correct, None unknown
    predicted: int | None  # the labeler's first error, -1 for none, None undecided
    statuses: tuple[str, ...] = ()  # per-step statuses (empty: only `predicted` is scored)


def _ratio(num: int, den: int) -> float | None:
    return num / den if den else None


def subset_metrics(chains: Iterable[ChainScore]) -> dict[str, float | int | None]:
    """Chain- and step-level figures for one subset. Ratios are None when undefined."""
    n_err = n_corr = hit_err = hit_corr = unlabeled = 0
    right = wrong = after = recalled = undecided = 0
    predicted_any = predicted_right = 0
    for c in chains:
        if c.human is None:
            unlabeled += 1
            continue
        undecided += c.predicted is None
        if c.predicted is not None and c.predicted >= 0:
            predicted_any += 1
            predicted_right += c.predicted == c.human
        if c.human >= 0:
            n_err += 1
            hit_err += c.predicted == c.human
        else:
            n_corr += 1
            hit_corr += c.predicted == -1
        statuses = c.statuses
        for i, status in enumerate(statuses):
            if status != Status.INCORRECT:
                continue
            if c.human == -1 or i < c.human:
                wrong += 1
            elif i == c.human:
                right += 1
            else:
                after += 1
        if c.human >= 0 and c.human < len(statuses) and statuses[c.human] == Status.INCORRECT:
            recalled += 1
    acc_err, acc_corr = _ratio(hit_err, n_err), _ratio(hit_corr, n_corr)
    f1 = None
    if acc_err is not None and acc_corr is not None:
        f1 = 2 * acc_err * acc_corr / (acc_err + acc_corr) if acc_err + acc_corr else 0.0
    return {
        "chains": n_err + n_corr,
        "erroneous": n_err,
        "correct": n_corr,
        "unlabeled": unlabeled,
        "undecided": undecided,
        "acc_erroneous": acc_err,
        "acc_correct": acc_corr,
        "f1": f1,
        "flags_right": right,
        "flags_wrong": wrong,
        "flags_after": after,
        "precision_incorrect": _ratio(right, right + wrong),
        "first_error_recall": _ratio(recalled, n_err),
        "chains_flagged": predicted_any,
        "first_flag_precision": _ratio(predicted_right, predicted_any),
    }


def table(by_subset: Mapping[str, Iterable[ChainScore]]) -> dict[str, dict]:
    """Metrics per subset plus `average` (simple mean of subset F1s, pooled step counts)."""
    out: dict[str, dict] = {name: subset_metrics(rows) for name, rows in by_subset.items()}
    f1s = [m["f1"] for m in out.values() if m["f1"] is not None]
    right = sum(m["flags_right"] for m in out.values())
    wrong = sum(m["flags_wrong"] for m in out.values())
    n_err = sum(m["erroneous"] for m in out.values())
    out["average"] = {
        "f1": sum(f1s) / len(f1s) if f1s else None,
        "flags_right": right,
        "flags_wrong": wrong,
        "flags_after": sum(m["flags_after"] for m in out.values()),
        "precision_incorrect": _ratio(right, right + wrong),
        "first_error_recall": _ratio(right, n_err),
        "chains": sum(m["chains"] for m in out.values()),
    }
    return out


_COLUMNS = (
    ("subset", 14),
    ("chains", 7),
    ("err/ok", 9),
    ("acc_err", 8),
    ("acc_ok", 8),
    ("F1", 7),
    ("prec_inc", 9),
    ("fe_recall", 10),
    ("right/wrong/after", 18),
)


def _f(x: float | None) -> str:
    return "-" if x is None else f"{x:.3f}"


def format_table(metrics: Mapping[str, Mapping]) -> str:
    """A fixed-width text table of `table()`'s output, one row per subset, average last."""
    lines = ["".join(name.ljust(width) for name, width in _COLUMNS)]
    for name, m in metrics.items():
        cells = [
            name,
            str(m.get("chains", "")),
            f"{m['erroneous']}/{m['correct']}" if "erroneous" in m else "",
            _f(m.get("acc_erroneous")) if "acc_erroneous" in m else "",
            _f(m.get("acc_correct")) if "acc_correct" in m else "",
            _f(m.get("f1")),
            _f(m.get("precision_incorrect")),
            _f(m.get("first_error_recall")),
            f"{m['flags_right']}/{m['flags_wrong']}/{m['flags_after']}",
        ]
        lines.append("".join(c.ljust(w) for c, (_, w) in zip(cells, _COLUMNS, strict=True)))
    return "\n".join(lines)
