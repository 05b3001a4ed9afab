"""The PRM reward: folding step scores into one finite number, reading what trainers send,
locating steps, and `PRMReward` on a real (tiny) checkpoint scoring through `PRMScorer`."""

from __future__ import annotations

import math

import pytest

from labeling.prm.reward import (
    Note,
    completion_text,
    fold,
    prompt_text,
    split_query,
    step_ends,
    strip_end_tokens,
    token_ends,
)
from labeling.prm.search import aggregate
from labeling.steps.sections import SectionOptions
from labeling.steps.splitters import split_spans, split_steps
from pipelines.cli import ConfigError
from pipelines.reward import PRMReward, reward_config
from pipelines.scoring import PRMScorer
from pipelines.serve.client import ScoringError
from tests.reward_ckpt import tiny_prm

# -- fold ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("how", "want"), [("min", 0.2), ("last", 0.9), ("prod", 0.2 * 0.9 * 0.5),
                                           ("mean", (0.2 + 0.9 + 0.5) / 3)])  # fmt: skip
def test_fold_aggregates_scored_steps(how, want):
    reward, prm, clean = fold([0.5, 0.2, 0.9], how)
    assert reward == pytest.approx(want if how != "last" else 0.9)
    assert prm == reward and clean == [0.5, 0.2, 0.9]


def test_fold_never_returns_a_non_finite_reward():
    # all-None is what the scorer returns for steps past max_length: aggregate says -inf
    assert aggregate([None, None], "min") == -math.inf
    for scores in ([None, None], [], [math.nan], [math.inf, None], ["x", True, None]):
        reward, prm, _ = fold(scores, "min", empty=0.25)
        assert reward == 0.25 and prm is None
    # out-of-range numbers are clamped to probabilities; NaN among finite ones is dropped
    assert fold([1.7, -2.0], "mean")[0] == pytest.approx(0.5)
    assert fold([0.4, math.nan, 0.8], "min")[0] == pytest.approx(0.4)


def test_fold_blends_a_decided_outcome_only():
    assert fold([0.6], "min", outcome=True, outcome_weight=0.5)[0] == pytest.approx(0.8)
    assert fold([0.6], "min", outcome=False, outcome_weight=0.5)[0] == pytest.approx(0.3)
    assert fold([0.6], "min", outcome=None, outcome_weight=0.5)[0] == pytest.approx(0.6)
    # nothing the PRM could read: a right answer alone earns what saying nothing earns
    assert fold([], "min", empty=0.0, outcome=True, outcome_weight=0.25)[0] == 0.0
    assert fold([None], "min", empty=0.1, outcome=True, outcome_weight=0.5)[0] == 0.1
    with pytest.raises(ValueError, match="outcome weight"):
        fold([0.5], outcome_weight=1.5)
    with pytest.raises(ValueError, match="finite"):
        fold([0.5], empty=math.nan)


# -- what trainers send ------------------------------------------------------------------------


def test_completion_and_prompt_text_read_strings_and_chat_messages():
    chat = [{"role": "assistant", "content": "2 + 2 = 4"}]
    assert completion_text(chat) == "2 + 2 = 4"
    parts = [{"role": "assistant", "content": [{"type": "text", "text": "a"}, {"type": "text",
                                                                              "text": "b"}]}]
    assert completion_text(parts) == "ab"
    for bad in (None, 3, 2.5, [], [1, 2], {"role": "assistant"}):
        assert completion_text(bad) is None
    assert completion_text("x\ud800y") == "x?y"  # a lone surrogate (valid JSON, invalid text)
    msgs = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "What is 2+2?"}]
    assert prompt_text(msgs) == "What is 2+2?"
    chatml = "<|im_start|>system\nhi<|im_end|>\n<|im_start|>user\nWhat is 2+2?<|im_end|>\n" \
             "<|im_start|>assistant\n"
    assert prompt_text(chatml) == "What is 2+2?"
    llama3 = "<|start_header_id|>user<|end_header_id|>\n\nWhat is 2+2?<|eot_id|>"
    assert prompt_text(llama3) == "What is 2+2?"
    assert prompt_text("plain question") == "plain question" and prompt_text(7) is None


def test_split_query_cuts_openrlhf_queries():
    prompt = "<|im_start|>user\nWhat is 2+2?<|im_end|>\n<|im_start|>assistant\n"
    query = prompt + "2 + 2 = 4\n\nThe answer is 4.<|im_end|>"
    assert split_query(query, prompt) == ("What is 2+2?", "2 + 2 = 4\n\nThe answer is 4.<|im_end|>")
    # no prompts field: the last assistant turn's opening tells where the response starts
    assert split_query(query, None) == ("What is 2+2?", "2 + 2 = 4\n\nThe answer is 4.<|im_end|>")
    assert split_query("just text", None) == ("", "just text")
    assert strip_end_tokens("The answer is 4.<|im_end|>\n</s>  ") == "The answer is 4."


def test_step_ends_and_token_ends():
    text = "Step 1: 2 + 2 = 4\n\nStep 2: so 4.\n"
    steps = split_steps(text, "auto")
    ends = step_ends(text, steps)
    assert [text[:e].endswith(s) for s, e in zip(steps, ends, strict=True)] == [True, True]
    assert step_ends("a b", ["a", "zzz", "b"]) == [1, None, 3]
    pieces = ["Step", " 1", ":", " 2", "\n\n", "Step", " 2"]  # a toy tokenization of a text

    def decoded_length(k: int) -> int:
        return len("".join(pieces[:k]))

    assert token_ends([4, 6, 7, 14, None, 99], len(pieces), decoded_length) == [0, 1, 2, 5, None,
                                                                              None]


# -- PRMReward on a real checkpoint ------------------------------------------------------------


def test_rewards_are_the_scorers_step_scores_aggregated(prm_ckpt, prm_reward):
    prompts = ["Start at 3 and add 4 , 2 .", "What is 12 * 3 ?"]
    completions = ["3 + 4 = 7\n\n7 + 2 = 9\n\nThe answer is \\boxed{9} .", "12 * 3 = 36"]
    chains = [(p, split_steps(c, "auto")) for p, c in zip(prompts, completions, strict=True)]
    want = PRMScorer.load(prm_ckpt).score_many(chains)
    assert len({round(s, 4) for s in want[0]}) > 1  # the randomised head spreads the scores
    got = prm_reward.score(prompts, completions)
    for r, w in zip(got, want, strict=True):
        assert [s.score for s in r.steps] == pytest.approx(w, abs=1e-6)
        assert r.reward == pytest.approx(min(w)) and r.note is Note.scored
    assert prm_reward(prompts, completions) == [r.reward for r in got]


def test_a_completion_past_max_length_gets_the_stated_value_and_is_counted(prm_ckpt):
    r = PRMReward.load(prm_ckpt, empty_reward=0.125)
    long_step = "3 + 4 = 7 " * 30  # one step longer than the PRM's 96 tokens
    before = dict(r.stats)
    got = r.score(["Start at 3", "Start at 3", "x"], [long_step, "", "12 * 3 = 36"])
    assert [g.note for g in got] == [Note.unscored, Note.no_steps, Note.scored]
    assert got[0].reward == got[1].reward == 0.125 and got[0].steps[0].score is None
    assert math.isfinite(got[2].reward)
    assert r.stats["unscored"] - before.get("unscored", 0) == 1
    assert r.stats["no_steps"] - before.get("no_steps", 0) == 1


def test_split_rules_come_from_the_checkpoint_unless_set(tmp_path):
    ck = tiny_prm(tmp_path, split={"mode": "line", "code_mode": "statement", "max_steps": 40})
    text = "3 + 4 = 7\n7 + 2 = 9\n\nThe answer is 9 ."
    assert len(PRMReward.load(ck).score(["q"], [text])[0].steps) == 3  # line: every line
    assert len(PRMReward.load(ck, split={"mode": "blank_line"}).score(["q"], [text])[0].steps) == 2


TRACE = ("<think>\nFirst, 3 + 4 = 7.\n\nWait, let me check: 7 + 2 = 9.\n\nAlternatively, "
         "add 6 to 3.\n\nSo 9.\n</think>\n\nThe answer is \\boxed{9}.")


def test_reasoning_traces_are_cut_into_sections_with_the_recorded_budget(tmp_path):
    record = {"mode": "sections", "code_mode": "statement", "max_steps": 40,
              "section_tokens": 400, "max_sections": 2}  # fmt: skip
    ck = tiny_prm(tmp_path, max_length=96, split=record)
    got = PRMReward.load(ck).score(["Start at 3"], [TRACE])[0]
    want = split_spans(TRACE, "sections", SectionOptions(400, 2))
    assert len(got.steps) == len(want) == 2  # the cap the data was cut with, not the default
    assert [s.char_end for s in got.steps] == [b for _, b in want]
    assert len(PRMReward.load(ck, split={"max_sections": 24}).score(["q"], [TRACE])[0].steps) == 4


def test_rules_this_install_cannot_use_fail_at_start(tmp_path):
    ck = tiny_prm(tmp_path, split={"mode": "sentences"})
    with pytest.raises(ConfigError, match="split rules.*reward.split.mode"):
        PRMReward.load(ck)


def test_config_mistakes_are_one_sentence(prm_ckpt):
    with pytest.raises(ConfigError, match="aggregation.*min"):
        reward_config(checkpoint=str(prm_ckpt), aggregation="median")
    with pytest.raises(ConfigError, match="outcome_weight"):
        reward_config(checkpoint=str(prm_ckpt), outcome_weight=2)
    with pytest.raises(ConfigError, match="reward.url"):
        reward_config(checkpoint=str(prm_ckpt), backend="server")
    with pytest.raises(ConfigError, match="not a directory"):
        PRMReward.load(prm_ckpt / "nope")


def test_the_outcome_blend_uses_the_answer_check(prm_ckpt):
    with PRMReward.load(prm_ckpt, outcome_weight=1.0) as r:
        got = r.score(["q"] * 4, ["The answer is \\boxed{9} .", "The answer is \\boxed{8} .",
                                  "no answer here", "The answer is \\boxed{9} ."],
                      ["9", "9", "9", None])  # fmt: skip
    assert [g.outcome for g in got] == [1.0, 0.0, None, None]
    assert [g.reward for g in got[:3]] == [1.0, 0.0, 0.0]
    assert got[2].note is Note.no_answer  # the format rule, before any check or score
    assert got[3].reward == got[3].prm  # no reference: the PRM alone


class Broken:
    def __init__(self, answer) -> None:
        self.answer = answer

    def score_many(self, chains):
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


@pytest.mark.parametrize("answer", [RuntimeError("connection refused"), [], None,
                                    [[0.5, 0.5, 0.5]]])
def test_a_failing_backend_raises_instead_of_inventing_rewards(prm_ckpt, answer):
    r = PRMReward(reward_config(checkpoint=str(prm_ckpt)), scorer=Broken(answer))
    with pytest.raises(ScoringError):
        r.score(["q"], ["2 + 2 = 4"])


def test_policy_token_ends_come_from_the_policy_tokenizer(prm_reward, tiny_model_dir):
    from pipelines.checkpoint.model import load_tokenizer

    tok = load_tokenizer(tiny_model_dir)  # a policy's byte-level BPE, not the PRM's tokenizer
    text = "3 + 4 = 7\n\n7 + 2 = 9"
    ids = tok(text, add_special_tokens=False)["input_ids"]
    got = prm_reward.score(["q"], [text], completion_ids=[ids], tokenizer=tok)[0]
    for step in got.steps:
        assert len(tok.decode(ids[: step.token_end + 1])) >= step.char_end
        assert len(tok.decode(ids[: step.token_end])) < step.char_end
