"""Test helpers: value comparison with array-api-tests style messages, and a gradient check.

``assert_close`` reports ``got X, but should be Y [call]``; ``gradcheck`` compares the analytic
gradient (backward seeded with a *random cotangent*) with float64 central differences along a
*random projection* (HIPS/autograd ``check_grads``), one scalar per input; ``gradgradcheck``
does the same one order up: the derivatives of the recorded gradient (``create_graph=True``)
against central differences of the first-order gradient.
"""
from __future__ import annotations

import functools

import numpy as np

__all__ = ["to_numpy", "assert_close", "gradcheck", "gradgradcheck", "GradcheckError",
           "describe", "has_avx512", "ours_and_torch", "outcome", "dtype_and_values",
           "train_on_backend"]


@functools.cache
def has_avx512() -> bool:
    """Whether this CPU has AVX-512 (oneDNN, under PyTorch, picks its kernels by instruction
    set; some measured torch rules hold only where they were measured)."""
    try:
        with open("/proc/cpuinfo") as f:
            return "avx512f" in f.read().split()
    except OSError:
        return False


def outcome(run, read, message=False):
    """``read(run())``, or the class name of the exception ``run`` raises: what a sweep compares
    between torch and ours (the same value, or an error of the same class; ``message``: and the
    first line of its message)."""
    try:
        result = run()
    except Exception as e:  # noqa: BLE001 (the class is the outcome)
        return f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}" if message \
            else type(e).__name__
    return read(result)


def dtype_and_values(t):
    """A tensor of either library as a sweep compares it: its dtype's name and its values
    (float64)."""
    return str(t.dtype).replace("torch.", ""), np.array(t.double().tolist())


def ours_and_torch():
    """Our torch namespace, then PyTorch's when it is installed: the same call checked on both
    (a pinned expectation stays torch's where the oracle is available)."""
    from minitorch_cs import torch as ours
    try:
        import torch as real
    except ImportError:
        return [ours]
    return [ours, real]


def to_numpy(x):
    """An ndarray from one of our tensors, a torch tensor, an ndarray or a Python scalar."""
    if hasattr(x, "detach") and hasattr(x, "numpy"):
        x = x.detach()
        if str(getattr(x, "dtype", "")) == "torch.bfloat16":
            x = x.float()
        return np.asarray(x.numpy())
    return np.asarray(x)


def describe(name, *arrays, **kw):
    """``name(shape, shape, k=v)`` for failure messages."""
    parts = [f"{tuple(np.shape(a))}" for a in arrays]
    parts += [f"{k}={v!r}" for k, v in kw.items()]
    return f"{name}({', '.join(parts)})"


def assert_close(got, expected, *, rtol=1e-7, atol=1e-10, call="", check_dtype=None,
                 equal_nan=True):
    """Assert ``got`` equals ``expected`` in shape and (to tolerance) value.

    ``check_dtype`` (a numpy dtype or a name) also checks ``got``'s dtype. Messages read
    ``got out.shape=(2,), but should be (3,) [call]`` or ``got out[1, 0]=0.5, but should be 0.25
    (|diff|=0.25, ...) [call]``.
    """
    __tracebackhide__ = True
    g, e = to_numpy(got), to_numpy(expected)
    if check_dtype is not None:
        want = np.dtype(check_dtype)
        assert g.dtype == want, f"got out.dtype={g.dtype}, but should be {want} [{call}]"
    assert g.shape == e.shape, f"got out.shape={g.shape}, but should be {e.shape} [{call}]"
    if g.size == 0:
        return
    if g.dtype.kind in "biu" and e.dtype.kind in "biu":
        bad = g != e
    else:
        g64, e64 = g.astype(np.float64), e.astype(np.float64)
        with np.errstate(invalid="ignore"):
            close = np.isclose(g64, e64, rtol=rtol, atol=atol, equal_nan=equal_nan)
        bad = ~close
    if np.any(bad):
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        where = f"out[{', '.join(map(str, idx))}]" if idx else "out"
        gv, ev = g[idx], e[idx]
        n = int(np.sum(bad))
        extra = ""
        if g.dtype.kind == "f" or e.dtype.kind == "f":
            d = np.abs(g.astype(np.float64) - e.astype(np.float64))
            extra = f" (|diff|={float(np.nanmax(np.where(bad, d, 0))):.3g} max, "
            extra += f"rtol={rtol}, atol={atol}; {n} of {g.size} elements differ)"
        else:
            extra = f" ({n} of {g.size} elements differ)"
        raise AssertionError(f"got {where}={gv!r}, but should be {ev!r}{extra} [{call}]")


class GradcheckError(AssertionError):
    pass


def _outputs(out):
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    return [o for o in outs if hasattr(o, "requires_grad") and o.dtype.is_floating_point]


def _dot(us, outs):
    return float(sum(np.sum(u * to_numpy(o)) for u, o in zip(us, outs)))


def gradcheck(fn, *inputs, name=None, T=None, eps=1e-6, rtol=1e-5, atol=1e-8, seed=0):
    """Check the gradients of ``fn(*tensors)`` w.r.t. every input against central differences.

    ``inputs`` are float64 ndarrays (their strides are kept, so non-contiguous arrays give
    non-contiguous leaves). ``fn`` returns a tensor or a tuple of tensors; its floating outputs
    are seeded with random cotangents ``u``. For each input ``x_i`` and a random direction
    ``v_i``, the analytic ``<v_i, dL/dx_i>`` must match
    ``(<u, f(x_i + eps v_i)> - <u, f(x_i - eps v_i)>) / (2 eps)``, where
    ``atol`` is scaled by the magnitude of ``<|u|, |f|>`` (round-off of the difference).
    On failure the message names the op, shapes, and analytic vs numeric values (per element for
    small inputs).
    """
    __tracebackhide__ = True
    if T is None:
        from minitorch_cs import torch as T
    name = name or getattr(fn, "__name__", "fn")
    rng = np.random.default_rng(seed)
    xs = [np.asarray(x, dtype=np.float64) if not isinstance(x, np.ndarray) or x.dtype != np.float64
          else x for x in inputs]
    leaves = [T.from_numpy(x).requires_grad_(True) for x in xs]
    all_outs = _outputs(fn(*leaves))
    # only outputs in the graph are differentiated (e.g. not batch_norm's running statistics)
    keep = [k for k, o in enumerate(all_outs) if o.requires_grad]
    outs = [all_outs[k] for k in keep]
    if not outs:
        raise GradcheckError(f"{name}{tuple(x.shape for x in xs)}: no floating-point output "
                             "requires grad")
    us = [rng.standard_normal(tuple(o.shape)) for o in outs]
    T.autograd.backward(outs, [T.from_numpy(u.astype(to_numpy(o).dtype)) for u, o in zip(us, outs)])
    shapes = [tuple(x.shape) for x in xs]

    def f_at(i, x_i):
        args = [T.from_numpy(np.asarray(x_i) if j == i else xs[j]) for j in range(len(xs))]
        with T.no_grad():
            res = _outputs(fn(*args))
        return [res[k] for k in keep]

    for i, (x, leaf) in enumerate(zip(xs, leaves)):
        g = leaf.grad
        g = np.zeros(x.shape) if g is None else to_numpy(g)
        if g.shape != x.shape:
            raise GradcheckError(f"{name}{shapes}: grad of input {i} has shape {g.shape}, but "
                                 f"should be {x.shape}")
        if x.size == 0:
            continue
        v = rng.standard_normal(x.shape)
        analytic = float(np.sum(v * g))
        fp, fm = f_at(i, x + eps * v), f_at(i, x - eps * v)
        numeric = (_dot(us, fp) - _dot(us, fm)) / (2 * eps)
        scale = sum(float(np.sum(np.abs(u * to_numpy(o)))) for u, o in zip(us, fp)) + 1.0
        tol = atol * scale + rtol * max(abs(analytic), abs(numeric))
        if not np.isfinite(analytic) or abs(analytic - numeric) > tol:
            detail = ""
            if x.size <= 64:  # per-element gradients make small failures easy to read
                num = np.zeros(x.size)
                for j in range(x.size):
                    e = np.zeros(x.size)
                    e[j] = eps
                    e = e.reshape(x.shape)
                    num[j] = (_dot(us, f_at(i, x + e)) - _dot(us, f_at(i, x - e))) / (2 * eps)
                detail = (f"\n  analytic grad: {np.array2string(g.ravel(), precision=6)}"
                          f"\n  numeric grad:  {np.array2string(num, precision=6)}")
            raise GradcheckError(
                f"gradcheck failed for {name} w.r.t. input {i} (input shapes {shapes}, output "
                f"shapes {[tuple(o.shape) for o in outs]}): analytic <v, grad> = {analytic:.10g}, "
                f"numeric = {numeric:.10g} (tol {tol:.3g}){detail}")


def gradgradcheck(fn, *inputs, name=None, T=None, eps=1e-6, rtol=1e-5, atol=1e-8, seed=0):
    """Check second derivatives of ``fn(*tensors)``: differentiate the gradient that
    ``autograd.grad(..., create_graph=True)`` records and compare with central differences of
    the first-order gradient.

    With random cotangents ``u`` for the floating outputs (themselves requiring grad, as torch's
    gradgradcheck does) and random weights ``w_i`` for the gradients, ``F(x, u) = sum_i <w_i,
    dL/dx_i>`` where ``L = <u, f(x)>``. Backward through the recorded gradient gives ``dF/dx_j``
    and ``dF/du_k``; each must match, along a random direction, the central difference of ``F``
    evaluated by first-order backward at perturbed inputs (or cotangents). Returns the number of
    directions checked.
    """
    __tracebackhide__ = True
    if T is None:
        from minitorch_cs import torch as T
    name = name or getattr(fn, "__name__", "fn")
    rng = np.random.default_rng(seed)
    xs = [np.asarray(x, dtype=np.float64) if not isinstance(x, np.ndarray) or x.dtype != np.float64
          else x for x in inputs]
    leaves = [T.from_numpy(x).requires_grad_(True) for x in xs]
    all_outs = _outputs(fn(*leaves))
    keep = [k for k, o in enumerate(all_outs) if o.requires_grad]
    outs = [all_outs[k] for k in keep]
    if not outs:
        raise GradcheckError(f"{name}: no floating-point output requires grad")
    us = [rng.standard_normal(tuple(o.shape)) for o in outs]
    u_leaves = [T.from_numpy(u.copy()).requires_grad_(True) for u in us]
    ws = [rng.standard_normal(x.shape) for x in xs]
    grads = T.autograd.grad(outs, leaves, u_leaves, create_graph=True, allow_unused=True)
    F = None
    for g, w in zip(grads, ws):
        if g is None or not g.requires_grad:
            continue
        term = (g * T.from_numpy(w)).sum()
        F = term if F is None else F + term
    wrt = leaves + u_leaves
    if F is None:
        second = [None] * len(wrt)
    else:
        second = T.autograd.grad(F, wrt, allow_unused=True)
    second = [np.zeros(v.shape) if s is None else to_numpy(s) for s, v in zip(second, wrt)]

    def F_at(xs_, us_):
        ls = [T.from_numpy(np.asarray(x)).requires_grad_(True) for x in xs_]
        res = _outputs(fn(*ls))
        o = [res[k] for k in keep]
        gs = T.autograd.grad(o, ls, [T.from_numpy(np.asarray(u)) for u in us_], allow_unused=True)
        return float(sum(np.sum(w * to_numpy(g)) for g, w in zip(gs, ws) if g is not None))

    base_scale = abs(F_at(xs, us)) + 1.0
    checked = 0
    for j, arr in enumerate(xs + us):
        if arr.size == 0:
            continue
        v = rng.standard_normal(arr.shape)
        analytic = float(np.sum(v * second[j]))
        if j < len(xs):
            plus = [x + eps * v if k == j else x for k, x in enumerate(xs)]
            minus = [x - eps * v if k == j else x for k, x in enumerate(xs)]
            numeric = (F_at(plus, us) - F_at(minus, us)) / (2 * eps)
            what = f"input {j}"
        else:
            k = j - len(xs)
            plus = [u + eps * v if i == k else u for i, u in enumerate(us)]
            minus = [u - eps * v if i == k else u for i, u in enumerate(us)]
            numeric = (F_at(xs, plus) - F_at(xs, minus)) / (2 * eps)
            what = f"grad_output {k}"
        tol = atol * base_scale + rtol * max(abs(analytic), abs(numeric))
        if not np.isfinite(analytic) or abs(analytic - numeric) > tol:
            raise GradcheckError(
                f"gradgradcheck failed for {name} w.r.t. {what} (input shapes "
                f"{[tuple(x.shape) for x in xs]}): analytic second derivative along a random "
                f"direction = {analytic:.10g}, numeric = {numeric:.10g} (tol {tol:.3g})")
        checked += 1
    return checked


def train_on_backend(kind, tmp_path, build, batches, steps, momentum=0.0):
    """The training loop a cstorch user writes, on the ``kind`` backend ("CPU" or "CSX"): the
    model ``build()`` makes on the backend's device, compiled; SGD (lr 0.1, ``momentum``); a
    traced step minimizing the cross-entropy of the model's output for a batch's leading
    tensors against its last; a step closure keeping the losses; a DataExecutor over
    ``batches`` for ``steps`` steps. Returns the losses, the parameters' values after the
    steps, and how many times the step's Python body ran (the emulated wafer traces it once
    and replays it)."""
    import importlib

    import minitorch_cs as cstorch
    import minitorch_cs.torch as mt
    importlib.import_module("minitorch_cs.backend")._reset_for_tests()
    cstorch.backends.reset()
    backend = cstorch.backend(kind, artifact_dir=tmp_path / kind)
    mt.manual_seed(0)
    with backend.device:
        model = build()
    compiled = cstorch.compile(model, backend)
    opt = cstorch.optim.SGD(model.parameters(), lr=0.1, momentum=momentum)
    losses, runs = [], [0]

    @cstorch.step_closure
    def keep(loss):
        losses.append(loss.item())

    @cstorch.trace
    def step(*batch):
        runs[0] += 1
        loss = mt.nn.functional.cross_entropy(compiled(*batch[:-1]), batch[-1])
        loss.backward()
        opt.step()
        opt.zero_grad()
        keep(loss)
        return loss

    loader = cstorch.utils.data.DataLoader(lambda: batches)
    for batch in cstorch.utils.data.DataExecutor(loader, num_steps=steps):
        step(*batch)
    return losses, [p.detach().cpu().numpy().copy() for p in model.parameters()], runs[0]
