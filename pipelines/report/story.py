"""The report's first section: what the run did and how to read the page, in plain words.

A newcomer's first report must say whether the tool worked: how many chains reached the
right answer, how many steps each colour holds, and why a step can stay grey (no source
judged it: it is left out of training, never guessed). Built from the manifest's config and
counts and the shard statistics (`labeling.report.stats`); every number is the data's, and
every name from the data is escaped.
"""

from __future__ import annotations

import html
from typing import Any

from labeling import registry
from labeling.report.coverage import coverage_sentences


def source_words(src: str) -> str:
    """What `src` judges, in its registration's words (labeling/registry.py), so a source
    registered later is described without an edit here; a name nobody registered is "its
    own check"."""
    try:
        return registry.get(src).doc
    except KeyError:
        return "its own check"


def _esc(x: Any) -> str:
    return html.escape(str(x), quote=True)


def _share(part: int, whole: int) -> str:
    return f"{part:,} of {whole:,} ({100 * part / whole:.0f}%)" if whole else f"{part:,}"


def sources_run(manifest: dict[str, Any]) -> list[str]:
    """The label sources the run had on: in the manifest's config, `labels.<source>` is a
    dict when the source is on and null when off; the other keys there are knobs."""
    labels = (manifest.get("config") or {}).get("labels") or {}
    return [k for k, v in labels.items() if isinstance(v, dict)]


def _names(names: list[str], shown: int = 3) -> str:
    more = len(names) - shown
    return ", ".join(_esc(n) for n in names[:shown]) + (f" and {more} more" if more > 0 else "")


def _made(s: dict[str, Any], chains: int, problems: int) -> str:
    """Where the chains came from, from the rows themselves (`origins`): sampled by the run's
    model (with the sampler's settings) and/or given with the input (with their writers),
    and how they became steps. A run that only started a model for rollouts on given chains
    sampled nothing, whatever its sampler config says."""
    cfg = s["manifest"].get("config") or {}
    origins = s["origins"]
    sampled = origins.filter(~origins["given"])
    given = origins.filter(origins["given"])
    n_sampled, n_given = int(sampled["chains"].sum()), int(given["chains"].sum())
    dataset = (cfg.get("dataset") or {}).get("name") or "the input"
    sampler = cfg.get("sampler") or {}
    parts = []
    if n_sampled:
        parts.append(f"sampled {n_sampled:,} reasoning chains with "
                     f"<b>{_names(sampled['model'].to_list())}</b> "
                     f"({_esc(sampler.get('n'))} per problem, temperature "
                     f"{_esc(sampler.get('temperature'))})")  # fmt: skip
    if n_given:
        writers = [m for m in given["model"].to_list() if m and m != "given"]
        by = f" (written by {_names(writers)})" if writers else ""
        parts.append(f"read {n_given:,} reasoning chains given with the input{by}")
    if not chains or not parts:
        return f"This run labeled no chain of the {problems:,} problems of <b>{_esc(dataset)}</b>"
    split = cfg.get("split") or {}
    domains = set(s["by_dataset"]["domain"].to_list()) if s["by_dataset"].height else set()
    modes = ", ".join(f"<code>split.{k}={_esc(split.get(k))}</code>"
                      for k, d in (("mode", "math"), ("code_mode", "code")) if d in domains)
    cut = f"cut every sampled chain into steps ({modes})" if modes else "cut them into steps"
    if not n_sampled:
        cut = "kept the steps the input gave"
    elif n_given:
        cut += " and kept the given chains' steps"
    return (f"This run {' and '.join(parts)} for {problems:,} problems of "
            f"<b>{_esc(dataset)}</b>, {cut}, and labeled the steps")


def _checks(m: dict[str, Any]) -> str:
    """What each source that ran did; the model that ran behind mc and judge."""
    cfg = m.get("config") or {}
    labels = cfg.get("labels") or {}
    model = (m.get("model") or {}).get("name")
    judge_model = ((labels.get("judge") or {}).get("model") or {}).get("name") or model
    behind = {"mc": model, "judge": judge_model}
    sources = sources_run(m)
    out = []
    for i, src in enumerate(sources):
        who = behind.get(src)
        with_model = f" (with <b>{_esc(who)}</b>)" if who and who != "given" else ""
        out.append(f"<b>{_esc(src)}</b>{with_model}: {_esc(source_words(src))}"
                   + ("; " if i < len(sources) - 1 else ". "))  # fmt: skip
    return "".join(out)


def _what_ran(s: dict[str, Any], m: dict[str, Any], chains: int, problems: int) -> str:
    """The opening paragraph: where the `chains` came from, what each source did, how the
    verdicts became labels."""
    policy = ((m.get("config") or {}).get("labels") or {}).get("policy") or "the configured"
    return (f"<p>{_made(s, chains, problems)}. {_checks(m)}The <b>{_esc(policy)}</b> policy "
            "combined their verdicts into one label per step (the <code>labels</code> column "
            "a PRM trains on).</p>")


def coverage_story(s: dict[str, Any]) -> str:
    """What each source could judge and what it left unverifiable, and why; a warning with
    the figure when the Monte Carlo completer's self-confidence is low (the same sentences as
    the job's log: `labeling.report.coverage`)."""
    cov = s.get("coverage")
    if not cov or not cov["sources"]:
        return ""
    said, low = coverage_sentences(cov)
    out = "<p>What each source could judge: " + " ".join(_esc(x) for x in said) + "</p>"
    if low:
        out += f'<p class="note warn">{_esc(low)}</p>'
    return out


# What the labels after a chain's first error say, per `labels.after_error` (resolved: the
# manifest records `keep` or `negative` where the config said `auto`).
_AFTER_ERROR = {
    "negative": "or when an earlier {unit} is already wrong (<code>labels.after_error="
                "negative</code>: every {unit} after a chain's first error is labeled wrong)",
    "mask": "; the {unit}s after a chain's first error are left unlabeled (<code>labels."
            "after_error=mask</code>)",
    "keep": "; a {unit} after a chain's first error keeps its own verdict (<code>labels."
            "after_error=keep</code>: a correction after a slip can be right)",
}


def how_to_read(m: dict[str, Any]) -> str:
    """The paragraph that says what a label means in this run: per step or per section of a
    reasoning trace (`split.mode`), and what follows a first error (`labels.after_error`);
    traces whose thinking never closed are named with what that did to their answers."""
    config = m.get("config") or {}
    split = {**(config.get("split") or {}), **(m.get("split") or {})}
    after = str(split.get("after_error") or (config.get("labels") or {}).get("after_error")
                or "negative")  # fmt: skip
    sections = split.get("mode") == "sections"
    unit = "section" if sections else "step"
    cut = (" Chains are reasoning traces cut into sections where the reasoning turns "
           "(<code>split.mode=sections</code>): each label is a claim about one section, "
           "not about the chain up to it." if sections else "")  # fmt: skip
    unclosed = int(split.get("chains_thinking_unfinished") or 0)
    open_ = (f" {unclosed:,} trace(s) never closed their thinking (no <code>&lt;/think&gt;"
             "</code>: cut at the token limit?): their final answer is unknown, so it is "
             "unverifiable, never wrong." if unclosed else "")  # fmt: skip
    tail = _AFTER_ERROR.get(after, _AFTER_ERROR["negative"]).format(unit=unit)
    return (f"<p>How to read it: a {unit} is <i>wrong</i> when an exact check proves it (a "
            "false calculation, a wrong final answer) or when rollouts from it do not reach "
            f"the answer{tail}; it is <i>right</i> when a check or the rollouts support it. A "
            f"{unit} no source could judge stays <i>unlabeled</i>: it is masked out of "
            f"training, never guessed.{cut}{open_} <i>Labels per source</i> shows what each "
            "source said, <i>Agreement</i> where they meet, <i>First-error position</i> where "
            "chains go wrong, and <i>Quarantine</i> every input set aside, with its "
            "reason.</p>")


def run_story(s: dict[str, Any]) -> str:
    """The section's HTML (see the module)."""
    m = s["manifest"]
    by = s["by_dataset"]
    chains = int(by["chains"].sum()) if by.height else 0
    problems = int(by["problems"].sum()) if by.height else 0
    known = int(by["outcome_known"].sum()) if by.height else 0
    right = int(by["outcome_correct"].sum() or 0) if by.height else 0
    combined = s["labels"].filter(s["labels"]["source"] == "combined")
    t, f, u = (int(combined[c][0]) if combined.height else 0
               for c in ("true", "false", "unlabeled"))  # fmt: skip
    steps = t + f + u
    parts = [_what_ran(s, m, chains, problems), coverage_story(s)]
    if known:
        parts.append(f"<p><b>{_share(right, known)}</b> chains reached the right final answer.")
    else:
        parts.append("<p>No chain had a reference to check its final answer against.")
    parts.append(f" Of {steps:,} steps, <b style=\"color:#2e7d32\">{t:,} are labeled right"
                 f"</b>, <b style=\"color:#c62828\">{f:,} wrong</b> and <b style=\"color:"
                 f"#808080\">{u:,} unlabeled</b>.</p>")
    parts.append(how_to_read(m))
    if known and not right:
        parts.append(
            '<p class="note warn">No chain reached the right answer, so nearly every label '
            "is wrong: the model is too weak for these problems. Try an easier set "
            "(<code>dataset=starter_math</code>) or a stronger model "
            "(<code>model=qwen_coder_0_5b</code>).</p>")
    elif steps and not t:
        parts.append('<p class="note warn">No step is labeled right: a PRM trained on this '
                     "set learns only what wrong looks like.</p>")
    return "".join(parts)
