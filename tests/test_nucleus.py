"""`pipelines.engine.nucleus`: top-p from a window of each row's largest probabilities gives
vLLM's own masks, and leaves to vLLM's sort exactly the rows it cannot decide for sure; on a
vLLM it was not written for, vLLM's own function samples, after one warning."""

import pytest

torch = pytest.importorskip("torch")

from pipelines.engine import nucleus  # noqa: E402

# vLLM's sampler module, imported when this module's first test runs (`_vllm_sampler`), not
# at collection: importing vLLM costs every xdist worker seconds, and only the worker that
# runs these tests needs it.
ops = None


@pytest.fixture(scope="module", autouse=True)
def _vllm_sampler():
    global ops
    ops = pytest.importorskip("vllm.v1.sample.ops.topk_topp_sampler")

VOCAB = 49152  # SmolLM2's: vLLM's CPU sort is slow at this size, which is the point


def vllm_own():
    """vLLM's own function, even where an engine built earlier in this process put the
    window in its place (`install` keeps the original as `_native`)."""
    return getattr(ops.apply_top_k_top_p, "_native", ops.apply_top_k_top_p)


def native(logits, k, p):
    return vllm_own()(logits, k, p)


def lm_like(rows: int, seed: int, temperature: float, bf16: bool) -> "torch.Tensor":
    """Logits shaped like a language model's: a few likely tokens and a long Zipf tail, in a
    random order per row, the tail's slope varying by row (nuclei of a few to hundreds of
    tokens at 0.95, as SmolLM2's at temperature 0.7); bf16-rounded ones tie often, as a bf16
    engine's do."""
    g = torch.Generator().manual_seed(seed)
    rank = torch.arange(1, VOCAB + 1, dtype=torch.float32)
    slope = 1.2 + 0.6 * torch.rand(rows, 1, generator=g)
    base = -slope * rank.log() + 0.3 * torch.randn(rows, VOCAB, generator=g)
    perm = torch.argsort(torch.rand(rows, VOCAB, generator=g), dim=-1)
    logits = torch.empty_like(base).scatter_(1, perm, base)
    if bf16:
        logits = logits.bfloat16().float()
    return logits / temperature


def counting(calls: list[int]):
    def fallback(logits, k, p):
        calls.append(logits.shape[0])
        return native(logits, k, p)

    return fallback


@pytest.mark.parametrize("bf16", [False, True])
@pytest.mark.parametrize("temperature,top_p", [(0.3, 0.95), (0.7, 0.95), (1.0, 0.8)])
def test_the_same_masks_as_vllm_s_sort(bf16, temperature, top_p):
    logits = lm_like(96, seed=int(temperature * 10), temperature=temperature, bf16=bf16)
    p = torch.full((logits.shape[0],), top_p)
    p[::5] = 1.0  # requests without top-p share the batch
    want = native(logits.clone(), None, p)
    calls: list[int] = []
    got = nucleus.window_top_p(logits.clone(), None, p, counting(calls))
    assert torch.equal(got, want)
    # The window decided most rows itself; the p = 1 rows always went to the sort.
    assert len(range(0, 96, 5)) <= sum(calls) < 96 * 0.75


def test_rows_it_cannot_decide_go_to_the_sort():
    logits = lm_like(4, seed=1, temperature=0.7, bf16=False)
    logits[1] = 0.0  # flat: the nucleus holds 95% of the vocabulary, far past the window
    logits[2, :] = -30.0
    logits[2, :3] = 5.0  # a three-way tie at the top: which two are kept is the sort's call
    p = torch.tensor([0.95, 0.95, 0.5, 0.95])
    want = native(logits.clone(), None, p)
    calls: list[int] = []
    got = nucleus.window_top_p(logits.clone(), None, p, counting(calls))
    assert torch.equal(got, want)
    assert calls == [2]  # rows 1 and 2, in one call
    # a flat row keeps 95% of its tokens, the peaked ones a handful
    kept = (~torch.isinf(got)).sum(-1)
    assert kept[1] > 0.9 * VOCAB and kept[0] < nucleus.WINDOW


def test_masked_tokens_and_broken_rows():
    """Logits processors leave -inf in a row (allowed_token_ids, min_tokens on the stop
    token, bad words): the same masks as vLLM's. A row of NaN (a broken model) is never
    decided here: it goes to vLLM's sort, whatever that makes of it."""
    logits = lm_like(5, seed=4, temperature=0.7, bf16=True)
    logits[0, 5:] = float("-inf")  # five allowed tokens: fewer finite ones than the window
    logits[1, logits[1].argmax()] = float("-inf")  # the likeliest token banned
    logits[2, 1:] = float("-inf")  # one token left
    logits[3, :] = float("nan")
    p = torch.full((5,), 0.9)
    want = native(logits.clone(), None, p)
    sent: list = []

    def fallback(rows, k, p):
        sent.append(rows.isnan().all(-1))
        return native(rows, k, p)

    got = nucleus.window_top_p(logits.clone(), None, p, fallback)
    ok = [0, 1, 2, 4]
    assert torch.equal(got[ok], want[ok])
    assert torch.cat(sent).sum() == 1  # the NaN row, and it alone of its kind
    assert (~torch.isinf(got[0])).sum() <= 5 and (~torch.isinf(got[2])).sum() == 1


def test_top_k_and_no_top_p_are_vllm_s_own():
    logits = lm_like(3, seed=2, temperature=0.7, bf16=True)
    k = torch.tensor([5, 50, VOCAB])
    calls: list[int] = []
    got = nucleus.window_top_p(logits.clone(), k, torch.full((3,), 0.9), counting(calls))
    assert calls == [3]
    assert torch.equal(got, native(logits.clone(), k, torch.full((3,), 0.9)))
    calls.clear()
    assert torch.equal(nucleus.window_top_p(logits.clone(), None, None, counting(calls)), logits)
    assert calls == [3]


def test_install_replaces_vllm_s_function_once_and_puts_it_back(monkeypatch):
    own = vllm_own()
    monkeypatch.setattr(ops, "apply_top_k_top_p", own)  # restored after the test
    assert nucleus.install() and nucleus.install()
    installed = ops.apply_top_k_top_p
    assert installed is not own and installed._native is own  # not wrapped twice
    logits = lm_like(8, seed=3, temperature=0.7, bf16=False)
    p = torch.full((8,), 0.95)
    before = nucleus.counts()
    assert torch.equal(installed(logits.clone(), None, p), own(logits.clone(), None, p))
    assert nucleus.counts()["rows"] == before["rows"] + 8
    # engine.nucleus=sort after a window engine in the same process: vLLM's own again
    assert nucleus.install(False) is False and ops.apply_top_k_top_p is own
    assert nucleus.install(False) is False and ops.apply_top_k_top_p is own


# The seam with vLLM's internals: `install` replaces a non-public function, so it checks the
# release and the function's parameters first and otherwise leaves vLLM's own in place.


def test_the_guard_reads_releases_and_signatures():
    import vllm

    own = vllm_own()
    assert nucleus.mismatch(vllm.__version__, own) == ""  # the release the suite runs on fits
    assert nucleus.mismatch("0.32.4+cpu", own) == ""
    for version in ("0.33.0", "0.31.9", "1.32.0", "", "nightly"):
        assert "not a release it was written for" in nucleus.mismatch(version, own), version

    def renamed(logits, k, p, generators):  # a release that grew a parameter
        return logits

    assert "takes (logits, k, p, generators)" in nucleus.mismatch("0.32.1", renamed)
    assert "takes (?)" in nucleus.mismatch("0.32.1", max)  # a builtin without a signature


def sample(rows: int, seed: int, masks=native):
    """Tokens from vLLM's own CPU sampler (`TopKTopPSampler`, which looks the top-p function
    up in its module as the engine's does), seeded per row, with the nucleus each row's
    token must come from."""
    from vllm.platforms import current_platform

    if not current_platform.is_cpu():
        pytest.skip("the window serves CPU engines; this vLLM samples on a GPU")
    current_platform.import_kernels()  # the sampler's fused kernel, as an engine loads it
    logits = lm_like(rows, seed=seed, temperature=0.7, bf16=False)
    p = torch.full((rows,), 0.9)
    allowed = ~torch.isinf(masks(logits.clone(), None, p))
    generators = {i: torch.Generator().manual_seed(seed * 100 + i) for i in range(rows)}
    tokens, _ = ops.TopKTopPSampler()(logits.clone(), generators, None, p)
    return tokens, allowed


@pytest.fixture
def vllm_s_own_in_place(monkeypatch):
    """vLLM's own function in place, restored with the release and the warned set after."""
    monkeypatch.setattr(ops, "apply_top_k_top_p", vllm_own())
    monkeypatch.setattr(nucleus, "_WARNED", set())
    return monkeypatch


def test_a_release_it_was_not_written_for_samples_with_vllm_s_own_and_one_warning(
    vllm_s_own_in_place, caplog
):
    import vllm

    # Control: on the release it was written for the window is used by the sampler.
    assert nucleus.install() is True
    before = nucleus.counts()["rows"]
    tokens, allowed = sample(6, seed=5)
    assert nucleus.counts()["rows"] == before + 6

    vllm_s_own_in_place.setattr(vllm, "__version__", "0.33.0")
    with caplog.at_level("WARNING", logger=nucleus.__name__):
        assert nucleus.install() is False and nucleus.install() is False  # two engines
    assert ops.apply_top_k_top_p is vllm_own()  # the window taken out again
    warned = [r.getMessage() for r in caplog.records if r.name == nucleus.__name__]
    assert len(warned) == 1 and "vLLM 0.33.0 is not a release" in warned[0]
    assert "\n" not in warned[0]

    before = nucleus.counts()["rows"]
    again, allowed_again = sample(6, seed=5)
    assert nucleus.counts()["rows"] == before  # vLLM's own path: the window saw nothing
    assert again.shape == (6,)
    assert bool(allowed_again[torch.arange(6), again].all())  # each token in its nucleus
    assert torch.equal(again, tokens)  # and the same tokens as with the window


def test_a_changed_signature_keeps_vllm_s_function(vllm_s_own_in_place, caplog):
    calls: list[int] = []
    own = vllm_own()

    def newer(logits, k, p, mask=None):  # what a later vLLM might put there
        calls.append(logits.shape[0])
        return own(logits, k, p)

    vllm_s_own_in_place.setattr(ops, "apply_top_k_top_p", newer)
    with caplog.at_level("WARNING", logger=nucleus.__name__):
        assert nucleus.install() is False
    assert ops.apply_top_k_top_p is newer  # left as vLLM has it, not wrapped
    assert sum("takes (logits, k, p, mask)" in r.getMessage() for r in caplog.records) == 1
    tokens, allowed = sample(4, seed=6, masks=own)
    assert calls == [4] and bool(allowed[torch.arange(4), tokens].all())
