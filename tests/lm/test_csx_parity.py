"""The new layers on the emulated wafer: a model mixing them (embedding, LSTM with projections,
GRU, multi-head attention with a per-batch key padding mask and dropout, a pre-norm encoder
layer, RMSNorm, a transposed convolution, linear interpolation, a bernoulli mask), built under
lazy initialization inside ``with backend.device:``, traced once and replayed, must give the CPU
backend's initial weights and losses bit for bit."""
from __future__ import annotations

import importlib

import numpy as np
import pytest

import minitorch_cs as cstorch
import minitorch_cs.torch as torch
import minitorch_cs.torch.nn as nn
import minitorch_cs.torch.nn.functional as F
from minitorch_cs.utils.data import DataExecutor, DataLoader


class Mix(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(20, 8)
        self.lstm = nn.LSTM(8, 8, batch_first=True, bidirectional=True, proj_size=4)
        self.gru = nn.GRU(8, 8, num_layers=2, batch_first=True)
        self.attn = nn.MultiheadAttention(8, 2, dropout=0.1, batch_first=True)
        self.enc = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.1, activation="gelu",
                                              batch_first=True, norm_first=True)
        self.norm = nn.RMSNorm(8)
        self.up = nn.ConvTranspose1d(8, 4, 3, stride=2)
        self.head = nn.Linear(4, 5)

    def forward(self, x, pad):
        h = self.emb(x)
        h1, _ = self.lstm(h)
        h2, _ = self.gru(h)
        h = h1 + h2
        a, _ = self.attn(h, h, h, key_padding_mask=pad)
        h = self.enc(h + a, src_key_padding_mask=pad)
        h = self.norm(h) * torch.bernoulli(torch.full_like(h, 0.9))
        u = F.interpolate(self.up(h.transpose(1, 2)), scale_factor=0.5, mode="linear")
        return self.head(u.transpose(1, 2)).mean(1)


def _batches():
    rng = np.random.default_rng(0)
    out = []
    for k in range(6):
        x = torch.from_numpy(rng.integers(0, 20, (4, 6)))
        pad = np.zeros((4, 6), bool)
        pad[k % 4, 3 + k % 3:] = True  # a different padding pattern every batch
        y = torch.from_numpy(rng.integers(0, 5, 4))
        out.append((x, torch.from_numpy(pad), y))
    return out


def _run(kind, tmp_path):
    importlib.import_module("minitorch_cs.backend")._reset_for_tests()
    backend = cstorch.backend(kind, artifact_dir=tmp_path / kind)
    torch.manual_seed(0)
    with backend.device:
        model = Mix()
    compiled = cstorch.compile(model, backend)
    init = {k: v.cpu().numpy().copy() for k, v in model.state_dict().items()}
    opt = cstorch.optim.AdamW(model.parameters(), lr=1e-2)
    losses = []

    @cstorch.step_closure
    def record(loss):
        losses.append(loss.item())

    @cstorch.trace
    def step(x, pad, y):
        loss = F.cross_entropy(compiled(x, pad), y)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        opt.zero_grad()
        record(loss)
        return loss

    for x, pad, y in DataExecutor(DataLoader(_batches), num_steps=6):
        step(x, pad, y)
    return init, losses


def test_new_layers_replay_bit_identical_to_cpu(tmp_path):
    init_cpu, cpu = _run("CPU", tmp_path)
    init_csx, csx = _run("CSX", tmp_path)
    assert list(init_cpu) == list(init_csx)
    for k in init_cpu:
        assert np.array_equal(init_cpu[k], init_csx[k]), k
    assert len(cpu) == 6 and cpu == csx
    assert len(set(cpu)) == 6  # the batches (and their masks) really change the step


def test_transformer_encoder_under_lazy_initialization(tmp_path):
    backend = cstorch.backend("CSX", artifact_dir=tmp_path)
    with backend.device:
        enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, batch_first=True), 2,
                                    enable_nested_tensor=False)
    cstorch.compile(enc, backend)
    assert tuple(enc.layers[1].linear1.weight.shape) == (16, 8)
    # the stack deep-copies one layer (as torch's does): every copy starts from its values
    for a, b in zip(enc.layers[0].parameters(), enc.layers[1].parameters()):
        assert np.array_equal(a.detach().cpu().numpy(), b.detach().cpu().numpy())
