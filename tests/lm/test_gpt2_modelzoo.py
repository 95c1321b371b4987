"""The ``gpt2`` Model Zoo model: registration, Model Zoo's key names and errors, its loss and
metrics, the token-file data processor, and ``minitorch-cs fit examples/gpt2_tiny.yaml`` in a
fresh process (CPU and the emulated wafer, identical losses)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml

from minitorch_cs import torch
from minitorch_cs.modelzoo.models.nlp.gpt2 import (GPT2ModelConfig, Gpt2Model,
                                                   GptTokenFileDataProcessor)
from minitorch_cs.modelzoo.models.nlp.gpt2.data import write_addition_token_file
from minitorch_cs.modelzoo.registry import registry
from minitorch_cs.modelzoo.trainer.validate import ConfigError, validate_trainer_params

ROOT = Path(__file__).resolve().parents[2]
# one BLAS thread per subprocess unless the caller chose: on two shared cores OpenBLAS' threads
# otherwise spin against each other (same results, many times slower)
_ONE_BLAS_THREAD = {"OPENBLAS_NUM_THREADS": "1", **os.environ}
YAML = ROOT / "examples" / "gpt2_tiny.yaml"

TINY = dict(name="gpt2", vocab_size=256, hidden_size=16, num_hidden_layers=2, num_heads=2,
            filter_size=32, max_position_embeddings=9, dropout_rate=0.0,
            attention_dropout_rate=0.0, embedding_dropout_rate=0.0)


def test_registered_with_its_data_processor():
    assert "gpt2" in registry.model_names()
    assert registry.get_model_class("gpt2") is Gpt2Model
    assert registry.get_model_config_class("gpt2") is GPT2ModelConfig
    assert "GptTokenFileDataProcessor" in registry.get_data_processors_map("gpt2")


def test_config_uses_model_zoo_names_and_defaults():
    c = GPT2ModelConfig(name="gpt2", vocab_size=100, dropout_rate=0.2,
                        attention_dropout_rate=None)
    assert c.embd_pdrop == 0.2 and c.attention_dropout_rate == 0.2  # Model Zoo's post_init
    c = GPT2ModelConfig(name="gpt2", embedding_dropout_rate=0.05)  # the alias sets embd_pdrop
    assert c.embd_pdrop == 0.05
    assert (c.hidden_size, c.num_hidden_layers, c.num_heads, c.filter_size,
            c.max_position_embeddings, c.layer_norm_epsilon) == (768, 12, 12, 3072, 1024, 1e-5)


def test_example_yaml_validates_and_unknown_keys_are_named():
    params = yaml.safe_load(YAML.read_text())
    validate_trainer_params(params)
    params["trainer"]["init"]["model"]["rotary_theta"] = 1.0
    with pytest.raises(ConfigError, match="rotary_theta"):
        validate_trainer_params(params)
    params["trainer"]["init"]["model"].pop("rotary_theta")
    params["trainer"]["init"]["model"]["position_embedding_type"] = "rotary"
    with pytest.raises(ConfigError, match="position_embedding_type"):
        validate_trainer_params(params)


def _batch(seed=0, b=3, L=8):
    rng = np.random.default_rng(seed)
    ids = rng.integers(0, 256, (b, L)).astype(np.int32)
    labels = rng.integers(0, 256, (b, L)).astype(np.int32)
    mask = (rng.random((b, L)) > 0.3).astype(np.int32)
    return {"input_ids": torch.from_numpy(ids), "labels": torch.from_numpy(labels),
            "attention_mask": torch.from_numpy(mask)}


@pytest.mark.parametrize("scaling", ["num_tokens", "batch_size"])
def test_loss_is_model_zoos_masked_token_loss(scaling):
    torch.manual_seed(0)
    model = Gpt2Model({**TINY, "loss_scaling": scaling, "loss_weight": 0.5})
    data = _batch()
    loss = model(data)
    logits = model.model(data["input_ids"]).detach().numpy().astype(np.float64)
    logp = logits - np.log(np.exp(logits - logits.max(-1, keepdims=True)).sum(-1, keepdims=True)) \
        - logits.max(-1, keepdims=True)
    nll = -np.take_along_axis(logp, data["labels"].numpy()[..., None].astype(np.int64), -1)[..., 0]
    m = data["attention_mask"].numpy()
    want = (nll * m).sum() / (m.sum() if scaling == "num_tokens" else 3 / 0.5)
    assert abs(float(loss) - want) < 1e-5 * max(1.0, abs(want))
    loss.backward()
    assert all(p.grad is not None for p in model.parameters())


def test_structure_tying_init_and_dtype_checks():
    torch.manual_seed(0)
    model = Gpt2Model(TINY)
    lm = model.model
    assert lm.lm_head.weight is lm.embedding_layer.word_embeddings.weight
    names = [n for n, _ in model.named_parameters()]
    assert "model.lm_head.weight" not in names  # tied: listed once, as the embedding
    sd = model.state_dict()
    assert "model.lm_head.weight" in sd  # ... but present in the state dict, as in torch
    w = lm.transformer_decoder.layers[0].linear2.weight.detach().numpy()
    std = 0.02 / np.sqrt(4)
    assert np.all(np.abs(w) <= 2 * std + 1e-7)  # truncated at two standard deviations
    assert lm.transformer_decoder.layers[0].norm_first
    data = _batch()
    data["labels"] = data["labels"].long()
    with pytest.raises(AssertionError, match="int32"):
        model(data)
    rms = Gpt2Model({**TINY, "norm_type": "rmsnorm", "use_ffn_bias": False,
                     "use_projection_bias_in_attention": False,
                     "share_embedding_weights": False, "use_bias_in_output": True,
                     "embedding_layer_norm": True})
    layer = rms.model.transformer_decoder.layers[1]
    assert type(layer.norm1).__name__ == "RMSNorm" and layer.linear1.bias is None
    assert layer.self_attn.in_proj_bias is None and rms.model.lm_head.bias is not None
    assert float(rms(_batch())) > 0


def test_eval_metrics():
    torch.manual_seed(0)
    model = Gpt2Model(TINY).eval()
    data = _batch()
    with torch.no_grad():
        loss = model(data)
    acc = float(model.accuracy_metric)
    ppl = float(model.perplexity_metric)
    assert 0.0 <= acc <= 1.0
    assert abs(ppl - float(np.exp(float(loss)))) < 1e-3 * ppl


def test_token_file_processor(tmp_path):
    path = tmp_path / "val.bin"
    write_addition_token_file(str(path), 2, "val", 0, num_val=50)
    assert np.fromfile(path, np.uint16)[:9].tobytes().decode("utf-16-le") != ""
    text = bytes(np.fromfile(path, np.uint16).astype(np.uint8)).decode()
    first = text.splitlines()[0]
    a, rest = first.split("+")
    b, rev = rest.split("=")
    assert int(rev[::-1]) == int(a) + int(b) and len(first) == 9
    proc = GptTokenFileDataProcessor(dict(data_processor="GptTokenFileDataProcessor",
                                          data_path=str(path), max_sequence_length=9,
                                          batch_size=4, shuffle=False,
                                          loss_mask_after_token=ord("=")))
    batch = next(iter(proc.create_dataloader()))
    assert {k: v.dtype for k, v in batch.items()} == {k: torch.int32 for k in batch}
    x, y, m = (batch[k].numpy() for k in ("input_ids", "labels", "attention_mask"))
    assert np.array_equal(x[:, 1:], y[:, :-1])
    assert m[0].tolist() == [0, 0, 0, 0, 0, 1, 1, 1, 1]  # from the "=" on
    with pytest.raises(FileNotFoundError, match="synthetic_addition_digits"):
        GptTokenFileDataProcessor(dict(data_processor="GptTokenFileDataProcessor",
                                       data_path=str(tmp_path / "missing.bin"),
                                       max_sequence_length=9, batch_size=4)).create_dataloader()


def _cli(*args, cwd):
    env = dict(_ONE_BLAS_THREAD, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "minitorch_cs.cli", *map(str, args)], cwd=cwd,
                          env=env, capture_output=True, text=True, timeout=1200)


def _short_yaml(tmp_path, steps=24):
    params = yaml.safe_load(YAML.read_text())
    init = params["trainer"]["init"]
    init["model"].update(hidden_size=32, filter_size=64, num_hidden_layers=1)
    init["loop"] = {"max_steps": steps, "eval_frequency": steps}
    init["checkpoint"] = {"steps": steps}
    init["logging"] = {"log_steps": 1}
    sched = init["schedulers"][0]["SequentialLR"]["schedulers"]
    sched[0]["LinearLR"]["total_iters"] = 4
    sched[1]["CosineDecayLR"]["total_iters"] = steps - 4
    for key in ("train_dataloader", "val_dataloader"):
        dl = params["trainer"]["fit"][key]
        dl["data_path"] = str(tmp_path / "data" / os.path.basename(dl["data_path"]))
        dl["synthetic_num_examples"] = 4000
    params["trainer"]["fit"]["train_dataloader"]["batch_size"] = 32
    params["trainer"].pop("validate", None)
    path = tmp_path / "gpt2.yaml"
    path.write_text(yaml.safe_dump(params))
    return path


def _losses(md):
    summary = next(p for p in md.iterdir() if p.is_dir() and p.name[0].isdigit())
    rows = [json.loads(line) for line in (summary / "metrics.jsonl").read_text().splitlines()]
    return [r["loss"] for r in rows if "loss" in r], rows


def _fit_both(tmp_path, path):
    out = {}
    for device in ("CPU", "CSX"):
        md = tmp_path / device
        r = _cli("fit", path, "--target_device", device, "--model_dir", md, cwd=tmp_path)
        assert r.returncode == 0, r.stderr[-4000:]
        assert (md / "checkpoint_24.mdl").exists()
        out[device] = _losses(md)
    return out


def test_fit_trains_on_cpu_and_csx_identically(tmp_path):
    # the YAML's mixed precision (bfloat16 matmuls on both backends; the wafer always runs it)
    out = _fit_both(tmp_path, _short_yaml(tmp_path))
    losses, rows = out["CPU"]
    assert len(losses) == 24 and losses[-1] < 0.7 * losses[0]
    assert out["CSX"][0] == losses
    assert any("validate_0/eval/accuracy" in r for r in rows)

