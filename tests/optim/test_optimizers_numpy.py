"""Every optimizer's multi-step trajectory against an independent numpy implementation of its
update rule (written here, in float64, from the algorithm descriptions), to 1e-12 relative."""
from __future__ import annotations

import math

import numpy as np
import pytest

import minitorch_cs.optim as optim
import minitorch_cs.torch as torch

from ._golden import P1_INIT, P2_INIT, grad_for

N_STEPS = 6


# ---- reference update rules: ref(p, g, st, t, **hyper) -> new p; st is a dict of arrays -------
def ref_sgd(p, g, st, t, lr, momentum=0.0, dampening=0.0, weight_decay=0.0, nesterov=False,
            maximize=False):
    g = -g if maximize else g
    g = g + weight_decay * p
    if momentum:
        st["buf"] = momentum * st.get("buf", np.zeros_like(p)) + (1 - dampening) * g
        g = g + momentum * st["buf"] if nesterov else st["buf"]
    return p - lr * g


def _adam(p, g, st, t, lr, betas, eps, l2, wd, correct_bias, amsgrad):
    b1, b2 = betas
    if l2 > 0:
        g = g + l2 * p
    st["m"] = b1 * st.get("m", 0.0) + (1 - b1) * g
    st["v"] = b2 * st.get("v", 0.0) + (1 - b2) * g * g
    v = st["v"]
    if amsgrad:
        st["vmax"] = np.maximum(st.get("vmax", 0.0), st["v"])
        v = st["vmax"]
    u = st["m"] / (np.sqrt(v) + eps)  # cstorch: eps before the bias correction
    if correct_bias:
        u = u * math.sqrt(1 - b2 ** t) / (1 - b1 ** t)
    u = u + wd * p
    return p - lr * u


def ref_adam(p, g, st, t, lr=1e-3, betas=(0.9, 0.999), eps=1e-6, weight_decay=0.0,
             amsgrad=False):
    return _adam(p, g, st, t, lr, betas, eps, weight_decay, 0.0, True, amsgrad)


def ref_adamw(p, g, st, t, lr=1e-3, betas=(0.9, 0.999), eps=1e-6, weight_decay=0.0,
              correct_bias=True, amsgrad=False):
    return _adam(p, g, st, t, lr, betas, eps, 0.0, weight_decay, correct_bias, amsgrad)


def ref_adadelta(p, g, st, t, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0.0, maximize=False):
    g = -g if maximize else g
    g = g + weight_decay * p
    st["sq"] = rho * st.get("sq", 0.0) + (1 - rho) * g * g
    delta = np.sqrt(st.get("acc", 0.0) + eps) / np.sqrt(st["sq"] + eps) * g
    st["acc"] = rho * st.get("acc", 0.0) + (1 - rho) * delta * delta
    return p - lr * delta


def ref_adagrad(p, g, st, t, lr=1e-2, lr_decay=0.0, weight_decay=0.0,
                initial_accumulator_value=0.0, eps=1e-6, maximize=False):
    g = -g if maximize else g
    g = g + weight_decay * p
    st["sum"] = st.get("sum", initial_accumulator_value) + g * g
    clr = lr / (1 + (t - 1) * lr_decay)
    return p - clr * g / (np.sqrt(st["sum"]) + eps)


def ref_adamax(p, g, st, t, lr=1e-3, betas=(0.9, 0.999), eps=1e-6, weight_decay=0.0,
               maximize=False):
    b1, b2 = betas
    g = -g if maximize else g
    g = g + weight_decay * p
    st["m"] = b1 * st.get("m", 0.0) + (1 - b1) * g
    st["u"] = np.maximum(b2 * st.get("u", 0.0), np.abs(g) + eps)
    return p - lr * st["m"] / st["u"] / (1 - b1 ** t)


def ref_asgd(p, g, st, t, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0.0,
             maximize=False):
    eta, mu = st.get("eta", lr), st.get("mu", 1.0)
    g = -g if maximize else g
    g = g + weight_decay * p
    p = p * (1 - lambd * eta) - eta * g
    st["ax"] = p.copy() if mu == 1 else st.get("ax", 0.0) + mu * (p - st.get("ax", 0.0))
    st["eta"] = lr / (1 + lambd * lr * t) ** alpha
    st["mu"] = 1 / max(1.0, t - t0)
    return p


def ref_lamb(p, g, st, t, lr=1e-3, betas=(0.9, 0.999), eps=1e-6, weight_decay=0.0, adam=False):
    b1, b2 = betas
    st["m"] = b1 * st.get("m", 0.0) + (1 - b1) * g
    st["v"] = b2 * st.get("v", 0.0) + (1 - b2) * g * g
    step = st["m"] / (np.sqrt(st["v"]) + eps) + weight_decay * p
    wn = min(np.linalg.norm(p), 10.0)
    an = np.linalg.norm(step)
    trust = 1.0 if (adam or wn == 0 or an == 0) else wn / an
    return p - lr * trust * step


def ref_lion(p, g, st, t, lr=1e-4, betas=(0.9, 0.99), weight_decay=0.0):
    b1, b2 = betas
    m = st.get("m", np.zeros_like(p))
    p = p * (1 - lr * weight_decay) - lr * np.sign(b1 * m + (1 - b1) * g)
    st["m"] = b2 * m + (1 - b2) * g
    return p


def ref_nadam(p, g, st, t, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0,
              momentum_decay=4e-3):
    b1, b2 = betas
    g = g + weight_decay * p
    mu = b1 * (1 - 0.5 * 0.96 ** (t * momentum_decay))
    mu_next = b1 * (1 - 0.5 * 0.96 ** ((t + 1) * momentum_decay))
    st["prod"] = st.get("prod", 1.0) * mu
    prod_next = st["prod"] * mu * mu_next  # cstorch's formula (torch: prod * mu_next)
    st["m"] = b1 * st.get("m", 0.0) + (1 - b1) * g
    st["v"] = b2 * st.get("v", 0.0) + (1 - b2) * g * g
    denom = np.sqrt(st["v"] / (1 - b2 ** t)) + eps
    upd = mu_next * st["m"] / (1 - prod_next) + (1 - mu) * g / (1 - st["prod"])
    return p - lr * upd / denom


def ref_radam(p, g, st, t, lr=1e-3, betas=(0.9, 0.999), eps=1e-6, weight_decay=0.0):
    b1, b2 = betas
    g = g + weight_decay * p
    st["m"] = b1 * st.get("m", 0.0) + (1 - b1) * g
    st["v"] = b2 * st.get("v", 0.0) + (1 - b2) * g * g
    mhat = st["m"] / (1 - b1 ** t)
    rho_inf = 2 / (1 - b2) - 1
    rho_t = rho_inf - 2 * t * b2 ** t / (1 - b2 ** t)
    if rho_t > 5:
        r = math.sqrt((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t))
        return p - lr * mhat * r * math.sqrt(1 - b2 ** t) / (np.sqrt(st["v"]) + eps)
    return p - lr * mhat


def ref_rmsprop(p, g, st, t, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0.0, momentum=0.0,
                centered=False):
    g = g + weight_decay * p
    st["sq"] = alpha * st.get("sq", 0.0) + (1 - alpha) * g * g
    if centered:
        st["ga"] = alpha * st.get("ga", 0.0) + (1 - alpha) * g
        avg = np.sqrt(st["sq"] - st["ga"] ** 2) + eps
    else:
        avg = np.sqrt(st["sq"]) + eps
    if momentum > 0:
        st["buf"] = momentum * st.get("buf", 0.0) + g / avg
        return p - lr * st["buf"]
    return p - lr * g / avg


def ref_rprop(p, g, st, t, lr=1e-3, etas=(0.5, 1.2), step_sizes=(1e-6, 50.0)):
    prev = st.get("prev", np.zeros_like(p))
    size = st.get("size", np.full_like(p, lr))
    s = g * prev
    mult = np.where(s > 0, etas[1], np.where(s < 0, etas[0], 1.0))
    size = np.clip(size * mult, step_sizes[0], step_sizes[1])
    g = np.where(s < 0, 0.0, g)
    st["prev"], st["size"] = g, size
    return p - np.sign(g) * size


def ref_adafactor(p, g, st, t, lr, eps=(1e-30, 1e-3), clip_threshold=1.0, decay_rate=-0.8,
                  weight_decay=0.0, scale_parameter=True):
    rms = lambda x: math.sqrt(np.mean(x * x))  # noqa: E731
    lr_t = max(rms(p), eps[1]) * lr if scale_parameter else lr
    b2t = 1 - t ** decay_rate
    upd = g * g + eps[0]
    if p.ndim >= 2:
        st["row"] = b2t * st.get("row", 0.0) + (1 - b2t) * upd.mean(-1)
        st["col"] = b2t * st.get("col", 0.0) + (1 - b2t) * upd.mean(-2)
        r = (st["row"] / st["row"].mean(-1, keepdims=True)) ** -0.5
        u = r[..., :, None] * st["col"][..., None, :] ** -0.5 * g
    else:
        st["v"] = b2t * st.get("v", 0.0) + (1 - b2t) * upd
        u = st["v"] ** -0.5 * g
    u = u / max(rms(u) / clip_threshold, 1.0) * lr_t
    return p - weight_decay * lr_t * p - u


CASES = [
    ("SGD", ref_sgd, dict(lr=0.1)),
    ("SGD", ref_sgd, dict(lr=0.1, momentum=0.9, weight_decay=0.01)),
    ("SGD", ref_sgd, dict(lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.1)),
    ("SGD", ref_sgd, dict(lr=0.05, momentum=0.5, dampening=0.3, weight_decay=0.01,
                          maximize=True)),
    ("Adam", ref_adam, dict(lr=0.01)),
    ("Adam", ref_adam, dict(lr=0.01, betas=(0.8, 0.99), eps=1e-8, weight_decay=0.1,
                            amsgrad=True)),
    ("Adam", ref_adam, dict(lr=0.01, weight_decay=-0.1)),
    ("AdamW", ref_adamw, dict(lr=0.01, weight_decay=0.1)),
    ("AdamW", ref_adamw, dict(lr=0.01, weight_decay=0.1, correct_bias=False)),
    ("AdamW", ref_adamw, dict(lr=0.01, betas=(0.8, 0.99), weight_decay=0.05, amsgrad=True)),
    ("Adadelta", ref_adadelta, dict()),
    ("Adadelta", ref_adadelta, dict(lr=0.5, rho=0.8, eps=1e-5, weight_decay=0.1,
                                    maximize=True)),
    ("Adagrad", ref_adagrad, dict(lr=0.1)),
    ("Adagrad", ref_adagrad, dict(lr=0.1, lr_decay=0.1, weight_decay=0.1,
                                  initial_accumulator_value=0.5, maximize=True)),
    ("Adamax", ref_adamax, dict(lr=0.01)),
    ("Adamax", ref_adamax, dict(lr=0.02, betas=(0.8, 0.99), weight_decay=0.1, maximize=True)),
    ("ASGD", ref_asgd, dict(lr=0.1)),
    ("ASGD", ref_asgd, dict(lr=0.1, lambd=0.01, alpha=0.5, t0=2, weight_decay=0.1,
                            maximize=True)),
    ("Lamb", ref_lamb, dict(lr=0.01)),
    ("Lamb", ref_lamb, dict(lr=0.01, betas=(0.8, 0.99), weight_decay=0.1)),
    ("Lamb", ref_lamb, dict(lr=0.01, weight_decay=0.1, adam=True)),
    ("Lion", ref_lion, dict(lr=0.01)),
    ("Lion", ref_lion, dict(lr=0.01, betas=(0.8, 0.95), weight_decay=0.1)),
    ("NAdam", ref_nadam, dict(lr=0.01)),
    ("NAdam", ref_nadam, dict(lr=0.01, betas=(0.8, 0.99), weight_decay=0.1,
                              momentum_decay=0.01)),
    ("RAdam", ref_radam, dict(lr=0.01)),
    ("RAdam", ref_radam, dict(lr=0.01, betas=(0.5, 0.6), weight_decay=0.1)),
    ("RMSprop", ref_rmsprop, dict(lr=0.01)),
    ("RMSprop", ref_rmsprop, dict(lr=0.01, alpha=0.9, weight_decay=0.1, momentum=0.5,
                                  centered=True)),
    ("RMSprop", ref_rmsprop, dict(lr=0.01, centered=True)),
    ("Rprop", ref_rprop, dict(lr=0.01)),
    ("Rprop", ref_rprop, dict(lr=0.05, etas=(0.3, 1.5), step_sizes=(1e-3, 0.1))),
    ("Adafactor", ref_adafactor, dict(lr=0.01)),
    ("Adafactor", ref_adafactor, dict(lr=0.01, eps=(1e-30, 1e-2), decay_rate=-0.5,
                                      weight_decay=0.1, scale_parameter=False)),
]


def _ids():
    return [f"{name}-{i}" for i, (name, _, _) in enumerate(CASES)]


@pytest.mark.parametrize("name,ref,kwargs", CASES, ids=_ids())
def test_trajectory_matches_numpy_float64(name, ref, kwargs, backend):
    params = [torch.tensor(P1_INIT.copy(), requires_grad=True),
              torch.tensor(P2_INIT.copy(), requires_grad=True)]
    assert params[0].dtype is torch.float64
    opt = getattr(optim, name)([{"params": [p]} for p in params], **kwargs)
    ref_p = [P1_INIT.copy(), P2_INIT.copy()]
    ref_state = [{}, {}]
    for k in range(N_STEPS):
        for i, p in enumerate(params):
            g = grad_for(ref_p[i], k)
            p.grad = torch.tensor(g)
            ref_p[i] = ref(ref_p[i], g, ref_state[i], k + 1, **kwargs)
        opt.step()
        for i, p in enumerate(params):
            np.testing.assert_allclose(p.detach().numpy(), ref_p[i], rtol=1e-12, atol=1e-15,
                                       err_msg=f"{name}{kwargs} step {k}")
            assert p.dtype is torch.float64
