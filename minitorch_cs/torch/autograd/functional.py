"""``torch.autograd.functional``: Jacobians, Hessians and their products with vectors, built
on ``autograd.grad`` (PyTorch 2.13's signatures, output structures and errors).

Rules, as torch's module defines them:

* ``inputs`` is a Tensor or a tuple of Tensors; every result mirrors it (a Tensor for a Tensor,
  a tuple for a tuple), and a Jacobian is nested (outputs, then inputs) when both are tuples.
* Each input is replaced by a fresh tensor before ``func`` runs (a view of it when
  ``create_graph`` and it requires grad, else a detached copy that requires grad), so ``func``
  differentiates with respect to what it receives, never to a tensor it captured.
* An output independent of an input gives zeros (``strict=False``) or torch's RuntimeError
  (``strict=True``); results are detached unless ``create_graph``.
* ``jvp`` and ``hvp`` use the double-backward trick (the gradient of a vector-Jacobian product
  with respect to its cotangent), as torch's do.
* ``vectorize=True`` gives the same values as the row-by-row loop (there is no vmap here: the
  rows are computed one by one); ``strategy="forward-mode"`` (which torch accepts only with
  ``vectorize=True``) computes the columns with the double-backward trick, in the outputs'
  dtype as torch's forward mode does.
"""
from __future__ import annotations

from .._autograd import enable_grad, is_grad_enabled, set_grad_enabled
from .._tensor import Tensor
from .._dispatch import OPS, apply


def stack(tensors, dim):
    """``torch.stack`` of same-shaped, same-dtype rows (the Jacobian's), through the op registry
    (the tensor core names ops, it never imports the functional layer)."""
    nd = tensors[0].ndim + 1
    return apply(OPS["stack"], *tensors, dim=dim % nd)

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]


# ----- argument handling ---------------------------------------------------------------------------
def _tupled(x, arg_name=None, fn_name=None):
    """(was it a tuple, the tuple): ``x`` as a tuple of tensors, checked as torch checks it."""
    if arg_name is None:
        return isinstance(x, tuple), (x if isinstance(x, tuple) else
                                      tuple(x) if isinstance(x, list) else (x,))
    was = isinstance(x, tuple)
    items = x if was else (x,)
    for i, el in enumerate(items):
        if not isinstance(el, Tensor):
            where = f"the value at index {i}" if was else f"the given {arg_name}"
            raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a "
                            f"tuple of Tensors but {where} has type {type(el)}.")
    return was, items


def _untuple(res, to_unpack):
    """The result in the structure of the arguments (one flag, or (outputs, inputs) flags)."""
    if isinstance(to_unpack, tuple):
        outer, inner = to_unpack
        if not inner:
            res = tuple(el[0] for el in res)
        if not outer:
            res = res[0]
        return res
    return res if to_unpack else res[0]


def _fresh(inputs, create_graph, need_graph):
    """New tensor objects for the inputs (torch's ``_grad_preprocess``)."""
    out = []
    for t in inputs:
        if create_graph and t.requires_grad:
            out.append(t.view_as(t))
        else:
            out.append(t.detach().requires_grad_(need_graph))
    return tuple(out)


def _finish(values, create_graph):
    """Detach results unless the caller asked for a graph (nested tuples included)."""
    if values and isinstance(values[0], Tensor):
        return values if create_graph else tuple(v.detach() for v in values)
    return tuple(_finish(v, create_graph) for v in values)


def _check_v(v, other, other_is_tuple):
    if len(other) != len(v):
        if other_is_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(other)} but "
                               f"got {len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for i, (a, b) in enumerate(zip(v, other)):
        if tuple(a.shape) != tuple(b.shape):
            where = f"Entry {i} in " if other_is_tuple else ""
            raise RuntimeError(f"{where}v has invalid size: should be {b.size()} but got "
                               f"{a.size()}.")


def _strict_check(values, kind, strict):
    """torch's strict-mode errors for outputs or gradients that carry no graph."""
    if not strict:
        return
    for i, t in enumerate(values):
        if t is None:
            raise RuntimeError(f"The output of the user-provided function is independent of "
                               f"input {i}. This is not allowed in strict mode.")
        if t.requires_grad:
            continue
        if kind == "hessian":
            raise RuntimeError(
                f"The hessian of the user-provided function with respect to input {i} is "
                "independent of the input. This is not allowed in strict mode. You should "
                "ensure that your function is thrice differentiable and that the hessian "
                "depends on the inputs.")
        if kind == "jacobian":
            raise RuntimeError(
                "While computing the hessian, found that the jacobian of the user-provided "
                f"function with respect to input {i} is independent of the input. This is not "
                "allowed in strict mode. You should ensure that your function is twice "
                "differentiable and that the jacobian depends on the inputs (this would be "
                "violated by a linear function for example).")
        if kind == "grad_inputs":
            raise RuntimeError(
                f"The gradient with respect to input {i} is independent of the inputs of the "
                "user-provided function. This is not allowed in strict mode.")
        raise RuntimeError(
            f"Output {i} of the user-provided function does not require gradients. The outputs "
            "must be computed in a differentiable manner from the input when running in "
            "strict mode.")


def _grad(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None):
    """``autograd.grad`` over the outputs that require grad (None for each input when none
    does), unused inputs giving None."""
    from . import grad
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    outs, gos = [], []
    for o, g in zip(outputs, grad_outputs):
        if o is not None and o.requires_grad:
            outs.append(o)
            gos.append(g)
    if not outs:
        return (None,) * len(inputs)
    return grad(outs, inputs, gos, allow_unused=True, create_graph=create_graph,
                retain_graph=retain_graph)


_ZERO_MESSAGES = {
    "back": "The output of the user-provided function is independent of input {i}. This is "
            "not allowed in strict mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the "
                  "grad_outputs when using the double backward trick to compute forward mode "
                  "gradients. This is not allowed in strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. "
                   "This is not allowed in strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry "
                         "{i} in the grad_jacobian. This is not allowed in strict mode as it "
                         "prevents from using the double backward trick to replace forward "
                         "mode AD.",
}


def _zeros_for_none(grads, refs, strict, create_graph, stage):
    """Zeros where a gradient is None (or torch's strict-mode error)."""
    from .._creation import zeros_like
    res = []
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise RuntimeError(_ZERO_MESSAGES[stage].format(i=i))
            g = zeros_like(refs[i])
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(f"The {what} of the user-provided function is independent of "
                               f"input {i}. This is not allowed in strict mode when "
                               "create_graph=True.")
        res.append(g)
    return tuple(res)


def _outputs_of(func, inputs, fn_name, strict):
    was, outputs = _tupled(func(*inputs), "outputs of the user-provided function", fn_name)
    _strict_check(outputs, "outputs", strict)
    return was, outputs


def _prepare_v(v, refs, refs_are_tuple, create_graph, fn_name, none_message):
    if v is None:
        if len(refs) != 1 or refs[0].numel() != 1:
            raise RuntimeError(none_message)
        return None
    _, v = _tupled(v, "v", fn_name)
    v = _fresh(v, create_graph, need_graph=False)
    _check_v(v, refs, refs_are_tuple)
    return v


# ----- public functions ----------------------------------------------------------------------------
def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """``v^T J`` of ``func`` at ``inputs``: returns ``(func_output, vjp)``, the vjp shaped like
    the inputs. ``v`` may be omitted when ``func`` returns a single one-element tensor."""
    with enable_grad():
        in_tuple, inputs = _tupled(inputs, "inputs", "vjp")
        inputs = _fresh(inputs, create_graph, need_graph=True)
        out_tuple, outputs = _outputs_of(func, inputs, "vjp", strict)
        v = _prepare_v(v, outputs, out_tuple, create_graph, "vjp",
                       "The vector v can only be None if the user-provided function returns a "
                       "single Tensor with a single element.")
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        res = _grad(outputs, inputs, v, create_graph=create_graph)
        res = _zeros_for_none(res, inputs, strict, create_graph, "back")
    return (_untuple(_finish(outputs, create_graph), out_tuple),
            _untuple(_finish(res, create_graph), in_tuple))


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """``J v`` of ``func`` at ``inputs`` (the double-backward trick): returns
    ``(func_output, jvp)``, the jvp shaped like the outputs."""
    from .._creation import zeros_like
    with enable_grad():
        in_tuple, inputs = _tupled(inputs, "inputs", "jvp")
        inputs = _fresh(inputs, create_graph, need_graph=True)
        v = _prepare_v(v, inputs, in_tuple, create_graph, "jvp",
                       "The vector v can only be None if the input to the user-provided "
                       "function is a single Tensor with a single element.")
        out_tuple, outputs = _outputs_of(func, inputs, "jvp", strict)
        # the vjp is linear in its cotangent: any finite value works, zeros as torch uses
        cot = tuple(zeros_like(o, requires_grad=True) for o in outputs)
        grad_inputs = _grad(outputs, inputs, cot, create_graph=True)
        _strict_check(grad_inputs, "grad_inputs", strict)
    with set_grad_enabled(True) if create_graph else _nothing():
        res = _grad(grad_inputs, cot, v, create_graph=create_graph)
        res = _zeros_for_none(res, outputs, strict, create_graph, "back_trick")
    return (_untuple(_finish(outputs, create_graph), out_tuple),
            _untuple(_finish(res, create_graph), out_tuple))


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False,
             strategy="reverse-mode"):
    """The Jacobian of ``func`` at ``inputs``: a tensor of shape ``output.shape +
    input.shape`` for one output and one input, a tuple when one of them is a tuple, a tuple
    of tuples (``[output][input]``) when both are."""
    return _jacobian(func, inputs, create_graph, strict, vectorize, strategy, False)


def _jacobian(func, inputs, create_graph, strict, vectorize, strategy, hessian_fwd):
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode". '
                             'Hint: If your function has more outputs than inputs, '
                             '"forward-mode" tends to be more performant. Otherwise, prefer to '
                             'use "reverse-mode".')
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError(
                "torch.autograd.functional.jacobian: `create_graph=True` and "
                '`strategy="forward-mode"` are not supported together (yet). Please either set '
                '`create_graph=False` or `strategy="reverse-mode"`.')
        return _jacobian_forward(func, inputs, strict, vectorize, keep_graph=hessian_fwd)
    from .._creation import zeros_like
    with enable_grad():
        in_tuple, inputs = _tupled(inputs, "inputs", "jacobian")
        inputs = _fresh(inputs, create_graph, need_graph=True)
        out_tuple, outputs = _outputs_of(func, inputs, "jacobian", strict)
        if vectorize and strict:
            raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and "
                               "`vectorized=True` are not supported together. Please either set "
                               "`strict=False` or `vectorize=False`.")
        jac = []
        for i, out in enumerate(outputs):
            rows = [[] for _ in inputs]
            flat = out.reshape(-1)
            for k in range(out.numel()):
                vj = _grad((flat[k],), inputs, retain_graph=True, create_graph=create_graph)
                for j, (g, inp) in enumerate(zip(vj, inputs)):
                    if g is not None:
                        if strict and create_graph and not g.requires_grad:
                            raise RuntimeError(
                                "The jacobian of the user-provided function is independent of "
                                f"input {i}. This is not allowed in strict mode when "
                                "create_graph=True.")
                        rows[j].append(g)
                    else:
                        if strict:
                            raise RuntimeError(
                                f"Output {i} of the user-provided function is independent of "
                                f"input {j}. This is not allowed in strict mode.")
                        rows[j].append(zeros_like(inp))
            jac.append(tuple(stack(r, 0).view(tuple(out.shape) + tuple(inp.shape))
                             for r, inp in zip(rows, inputs)))
        jac = _finish(tuple(jac), create_graph)
        return _untuple(jac, (out_tuple, in_tuple))


def _jacobian_forward(func, inputs, strict, vectorize, keep_graph=False):
    """The forward-mode Jacobian (columns ``J e_k``), torch's checks and dtype rule.

    torch's forward mode neither detaches its results nor copies the inputs: a Jacobian keeps
    a graph when an input requires grad, or (the Hessian's outer Jacobian, ``keep_graph``) when
    the function marks its inputs as requiring grad. Here the columns are double-backward
    products, recorded in those two cases (not for a tensor requiring grad that ``func``
    captured: SPEC.md, Autograd)."""
    if strict:
        raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and "
                           '`strategy="forward-mode"` are not supported together (yet). Please '
                           'either set `strict=False` or `strategy="reverse-mode"`.')
    in_tuple, inputs = _tupled(inputs, "inputs", "jacobian")
    if not vectorize:
        raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-reverse "
                                  "Hessian isonly implemented for `vectorize=True`.")
    from .._creation import zeros, zeros_like
    graph = keep_graph or any(t.requires_grad for t in inputs)
    outputs_info = None
    cols = None  # [output][input] -> list of columns
    for j, inp in enumerate(inputs):
        n = inp.numel()
        for k in range(n):
            basis = []
            for jj, other in enumerate(inputs):
                e = zeros(other.numel(), dtype=other.dtype)
                if jj == j:
                    e[k] = 1
                basis.append(e.view(tuple(other.shape)))
            outs, col = jvp(func, tuple(inputs), tuple(basis), create_graph=graph)
            out_tuple = isinstance(outs, tuple)
            outs = outs if out_tuple else (outs,)
            col = col if isinstance(col, tuple) else (col,)
            if outputs_info is None:
                outputs_info = (out_tuple, outs)
                cols = [[[] for _ in inputs] for _ in outs]
            for i, c in enumerate(col):
                cols[i][j].append(c)
    if outputs_info is None:  # every input is empty
        out_tuple, raw = _tupled(func(*inputs))
        outs = tuple(o.detach() for o in raw)
        cols = [[[] for _ in inputs] for _ in outs]
        outputs_info = (out_tuple, outs)
    out_tuple, outs = outputs_info
    jac = []
    for i, out in enumerate(outs):
        row = []
        for j, inp in enumerate(inputs):
            shape = tuple(out.shape) + tuple(inp.shape)
            if cols[i][j]:
                m = stack(cols[i][j], -1).reshape(shape)
            else:
                m = zeros_like(out).reshape(tuple(out.shape) + (0,)).reshape(shape)
            row.append(m.to(out.dtype))
        jac.append(tuple(row))
    return _untuple(tuple(jac), (out_tuple, in_tuple))


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False,
            outer_jacobian_strategy="reverse-mode"):
    """The Hessian of a scalar ``func`` at ``inputs``: a tensor of shape ``input.shape * 2``
    for one input, a tuple of tuples (``[i][j]``) for a tuple of inputs."""
    in_tuple, inputs = _tupled(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def scalar_func(*inp):
        out = func(*inp)
        was, outs = _tupled(out, "outputs of the user-provided function", "hessian")
        _strict_check(outs, "outputs", strict)
        if was or not isinstance(out, Tensor):
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out.numel() != 1:
            raise RuntimeError("The Tensor returned by the function given to hessian should "
                               "contain a single element")
        return out.squeeze()

    def gradient(*inp):
        if outer_jacobian_strategy == "forward-mode":
            inp = tuple(t.requires_grad_(True) for t in inp)
        jac = jacobian(scalar_func, inp, create_graph=True)
        _strict_check(jac, "jacobian", strict)
        return jac

    res = _jacobian(gradient, inputs, create_graph, strict, vectorize, outer_jacobian_strategy,
                    outer_jacobian_strategy == "forward-mode")
    return _untuple(res, (in_tuple, in_tuple))


def _scalar_outputs(func, inputs, fn_name, strict):
    out_tuple, outputs = _outputs_of(func, inputs, fn_name, strict)
    if out_tuple or not isinstance(outputs[0], Tensor):
        raise RuntimeError(f"The function given to {fn_name} should return a single Tensor")
    if outputs[0].numel() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {fn_name} should "
                           "contain a single element")
    return out_tuple, outputs


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """``v^T H`` of a scalar ``func`` at ``inputs``: returns ``(func_output, vhp)``."""
    with enable_grad():
        in_tuple, inputs = _tupled(inputs, "inputs", "vhp")
        inputs = _fresh(inputs, create_graph, need_graph=True)
        v = _prepare_v(v, inputs, in_tuple, create_graph, "vhp",
                       "The vector v can only be None if the input to the user-provided "
                       "function is a single Tensor with a single element.")
        out_tuple, outputs = _scalar_outputs(func, inputs, "vhp", strict)
        jac = _grad(outputs, inputs, create_graph=True)
        _strict_check(jac, "jacobian", strict)
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        res = _grad(jac, inputs, v, create_graph=create_graph)
        res = _zeros_for_none(res, inputs, strict, create_graph, "double_back")
    return (_untuple(_finish(outputs, create_graph), out_tuple),
            _untuple(_finish(res, create_graph), in_tuple))


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """``H v`` of a scalar ``func`` at ``inputs`` (the double-backward trick, as torch's):
    returns ``(func_output, hvp)``."""
    from .._creation import zeros_like
    with enable_grad():
        in_tuple, inputs = _tupled(inputs, "inputs", "hvp")
        inputs = _fresh(inputs, create_graph, need_graph=True)
        v = _prepare_v(v, inputs, in_tuple, create_graph, "hvp",
                       "The vector v can only be None if the input to the user-provided "
                       "function is a single Tensor with a single element.")
        out_tuple, outputs = _scalar_outputs(func, inputs, "hvp", strict)
        jac = _grad(outputs, inputs, create_graph=True)
        _strict_check(jac, "jacobian", strict)
        cot = tuple(zeros_like(t, requires_grad=True) for t in inputs)
        double_back = _grad(jac, inputs, cot, create_graph=True)
        _strict_check(jac, "hessian", strict)
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        res = _grad(double_back, cot, v, create_graph=create_graph)
        res = _zeros_for_none(res, inputs, strict, create_graph, "double_back_trick")
    return (_untuple(_finish(outputs, create_graph), out_tuple),
            _untuple(_finish(res, create_graph), in_tuple))
