"""Every optimizer against the real cstorch 2.10 CPU backend (optimizers.json, float32)."""
from __future__ import annotations

import numpy as np
import pytest

import minitorch_cs.optim as optim
import minitorch_cs.torch as torch
from minitorch_cs.optim.adam_base import adam_update
from minitorch_cs.optim.sgd import sgd_update

from ._golden import load, unjson

GOLD = load("optimizers.json")
CASES = [c for c in GOLD["cases"] if "error" not in c]
P1 = np.array(GOLD["p1_init_values"], dtype=np.float32)
P2 = np.array(GOLD["p2_init_values"], dtype=np.float32)


def _grad(p, k):
    x = p.detach().numpy().astype(np.float64)
    return torch.tensor((np.sin(x * 1.3 + k) + 0.1 * k).astype(np.float32))


def _build(case):
    params = {"p1": torch.tensor(P1.copy(), requires_grad=True),
              "p2": torch.tensor(P2.copy(), requires_grad=True)}
    groups = [{"params": [params[n]], "tags": [f"tag_{n}"]} for n in case["params_used"]]
    opt = getattr(optim, case["spec"]["class"])(groups, **unjson(case["spec"]["kwargs"]))
    return opt, params


def _compare_tree(mine, gold, where=""):
    """Compare a state-dict tree with its JSON golden (tensors: dtype, shape, values)."""
    if isinstance(gold, dict) and "__tensor__" in gold:
        assert isinstance(mine, torch.Tensor), where
        assert str(mine.dtype) == gold["__tensor__"], where
        assert list(mine.shape) == gold["shape"], where
        np.testing.assert_allclose(mine.detach().numpy(), np.array(gold["values"]), rtol=1e-5,
                                   atol=1e-7, err_msg=where)
    elif isinstance(gold, dict) and not ("__tuple__" in gold or "__set__" in gold):
        mine = {str(k): v for k, v in mine.items()}
        assert sorted(mine) == sorted(gold), where
        for k in gold:
            _compare_tree(mine[k], gold[k], f"{where}.{k}")
    elif isinstance(gold, list):
        assert len(mine) == len(gold), where
        for i, (m, g) in enumerate(zip(mine, gold)):
            _compare_tree(m, g, f"{where}[{i}]")
    else:
        assert mine == unjson(gold) and type(mine) is type(unjson(gold)), (where, mine, gold)


@pytest.mark.parametrize("case", CASES, ids=[f"{c['spec']['class']}-{i}"
                                             for i, c in enumerate(CASES)])
def test_optimizer_matches_real(case, backend):
    opt, params = _build(case)
    assert opt.defaults == unjson(case["defaults"])
    assert [sorted(k for k in g if k != "params") for g in opt.param_groups] == \
        case["param_group_keys"]
    _compare_tree({i: opt.state[params[n]] for i, n in enumerate(case["params_used"])},
                  case["initial_state"], "initial_state")
    for k in range(len(case["grads"])):
        for n in case["params_used"]:
            params[n].grad = _grad(params[n], k)
            np.testing.assert_allclose(params[n].grad.numpy(), case["grads"][k][n], rtol=1e-5,
                                       atol=1e-6)
        opt.step()
        for n in case["params_used"]:
            np.testing.assert_allclose(params[n].detach().numpy(),
                                       np.array(case["params_after_step"][k][n]), rtol=1e-5,
                                       atol=1e-6, err_msg=f"step {k} {n}")
    sd = opt.state_dict()
    _compare_tree(sd["state"], case["final_state_dict"]["state"], "state")
    _compare_tree(sd["param_groups"], case["final_state_dict"]["param_groups"], "param_groups")
    # key order of the groups, too (it is the order a checkpoint stores them in)
    assert [list(g) for g in sd["param_groups"]] == \
        [list(g) for g in case["final_state_dict"]["param_groups"]]


def _case(cls, **kwargs):
    return next(c for c in CASES if c["spec"]["class"] == cls
                and unjson(c["spec"]["kwargs"]) == kwargs)


def test_sgd_update_function_golden(backend):
    """The pure update function alone reproduces the real SGD(momentum) trajectory."""
    case = _case("SGD", lr=0.1, momentum=0.9, weight_decay=0.01)
    p = torch.tensor(P1.copy())
    buf = torch.zeros_like(p)
    for k in range(5):
        sgd_update(p, _grad(p, k), buf, lr=0.1, momentum=0.9, weight_decay=0.01)
        np.testing.assert_allclose(p.numpy(), case["params_after_step"][k]["p1"], rtol=1e-5)


def test_adam_update_function_golden(backend):
    case = _case("AdamW", lr=0.01, weight_decay=0.1)
    p = torch.tensor(P1.copy())
    m, v = torch.zeros_like(p), torch.zeros_like(p)
    b1p, b2p = torch.tensor(0.9), torch.tensor(0.999)
    for k in range(5):
        adam_update(p, _grad(p, k), m, v, lr=0.01, beta1=0.9, beta2=0.999, eps=1e-6,
                    weight_decay=0.1, beta1_power=b1p, beta2_power=b2p)
        np.testing.assert_allclose(p.numpy(), case["params_after_step"][k]["p1"], rtol=1e-5)


def test_scheduled_tensor_lr_and_weight_decay(backend):
    """Hyper-parameters written by schedulers are 0-d tensors; the update reads them as values."""
    from minitorch_cs.optim import lr_scheduler, weight_decay_scheduler
    a = torch.tensor(P1.copy(), requires_grad=True)
    b = torch.tensor(P1.copy(), requires_grad=True)
    sched_opt = optim.SGD([a], lr=1.0, momentum=0.9, weight_decay=0.5)
    lr_scheduler.ConstantLR(sched_opt, 0.05)
    weight_decay_scheduler.ConstantWD(sched_opt, 0.01)
    plain_opt = optim.SGD([b], lr=0.05, momentum=0.9, weight_decay=0.01)
    assert isinstance(sched_opt.param_groups[0]["lr"], torch.Tensor)
    for k in range(4):
        a.grad, b.grad = _grad(a, k), _grad(b, k)
        sched_opt.step()
        plain_opt.step()
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-6)
