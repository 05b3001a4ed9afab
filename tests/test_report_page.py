"""The report page: written where promised, escaped, self-contained, and rendered by a real
headless Chromium (Debian's package) with every section present and every plot decoded."""

from __future__ import annotations

import html
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from pipelines.report.app import run, write_report
from pipelines.report.html import SECTIONS
from tests.conftest import chromium
from tests.test_report_stats import BAD, R1, R2, R3, make_dataset, row, verdict

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def dataset(tmp_path: Path) -> Path:
    return make_dataset(tmp_path / "ds", [([R1, R2], BAD[:2]), ([R3], BAD[2:])])


def section_ids(page: str) -> list[str]:
    return re.findall(r'<section id="([^"]+)"', page)


def test_write_report_default_path_sections_and_plots(dataset):
    out = write_report(dataset)
    assert out == dataset / "report.html"
    page = out.read_text()
    assert section_ids(page) == list(SECTIONS)
    # labels, agreement, first error and MC plots, each an inline PNG
    assert len(re.findall(r'<img alt="[^"]*" src="data:image/png;base64,', page)) == 4


def test_summary_leads_with_the_cost_headline(dataset):
    """Labeled steps per engine-hour and tokens per labeled step, from the manifest, in the
    summary cards at the top of the page."""
    path = dataset / "manifest.json"
    manifest = json.loads(path.read_text())
    manifest["throughput"] = {"labeled_steps_per_engine_hour": 35811.4}
    manifest["cost"] = {**manifest.get("cost", {}), "tokens_per_labeled_step": 98.25}
    path.write_text(json.dumps(manifest))
    summary = write_report(dataset).read_text().split('<section id="summary">')[1]
    summary = summary.split("</section>")[0]
    assert "<b>35,811.4</b><span>labeled steps per engine-hour</span>" in summary
    assert "<b>98.25</b><span>tokens per labeled step</span>" in summary


def test_untrusted_text_is_escaped_and_nothing_is_fetched(dataset):
    page = write_report(dataset).read_text()
    assert "<script>alert(1)" not in page and "<img src=x" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "&lt;img src=x onerror=alert(2)&gt;" in page
    assert "Content-Security-Policy" in page
    assert not re.search(r'(src|href)="(https?:)?//', page)  # self-contained


def test_hostile_source_names_reach_plots_as_plain_text(tmp_path):
    # "$" would start matplotlib mathtext (and fail on an unclosed one); "<b>" is markup.
    names = ["$x^", "<b>bold</b>"]
    vs = [verdict(n, 0, "correct", True) for n in names]
    ds = make_dataset(tmp_path / "ds", [([row("p1", 0, [True], verdicts=vs)], [])])
    page = write_report(ds).read_text()
    assert "<b>bold</b>" not in page and "&lt;b&gt;bold&lt;/b&gt;" in page


def test_empty_dataset_renders(tmp_path):
    page = write_report(make_dataset(tmp_path / "ds", [])).read_text()
    assert section_ids(page) == list(SECTIONS)
    assert "no labeled chains" in page and "nothing was quarantined" in page


def about(page: str) -> str:
    return re.sub(r"<[^>]+>", "", page.split('<section id="about">')[1].split("</section>")[0])


def test_the_page_opens_with_what_the_run_did_in_plain_words(dataset):
    """The first section counts the chains that reached the right answer and the steps of
    each label value, from this dataset's own rows (R1..R3 of the fixture)."""
    text = about(write_report(dataset).read_text())
    rows = [R1, R2, R3]
    right = sum(bool(r["outcome_correct"]) for r in rows)
    known = sum(r["outcome_correct"] is not None for r in rows)
    labels = [x for r in rows for x in r["labels"]]
    assert f"{right:,} of {known:,}" in text and "reached the right final answer" in text
    assert f"{labels.count(True):,} are labeled right" in text
    assert f"{labels.count(False):,} wrong" in text
    assert f"{labels.count(None):,} unlabeled" in text
    assert "How to read it" in text


def test_a_run_with_no_right_chain_says_why_its_labels_are_all_wrong(tmp_path):
    rows = [row("p1", 0, [False, False], outcome_correct=False),
            row("p2", 0, [False], outcome_correct=False)]
    text = about(write_report(make_dataset(tmp_path / "ds", [(rows, [])])).read_text())
    assert "0 of 2 (0%) chains reached the right final answer" in text
    assert "the model is too weak for these problems" in text


def _set_config(root: Path, **config) -> Path:
    path = root / "manifest.json"
    manifest = json.loads(path.read_text())
    model = config.pop("model", None)
    manifest["config"] = {**manifest["config"], **config}
    if model:
        manifest["model"] = {"name": model}
    path.write_text(json.dumps(manifest))
    return root


SAMPLER = {"n": 8, "temperature": 0.8}
SPLIT = {"mode": "auto", "code_mode": "statement"}


def test_given_chains_are_said_given_even_when_a_model_ran_for_rollouts(tmp_path):
    """ProcessBench-like chains (no sampler seed, written by two models, no human labels
    here) labeled with rollouts: the engine's model ran, the sampler config holds its
    defaults, and still nothing was sampled or split."""
    rows = [row("p1", 0, [True, False], model="Qwen2-7B", mc_scores=[1.0, 0.0],
                verdicts=[verdict("mc", 0, "correct", True, 1.0, 4)]),
            row("p2", 0, [True], model="Llama-3-8B")]  # fmt: skip
    root = _set_config(make_dataset(tmp_path / "ds", [(rows, [])]), sampler=SAMPLER,
                       split=SPLIT, model="SmolLM2-135M-Instruct")
    page = write_report(root).read_text()
    text = about(page)
    assert "read 2 reasoning chains given with the input (written by Llama-3-8B, Qwen2-7B)" in text
    assert "kept the steps the input gave" in text
    assert "sampled" not in text and "temperature" not in text and "cut" not in text
    assert "mc (with SmolLM2-135M-Instruct): Monte Carlo rollout success rate per step" in text
    labels = page.split('<section id="labels">')[1].split("</section>")[0]
    assert ">combined<" in labels and ">mc<" in labels and ">human<" not in labels
    first_error = page.split('<section id="first-error">')[1].split("</section>")[0]
    assert ">human<" not in first_error


def test_sampled_chains_say_by_which_model_and_how_they_were_cut(tmp_path):
    rows = [row("p1", i, [True], model="SmolLM2-135M-Instruct", sampler_seed=7 + i)
            for i in range(3)]  # fmt: skip
    root = _set_config(make_dataset(tmp_path / "ds", [(rows, [])]), sampler=SAMPLER,
                       split=SPLIT, model="SmolLM2-135M-Instruct")
    text = about(write_report(root).read_text())
    assert ("sampled 3 reasoning chains with SmolLM2-135M-Instruct (8 per problem, "
            "temperature 0.8)") in text
    assert "cut every sampled chain into steps (split.mode=auto)" in text
    assert "given" not in text


def test_human_labels_in_the_data_keep_their_row(dataset):
    """R1 and R2 carry human labels: the row and the histogram's column stay."""
    page = write_report(dataset).read_text()
    assert ">human<" in page.split('<section id="labels">')[1].split("</section>")[0]
    assert ">human<" in page.split('<section id="first-error">')[1].split("</section>")[0]


def test_diff_section(tmp_path, dataset):
    new = make_dataset(tmp_path / "new", [([R1, dict(R2, labels=[True, False])], [])], dataset)
    page = write_report(new, tmp_path / "out" / "r.html", diff=dataset).read_text()
    assert section_ids(page)[:3] == ["about", "summary", "diff"]
    assert "this version was refreshed from the old one" in page


def compose(overrides: list[str]):
    from tests.conftest import compose as compose_app

    return compose_app(overrides, config_name="report")


def test_run_from_composed_config_prints_tables(tmp_path, dataset, capsys):
    out = tmp_path / "page.html"
    cfg = compose([f"dir={dataset}", f"output.dir={tmp_path}", "output.name=page.html",
                   f"diff={dataset}"])
    assert run(cfg) == out and out.exists()
    text = capsys.readouterr().out
    for title in ("Counts per dataset and domain", "Agreement between sources", "Quarantine",
                  "diff: manifest counts", "wall_time_s"):  # fmt: skip
        assert title in text
    assert "0 chains new, 0 gone" in text


@pytest.mark.app
def test_cli_writes_only_the_page_and_names_a_missing_dir(tmp_path, dataset):
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    cli = [sys.executable, "-m", "pipelines.report.app"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    ok = subprocess.run([*cli, f"dir={dataset}", "echo=false"], cwd=cwd, env=env,
                        capture_output=True, text=True, timeout=120)  # fmt: skip
    assert ok.returncode == 0, ok.stderr
    assert list(cwd.iterdir()) == []  # no Hydra outputs/ or .hydra left behind
    bad = subprocess.run([*cli, f"dir={tmp_path / 'nope'}"], cwd=cwd, env=env,
                         capture_output=True, text=True, timeout=120)  # fmt: skip
    assert bad.returncode == 2 and "no manifest.json" in bad.stderr
    assert "Traceback" not in bad.stderr


# --- a real browser ------------------------------------------------------------------------

# Runs before the page's CSP meta (so it is allowed) and reports, after load, what the
# browser actually built: the sections, each image's decoded size, and whether a script
# placed after the CSP ran (it must not).
PROBE = """<script>window.addEventListener("load", () => {
  const out = {sections: [...document.querySelectorAll("section")].map(s => s.id),
    images: [...document.images].map(i => [i.complete, i.naturalWidth, i.naturalHeight]),
    scripts: document.scripts.length, late: document.documentElement.dataset.late || null};
  const pre = document.createElement("pre"); pre.id = "probe";
  pre.textContent = JSON.stringify(out); document.body.appendChild(pre);
});</script>"""
LATE = '<script>document.documentElement.dataset.late = "ran"</script>'


def browse(page: Path, tmp_path: Path) -> dict:
    flags = ["--headless", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             f"--user-data-dir={tmp_path / 'profile'}", "--virtual-time-budget=5000"]  # fmt: skip
    if os.geteuid() == 0:
        flags.append("--no-sandbox")  # Chromium refuses to run as root with its sandbox
    proc = subprocess.run([chromium(), *flags, "--dump-dom", page.as_uri()],
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    found = re.search(r'<pre id="probe">(.*?)</pre>', proc.stdout, re.S)
    assert found, f"no probe in the DOM; chromium said: {proc.stderr[-1500:]}"
    return json.loads(html.unescape(found.group(1)))


@pytest.mark.browser
def test_page_renders_in_headless_chromium(tmp_path, dataset):
    new = make_dataset(tmp_path / "new", [([R1, R3], [])], dataset)
    page = write_report(new, diff=dataset).read_text()
    probed = tmp_path / "probed.html"
    probed.write_text(page.replace("<head>", "<head>" + PROBE, 1).replace(
        "</body>", LATE + "</body>"))  # fmt: skip
    got = browse(probed, tmp_path)
    assert got["sections"] == ["about", "summary", "diff", *list(SECTIONS)[2:]]
    assert len(got["images"]) == 4
    for complete, width, height in got["images"]:
        assert complete and width > 100 and height > 100  # decoded PNGs, not broken icons
    assert got["late"] is None  # the CSP blocks inline scripts in the page
    assert got["scripts"] == 2  # the probe and the blocked one: no script came from data


@pytest.mark.parametrize(("split", "labels", "says", "never"), [
    ({"mode": "auto", "after_error": "negative"}, {}, "an earlier step is already wrong",
     "section"),
    ({"mode": "sections", "after_error": "keep", "chains_thinking_unfinished": 2}, {},
     "keeps its own verdict", "already wrong"),
    ({"mode": "line"}, {"after_error": "mask"}, "left unlabeled", "already wrong"),
])  # fmt: skip
def test_how_to_read_says_what_this_run_did(tmp_path, split, labels, says, never):
    root = _set_config(make_dataset(tmp_path / "ds", [([R1], [])]), labels=labels)
    manifest = json.loads((root / "manifest.json").read_text())
    manifest["split"] = split
    (root / "manifest.json").write_text(json.dumps(manifest))
    text = about(write_report(root).read_text())
    how = text[text.index("How to read it"):]
    assert says in how and never not in how.split("Labels per source")[0]
    if split["mode"] == "sections":
        assert "each label is a claim about one section" in how
        assert "2 trace(s) never closed their thinking" in how and "unverifiable" in how
