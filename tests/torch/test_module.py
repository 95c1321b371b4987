"""nn.Module semantics, following torch's documented behaviour: registration and attribute routing,
naming and ordering of ``named_*``, tied parameters, ``state_dict``/``load_state_dict`` (with
torch's error texts), forward and registration hooks, train/eval, conversion, repr, containers."""
from __future__ import annotations

import copy
import pickle
from collections import OrderedDict

import numpy as np
import pytest

from minitorch_cs import torch
from minitorch_cs.torch import nn
from minitorch_cs.torch.nn.modules import module as module_mod


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(3, 4)
        self.act = nn.ReLU()
        self.block = nn.Sequential(nn.Linear(4, 4), nn.BatchNorm1d(4))
        self.scale = nn.Parameter(torch.ones(1))
        self.register_buffer("steps", torch.zeros((), dtype=torch.int64))
        self.register_buffer("cache", torch.zeros(2), persistent=False)
        self.fc2 = nn.Linear(4, 2, bias=False)

    def forward(self, x):
        return self.fc2(self.block(self.act(self.fc1(x)))) * self.scale


# ----- registration and routing -------------------------------------------------------------------
def test_named_parameters_order_and_prefixes():
    names = [n for n, _ in Net().named_parameters()]
    # own parameters first, then each child in registration order (torch's named_modules walk)
    assert names == ["scale", "fc1.weight", "fc1.bias", "block.0.weight", "block.0.bias",
                     "block.1.weight", "block.1.bias", "fc2.weight"]
    net = Net()
    assert [n for n, _ in net.named_parameters(prefix="model", recurse=False)] == ["model.scale"]
    assert [n for n, _ in net.named_buffers()] == ["steps", "cache", "block.1.running_mean",
                                                   "block.1.running_var",
                                                   "block.1.num_batches_tracked"]
    assert [n for n, _ in net.named_children()] == ["fc1", "act", "block", "fc2"]
    assert [n for n, _ in net.named_modules()] == ["", "fc1", "act", "block", "block.0", "block.1",
                                                   "fc2"]
    assert len(list(net.parameters())) == 8 and len(list(net.buffers(recurse=False))) == 2


def test_tied_parameters_listed_once_and_modules_deduplicated():
    shared = nn.Linear(2, 2)
    seq = nn.Sequential(shared, nn.ReLU(), shared)
    assert [n for n, _ in seq.named_parameters()] == ["0.weight", "0.bias"]
    assert [n for n, _ in seq.named_parameters(remove_duplicate=False)] == [
        "0.weight", "0.bias", "2.weight", "2.bias"]
    assert [n for n, _ in seq.named_modules()] == ["", "0", "1"]
    assert len(list(seq.modules(remove_duplicate=False))) == 4
    # a weight tied across two different modules (embedding / output projection)
    emb, out = nn.Embedding(5, 3), nn.Linear(3, 5, bias=False)
    out.weight = emb.weight
    tied = nn.ModuleDict({"emb": emb, "out": out})
    assert [n for n, _ in tied.named_parameters()] == ["emb.weight"]
    # state_dict keeps both names (torch does too), pointing at the same storage
    sd = tied.state_dict()
    assert list(sd) == ["emb.weight", "out.weight"]
    assert sd["emb.weight"].data_ptr() == sd["out.weight"].data_ptr()


def test_setattr_routes_and_reassignment():
    m = nn.Module()
    m.w = nn.Parameter(torch.zeros(2))
    m.sub = nn.Linear(1, 1)
    m.buf = nn.Buffer(torch.ones(3), persistent=False)
    m.plain = torch.zeros(1)
    assert set(m._parameters) == {"w"} and set(m._modules) == {"sub"}
    assert set(m._buffers) == {"buf"} and "buf" in m._non_persistent_buffers_set
    assert "plain" in m.__dict__ and "plain" not in m._buffers
    m.buf = torch.full((3,), 2.0)  # assigning a tensor to a buffer name keeps it a buffer
    assert m._buffers["buf"].tolist() == [2.0, 2.0, 2.0] and "buf" in m._non_persistent_buffers_set
    m.sub = nn.Parameter(torch.zeros(1))  # a module name re-assigned a Parameter moves registries
    assert "sub" not in m._modules and "sub" in m._parameters
    m.w = None
    assert m.w is None and list(m.parameters()) == [m.sub]
    del m.sub
    assert not hasattr(m, "sub")
    with pytest.raises(AttributeError, match="'Module' object has no attribute 'nope'"):
        m.nope


@pytest.mark.parametrize("action, exc, msg", [
    (lambda m: m.register_buffer("x", torch.zeros(1)), KeyError, "attribute 'x' already exists"),
    (lambda m: m.register_parameter("b", nn.Parameter(torch.zeros(1))), KeyError,
     "attribute 'b' already exists"),
    (lambda m: m.register_parameter("w2", torch.zeros(1)), TypeError,
     "cannot assign 'torch.FloatTensor' object to parameter 'w2' (torch.nn.Parameter or None "
     "required)"),
    (lambda m: m.register_parameter("a.b", None), KeyError, 'parameter name can\'t contain "."'),
    (lambda m: m.register_buffer("", None), KeyError, 'buffer name can\'t be empty string ""'),
    (lambda m: m.add_module("a.b", nn.ReLU()), KeyError,
     'module name can\'t contain ".", got: a.b'),
    (lambda m: m.add_module("c", 3), TypeError, "int is not a Module subclass"),
    (lambda m: m.register_buffer("t", 3), TypeError,
     "cannot assign 'int' object to buffer 't' (torch Tensor or None required)"),
    (lambda m: m.register_parameter("nl", nn.Parameter(torch.zeros(1)) * 2), TypeError,
     "cannot assign 'torch.FloatTensor' object to parameter 'nl'"),
    (lambda m: setattr(m, "lin", torch.zeros(1)), TypeError,
     "cannot assign 'torch.FloatTensor' as child module 'lin' (torch.nn.Module or None expected)"),
    (lambda m: m.train("yes"), ValueError, "training mode is expected to be boolean"),
])
def test_registration_errors(action, exc, msg):
    class A(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("b", torch.zeros(2))
            self.x = 3
            self.lin = nn.Linear(1, 1)

    with pytest.raises(exc) as info:
        action(A())
    text = info.value.args[0]
    assert text.startswith(msg), text


def test_parameter_assignment_errors():
    m = nn.Linear(2, 2)
    with pytest.raises(TypeError, match=r"cannot assign 'torch.FloatTensor' as parameter 'weight' "
                                        r"\(torch.nn.Parameter or None expected\)"):
        m.weight = torch.zeros(2, 2)
    with pytest.raises(AttributeError, match="cannot assign parameters before Module.__init__"):
        class Bad(nn.Module):
            def __init__(self):
                self.p = nn.Parameter(torch.zeros(1))
        Bad()
    with pytest.raises(TypeError, match="takes 1 positional argument but 2 were given"):
        nn.Module(3)
    with pytest.raises(NotImplementedError, match=r'Module \[Module\] is missing the required '
                                                  r'"forward" function'):
        nn.Module()(1)


def test_get_submodule_parameter_buffer():
    net = Net()
    assert net.get_submodule("block.1") is net.block[1]
    assert net.get_submodule("") is net
    assert net.get_parameter("block.0.weight") is net.block[0].weight
    assert net.get_buffer("block.1.running_var") is net.block[1].running_var
    with pytest.raises(AttributeError, match="Linear has no attribute `a`"):
        net.get_submodule("fc1.a")
    with pytest.raises(AttributeError, match="`act` is not an nn.Parameter"):
        net.get_parameter("act")
    with pytest.raises(AttributeError, match="`weight` is not a buffer"):
        net.get_buffer("fc1.weight")
    net.set_submodule("block.0", nn.Identity())
    assert isinstance(net.block[0], nn.Identity)


# ----- state dict ---------------------------------------------------------------------------------
def test_state_dict_contents():
    net = Net()
    sd = net.state_dict()
    assert isinstance(sd, OrderedDict)
    assert list(sd) == ["scale", "steps", "fc1.weight", "fc1.bias", "block.0.weight",
                        "block.0.bias", "block.1.weight", "block.1.bias", "block.1.running_mean",
                        "block.1.running_var", "block.1.num_batches_tracked", "fc2.weight"]
    w = sd["fc1.weight"]
    assert type(w) is torch.Tensor and not w.requires_grad and w.grad_fn is None
    assert w.data_ptr() == net.fc1.weight.data_ptr()  # detached, same storage (torch's rule)
    kv = net.state_dict(keep_vars=True)
    assert kv["fc1.weight"] is net.fc1.weight
    prefixed = net.fc1.state_dict(prefix="x.")
    assert list(prefixed) == ["x.weight", "x.bias"]
    dest = {}
    assert net.fc1.state_dict(destination=dest) is dest


def test_load_state_dict_round_trip_and_copy_semantics():
    torch.manual_seed(1)
    a, b = Net(), Net()
    b.block[1].running_mean.fill_(3.0)
    w_before = a.fc1.weight
    res = a.load_state_dict(b.state_dict())
    assert res.missing_keys == [] and res.unexpected_keys == []
    assert repr(res) == "<All keys matched successfully>"
    assert a.fc1.weight is w_before  # copied into, not replaced
    for (ka, va), (kb, vb) in zip(a.state_dict().items(), b.state_dict().items()):
        assert ka == kb and np.array_equal(va.numpy(), vb.numpy())
    assert a.fc1.weight.data_ptr() != b.fc1.weight.data_ptr()


def test_load_state_dict_strict_errors_name_keys_and_shapes():
    m = nn.Linear(3, 2)
    bad = {"weight": torch.zeros(2, 4), "extra": torch.zeros(1)}
    with pytest.raises(RuntimeError) as info:
        m.load_state_dict(bad)
    assert str(info.value) == (
        'Error(s) in loading state_dict for Linear:\n'
        '\tMissing key(s) in state_dict: "bias". \n'
        '\tUnexpected key(s) in state_dict: "extra". \n'
        '\tsize mismatch for weight: copying a param with shape torch.Size([2, 4]) from '
        'checkpoint, the shape in current model is torch.Size([2, 3]).')
    s = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2))
    with pytest.raises(RuntimeError) as info:
        s.load_state_dict({"0.weight": torch.zeros(2, 2), "2.bias": torch.zeros(2),
                           "1.running_mean": torch.zeros(3)})
    assert str(info.value) == (
        'Error(s) in loading state_dict for Sequential:\n'
        '\tMissing key(s) in state_dict: "0.bias", "1.weight", "1.bias", "1.running_var". \n'
        '\tUnexpected key(s) in state_dict: "2.bias". \n'
        '\tsize mismatch for 1.running_mean: copying a param with shape torch.Size([3]) from '
        'checkpoint, the shape in current model is torch.Size([2]).')
    with pytest.raises(RuntimeError, match='While copying the parameter named "weight", expected '
                                           'torch.Tensor or Tensor-like object from checkpoint but '
                                           "received <class 'int'>"):
        m.load_state_dict({"weight": 3, "bias": torch.zeros(2)})
    with pytest.raises(TypeError, match="Expected state_dict to be dict-like, got <class 'list'>."):
        m.load_state_dict([1])


def test_load_state_dict_non_strict_reports_keys():
    m = nn.Linear(3, 2)
    res = m.load_state_dict({"weight": torch.ones(2, 3), "junk": torch.zeros(1)}, strict=False)
    assert res.missing_keys == ["bias"] and res.unexpected_keys == ["junk"]
    assert m.weight.tolist() == [[1.0] * 3] * 2
    with pytest.raises(RuntimeError, match="size mismatch for weight"):
        m.load_state_dict({"weight": torch.ones(3, 3)}, strict=False)  # shapes always checked


def test_load_state_dict_assign_and_scalar_and_missing_counter():
    m = nn.Linear(2, 2)
    new_w = torch.full((2, 2), 5.0)
    m.load_state_dict({"weight": new_w, "bias": torch.zeros(2)}, assign=True)
    assert isinstance(m.weight, nn.Parameter) and m.weight.requires_grad
    assert m.weight.data_ptr() == new_w.data_ptr()  # installed, not copied
    bn = nn.BatchNorm1d(2)
    sd = bn.state_dict()
    del sd["num_batches_tracked"]  # older checkpoints lack the counter; torch fills it in
    assert bn.load_state_dict(sd).missing_keys == []
    sd = bn.state_dict()
    sd["num_batches_tracked"] = torch.tensor([7])  # shape [1] into a 0-d buffer is accepted
    bn.load_state_dict(sd)
    assert bn.num_batches_tracked.item() == 7


def test_extra_state_and_state_dict_hooks():
    class WithExtra(nn.Module):
        def __init__(self):
            super().__init__()
            self.n = 3

        def get_extra_state(self):
            return {"n": self.n}

        def set_extra_state(self, state):
            self.n = state["n"]

    a = WithExtra()
    sd = a.state_dict()
    assert sd["_extra_state"] == {"n": 3}
    b = WithExtra()
    b.n = 0
    b.load_state_dict(sd)
    assert b.n == 3
    seen = []
    a.register_state_dict_pre_hook(lambda mod, prefix, keep_vars: seen.append(("pre", prefix)))
    a.register_state_dict_post_hook(lambda mod, sd, prefix, meta: seen.append(("post", list(sd))))
    a.register_load_state_dict_post_hook(lambda mod, keys: seen.append(("load", keys)))
    a.load_state_dict(a.state_dict())
    assert seen[0] == ("pre", "") and seen[1] == ("post", ["_extra_state"])
    assert seen[-1][0] == "load"


# ----- hooks --------------------------------------------------------------------------------------
def test_forward_hooks_order_prepend_kwargs_and_removal():
    calls = []
    lin = nn.Linear(2, 2)

    def pre_a(mod, args):
        calls.append("pre_a")
        return (args[0] * 0,)

    def pre_b(mod, args):
        calls.append("pre_b")

    def post(mod, args, out):
        calls.append("post")
        return out + 1

    ha = lin.register_forward_pre_hook(pre_a)
    lin.register_forward_pre_hook(pre_b, prepend=True)
    hp = lin.register_forward_hook(post)
    y = lin(torch.ones(1, 2))
    assert calls == ["pre_b", "pre_a", "post"]
    assert np.allclose(y.detach().numpy(), lin.bias.detach().numpy() + 1)
    ha.remove()
    hp.remove()
    calls.clear()
    y = lin(torch.ones(1, 2))
    assert calls == ["pre_b"]

    class K(nn.Module):
        def forward(self, x, *, scale=1.0):
            return x * scale

    k = K()
    k.register_forward_pre_hook(lambda m, a, kw: (a, {"scale": kw["scale"] * 10}), with_kwargs=True)
    k.register_forward_hook(lambda m, a, kw, out: out + kw["scale"], with_kwargs=True)
    assert k(torch.ones(1), scale=2.0).item() == 40.0
    k.register_forward_pre_hook(lambda m, a, kw: 3, with_kwargs=True)
    with pytest.raises(RuntimeError, match="forward pre-hook must return None or a tuple of "
                                           r"\(new_args, new_kwargs\), but got 3."):
        k(torch.ones(1), scale=1.0)


def test_always_call_hook_runs_when_forward_raises():
    class Boom(nn.Module):
        def forward(self, x):
            raise ValueError("boom")

    seen = []
    b = Boom()
    b.register_forward_hook(lambda m, a, out: seen.append(out), always_call=True)
    with pytest.raises(ValueError, match="boom"):
        b(1)
    assert seen == [None]


def test_global_forward_hooks_run_first():
    order = []
    lin = nn.Linear(1, 1)
    lin.register_forward_pre_hook(lambda m, a: order.append("local_pre"))
    lin.register_forward_hook(lambda m, a, o: order.append("local_post"))
    h1 = module_mod.register_module_forward_pre_hook(lambda m, a: order.append("global_pre"))
    h2 = module_mod.register_module_forward_hook(lambda m, a, o: order.append("global_post"))
    try:
        lin(torch.ones(1))
    finally:
        h1.remove()
        h2.remove()
    assert order == ["global_pre", "local_pre", "global_post", "local_post"]
    order.clear()
    lin(torch.ones(1))
    assert order == ["local_pre", "local_post"]


def test_global_registration_hooks_see_and_replace_values():
    seen = []

    def on_param(module, name, param):
        seen.append((type(module).__name__, name, tuple(param.shape)))
        return nn.Parameter(torch.full(tuple(param.shape), 7.0))  # replacement value is installed

    def on_buffer(module, name, buf):
        seen.append(("buffer", name))

    def on_module(module, name, sub):
        seen.append(("module", name, type(sub).__name__))

    handles = [module_mod.register_module_parameter_registration_hook(on_param),
               module_mod.register_module_buffer_registration_hook(on_buffer),
               module_mod.register_module_module_registration_hook(on_module)]
    try:
        bn = nn.BatchNorm1d(2)
        seq = nn.Sequential(nn.Linear(2, 3))
    finally:
        for h in handles:
            h.remove()
    assert ("BatchNorm1d", "weight", (2,)) in seen and ("buffer", "running_mean") in seen
    assert ("Linear", "weight", (3, 2)) in seen and ("module", "0", "Linear") in seen
    # init ran on the replacement: the Parameter registered by the hook is what reset_parameters
    # filled (weight ones, bias zeros for BatchNorm; kaiming for Linear)
    assert bn.weight.tolist() == [1.0, 1.0] and bn.bias.tolist() == [0.0, 0.0]
    assert not np.all(seq[0].weight.detach().numpy() == 7.0)
    assert torch.nn.modules.module.register_module_parameter_registration_hook is \
        module_mod.register_module_parameter_registration_hook
    n = len(seen)
    nn.Linear(2, 2)  # hooks removed: nothing recorded
    assert len(seen) == n


# ----- modes, grads, conversion -------------------------------------------------------------------
def test_train_eval_return_self_and_recurse():
    net = Net()
    assert net.eval() is net
    assert all(not m.training for m in net.modules())
    assert net.train() is net and all(m.training for m in net.modules())


def test_train_eval_effect_on_dropout():
    torch.manual_seed(0)
    d = nn.Dropout(p=0.5)
    x = torch.ones(1000)
    y = d(x)
    kept = y.numpy() != 0
    assert np.all(y.numpy()[kept] == 2.0)  # survivors scaled by 1/(1-p)
    # 1000 Bernoulli(0.5) draws: 5 standard errors = 5*sqrt(1000*0.25) ≈ 79
    assert abs(kept.sum() - 500) < 80
    d.eval()
    assert d(x) is x


def test_train_eval_effect_on_batchnorm():
    bn = nn.BatchNorm1d(3, momentum=0.5)
    x = torch.tensor([[1.0, 2.0, 3.0], [3.0, 6.0, 9.0]])
    y = bn(x)
    assert np.allclose(y.detach().numpy(), [[-1, -1, -1], [1, 1, 1]], atol=1e-4)
    # running stats: 0.5*old + 0.5*batch (unbiased variance), counter incremented
    assert np.allclose(bn.running_mean.numpy(), [1.0, 2.0, 3.0])
    assert np.allclose(bn.running_var.numpy(), 0.5 + 0.5 * np.array([2.0, 8.0, 18.0]))
    assert bn.num_batches_tracked.item() == 1
    bn.eval()
    y = bn(x)
    expect = (x.numpy() - bn.running_mean.numpy()) / np.sqrt(bn.running_var.numpy() + 1e-5)
    assert np.allclose(y.detach().numpy(), expect, atol=1e-6)
    assert bn.num_batches_tracked.item() == 1  # eval leaves the statistics alone
    cma = nn.BatchNorm1d(1, momentum=None)  # cumulative moving average
    for v in ([[0.0], [2.0]], [[10.0], [12.0]]):
        cma(torch.tensor(v))
    assert np.allclose(cma.running_mean.numpy(), [(1.0 + 11.0) / 2])
    nostats = nn.BatchNorm1d(2, track_running_stats=False).eval()
    assert nostats.running_mean is None
    y = nostats(torch.tensor([[0.0, 1.0], [2.0, 5.0]]))  # batch stats even in eval
    assert np.allclose(y.detach().numpy(), [[-1, -1], [1, 1]], atol=1e-4)


def test_zero_grad_and_requires_grad():
    lin = nn.Linear(2, 1)
    lin(torch.ones(1, 2)).sum().backward()
    assert lin.weight.grad is not None
    lin.zero_grad(set_to_none=False)
    assert lin.weight.grad.tolist() == [[0.0, 0.0]]
    lin.zero_grad()
    assert lin.weight.grad is None and lin.bias.grad is None
    assert lin.requires_grad_(False) is lin
    assert not any(p.requires_grad for p in lin.parameters())


def test_to_and_dtype_casts_keep_parameter_objects():
    net = Net()
    w = net.fc1.weight
    net.fc1(torch.ones(1, 3)).sum().backward()
    assert net.double() is net
    assert net.fc1.weight is w and w.dtype == torch.float64 and w.grad.dtype == torch.float64
    assert net.steps.dtype == torch.int64  # integer buffers are not cast
    assert net.block[1].num_batches_tracked.dtype == torch.int64
    net.to(torch.float32)
    assert w.dtype == torch.float32 and isinstance(w, nn.Parameter) and w.requires_grad
    net.half()
    assert w.dtype == torch.float16
    net.to("cpu", torch.float32)
    net.to(torch.zeros(1, dtype=torch.float64))
    assert w.dtype == torch.float64
    net.bfloat16().float()
    assert w.dtype == torch.float32
    with pytest.raises(TypeError, match="nn.Module.to only accepts floating point or complex "
                                        "dtypes, but got desired dtype=torch.int64"):
        net.to(torch.int64)


def test_apply_and_deepcopy_and_pickle():
    visited = []
    net = Net()
    assert net.apply(lambda m: visited.append(type(m).__name__)) is net
    assert visited[-1] == "Net" and visited[0] == "Linear"
    twin = copy.deepcopy(net)
    assert isinstance(twin.fc1.weight, nn.Parameter)
    assert twin.fc1.weight.data_ptr() != net.fc1.weight.data_ptr()
    assert np.array_equal(twin.fc1.weight.detach().numpy(), net.fc1.weight.detach().numpy())
    back = pickle.loads(pickle.dumps(net))
    assert isinstance(back.fc1.weight, nn.Parameter) and back.fc1.weight.requires_grad
    x = torch.randn(4, 3)
    net.eval()
    back.eval()
    assert np.allclose(back(x).detach().numpy(), net(x).detach().numpy())


def test_parameter_and_buffer_types():
    p = nn.Parameter(torch.zeros(2))
    assert isinstance(p, torch.Tensor) and p.requires_grad and p.is_leaf
    assert repr(p) == "Parameter containing:\ntensor([0., 0.], requires_grad=True)"
    assert type(p * 2) is torch.Tensor
    with torch.no_grad():
        assert nn.Parameter(torch.zeros(1)).requires_grad  # no_grad does not affect creation
    assert not nn.Parameter(torch.zeros(1), requires_grad=False).requires_grad
    src = torch.arange(3.0)
    assert nn.Parameter(src).data_ptr() == src.data_ptr()  # shares storage, like torch
    assert nn.Parameter().shape == (0,)
    b = nn.Buffer(torch.ones(2), persistent=False)
    assert isinstance(b, nn.Buffer) and not isinstance(torch.ones(2), nn.Buffer)
    assert b.persistent is False and type(b) is torch.Tensor


# ----- repr and containers ------------------------------------------------------------------------
def test_repr_layout_matches_torch():
    net = Net()
    assert repr(net) == (
        "Net(\n"
        "  (fc1): Linear(in_features=3, out_features=4, bias=True)\n"
        "  (act): ReLU()\n"
        "  (block): Sequential(\n"
        "    (0): Linear(in_features=4, out_features=4, bias=True)\n"
        "    (1): BatchNorm1d(4, eps=1e-05, momentum=0.1, affine=True, bias=True, "
        "track_running_stats=True)\n"
        "  )\n"
        "  (fc2): Linear(in_features=4, out_features=2, bias=False)\n"
        ")")

    class WithExtra(nn.Linear):
        def extra_repr(self):
            return "line1\nline2"

    assert repr(WithExtra(1, 1)) == "WithExtra(\n  line1\n  line2\n)"


def test_sequential_behaviour():
    a, b, c = nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 1)
    seq = nn.Sequential(a, b, c)
    assert seq[0] is a and seq[-1] is c and len(seq) == 3
    sub = seq[1:]
    assert isinstance(sub, nn.Sequential) and list(sub._modules) == ["1", "2"]
    named = nn.Sequential(OrderedDict([("lin", a), ("act", b)]))
    assert [n for n, _ in named.named_children()] == ["lin", "act"]
    assert named.lin is a
    seq.append(nn.Sigmoid())
    assert len(seq) == 4 and list(seq._modules)[-1] == "3"
    del seq[1]
    assert list(seq._modules) == ["0", "1", "2"] and seq[1] is c
    seq.insert(1, b)
    assert seq[1] is b
    x = torch.randn(3, 2)
    ref = torch.sigmoid(c(b(a(x))))
    assert np.allclose(seq(x).detach().numpy(), ref.detach().numpy())
    assert len(seq + nn.Sequential(nn.ReLU())) == 5
    with pytest.raises(IndexError, match="index 9 is out of range"):
        seq[9]


def test_module_list_dict_and_parameter_containers():
    ml = nn.ModuleList([nn.Linear(1, 1) for _ in range(3)])
    assert len(ml) == 3 and [n for n, _ in ml.named_parameters()][:2] == ["0.weight", "0.bias"]
    ml.append(nn.ReLU())
    ml.extend([nn.Tanh()])
    assert isinstance(ml[-1], nn.Tanh) and isinstance(ml[1:3], nn.ModuleList)
    assert repr(nn.ModuleList([nn.ReLU(), nn.ReLU()])) == "ModuleList(\n  (0-1): 2 x ReLU()\n)"
    md = nn.ModuleDict({"b": nn.ReLU(), "a": nn.Tanh()})
    assert list(md.keys()) == ["b", "a"] and "a" in md and isinstance(md["a"], nn.Tanh)
    pl = nn.ParameterList([torch.zeros(2), nn.Parameter(torch.ones(1))])
    assert all(isinstance(p, nn.Parameter) for p in pl)
    assert [n for n, _ in pl.named_parameters()] == ["0", "1"]
    pl.append(torch.zeros(3))
    assert len(pl) == 3 and len(list(pl.parameters())) == 3
    pd = nn.ParameterDict({"z": torch.zeros(1), "a": torch.ones(1)})
    assert list(pd.keys()) == ["a", "z"]  # a plain dict is inserted sorted, like torch
    assert isinstance(pd["a"], nn.Parameter)
    with pytest.raises(RuntimeError, match="ParameterList should not be called."):
        pl(1)
