"""``torch.autograd.gradcheck`` / ``gradgradcheck``: analytical gradients against central finite
differences, with PyTorch 2.13's signatures, checks, defaults and messages.

The procedure is torch's (its ``torch/autograd/gradcheck.py``), for real strided tensors:

* ``_check_inputs``: a UserWarning for an input that requires grad and is not float64; a
  RuntimeError for a stride-0 dimension; ValueError when no input requires grad.
* slow mode (``fast_mode=False``): the numerical Jacobian perturbs one element of one input at a
  time by ``±eps`` in place (as torch perturbs ``.data``: no version change, no graph) and takes
  ``(f(x + eps) - f(x - eps)) / (2 eps)`` in the output's dtype; the analytical Jacobian is built
  row by row with ``autograd.grad`` and one-hot ``grad_outputs``, twice (the two must agree within
  ``nondet_tol``: "Backward is not reentrant"); each pair must satisfy
  ``|a - n| <= atol + rtol * |n|`` (``allclose``), else ``GradcheckError`` ("Jacobian mismatch for
  output i with respect to input j").
* fast mode: one random unit vector ``u`` per input and ``v`` per output (from a fresh
  ``torch.Generator()``); ``v^T J u`` analytically and numerically, with ``atol`` scaled by
  ``sum(u) * sum(v)``; on failure the message adds the slow-mode Jacobians.
* then: zero ``grad_outputs`` must give zero gradients of the inputs' dtype and size ("backward
  not multiplied by grad_output"), and ``check_undefined_grad``: outputs left without a gradient
  must give zero or no input gradients.
* ``raise_exception=False`` returns False instead of raising ``GradcheckError`` (other errors
  still raise).
* ``gradgradcheck`` runs ``gradcheck`` on the function ``(inputs, grad_outputs) -> grads`` built
  with ``autograd.grad(..., create_graph=True)``; ``grad_outputs`` default to uniform values in
  ``[-1, 1)`` requiring grad (``gen_non_contig_grad_outputs``: non-contiguous ones).

Deliberate differences (SPEC.md, Autograd): there is no forward-mode AD and no ``vmap`` here, so
``check_forward_ad``, ``check_batched_grad``, ``check_batched_forward_grad`` and
``check_fwd_over_rev`` set to True raise NotImplementedError; complex and sparse inputs do not
exist here. An undefined output gradient is what this engine passes as no gradient (zeros where
a node needs a value), so ``check_undefined_grad`` checks that leaving an output out gives zero
input gradients. The random vectors of fast mode and the default ``grad_outputs`` come from this
package's generator, not torch's stream.
"""
from __future__ import annotations

import numpy as np

from .._tensor import Tensor

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """Error raised by :func:`gradcheck` and :func:`gradgradcheck` (torch's class name)."""


# ----- small helpers -------------------------------------------------------------------------------
def _as_tuple(x):
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    return (x,)


def _differentiable_outputs(x):
    return tuple(o for o in _as_tuple(x) if o.requires_grad)


def _is_float(t) -> bool:
    return isinstance(t, Tensor) and t.dtype.is_floating_point


def _diff_inputs(inputs):
    return [(i, t) for i, t in enumerate(inputs) if isinstance(t, Tensor) and t.requires_grad]


def _wrap(arr):
    return Tensor._wrap(np.array(arr, copy=True, order="C"))


def _grad(outputs, inputs, grad_outputs, **kw):
    from . import grad
    return grad(outputs, inputs, grad_outputs, **kw)


def _warn(message):
    from .._fpe import warn_user
    warn_user(message)


def _check_inputs(tupled_inputs) -> None:
    any_requires_grad = False
    for idx, inp in enumerate(tupled_inputs):
        if isinstance(inp, Tensor) and inp.requires_grad:
            if inp.dtype.np != np.float64:
                _warn(f"Input #{idx} requires gradient and is not a double precision floating "
                      "point or complex. This check will likely fail if all the inputs are not "
                      "of double precision floating point or complex. ")
            if not all(st > 0 or sz <= 1 for st, sz in zip(inp.stride(), inp.shape)):
                raise RuntimeError(
                    f"The {idx}th input has a dimension with stride 0. gradcheck only supports "
                    "inputs that are non-overlapping to be able to compute the numerical "
                    "gradients correctly. You should call .contiguous on the input before "
                    "passing it to gradcheck.")
            any_requires_grad = True
    if not any_requires_grad:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but "
                         "none of them have requires_grad=True.")


def _check_same_dtype_and_shape(a, b, eps, idx=None) -> None:
    on_index = f"on index {idx} " if idx is not None else ""
    if a.shape != b.shape:
        raise AssertionError(f"Expected `func` to return outputs with the same shape when inputs "
                             f"are perturbed {on_index}by {eps}, but got: shapes {a.shape} and "
                             f"{b.shape}.")
    if a.dtype != b.dtype:
        raise AssertionError(f"Expected `func` to return outputs with the same dtype when inputs "
                             f"are perturbed {on_index}by {eps}, but got: dtypes {a.dtype} and "
                             f"{b.dtype}.")


def _outputs_now(func, inputs):
    """``func``'s outputs, copied (torch clones them: a later perturbation cannot reach them)."""
    return tuple(o.clone() for o in _as_tuple(func(*inputs)))


def _central(func, inputs, data, where, delta, eps, idx=None):
    """Per floating output, ``(f(x + delta) - f(x - delta)) / (2 eps)`` flattened, ``delta``
    applied to ``data[where]`` in place and undone."""
    orig = np.array(data[where], copy=True)
    data[where] = orig - delta
    outa = _outputs_now(func, inputs)
    data[where] = orig + delta
    outb = _outputs_now(func, inputs)
    data[where] = orig
    res = []
    for a, b in zip(outa, outb):
        _check_same_dtype_and_shape(a, b, eps, idx)
        if not _is_float(a):
            continue
        res.append(((b._data - a._data) / (2 * eps)).reshape(-1))
    return res


# ----- slow mode -----------------------------------------------------------------------------------
def _numerical_jacobian(func, inputs, func_out, eps):
    """[diff input][floating output] -> array (input numel, output numel), output dtype."""
    outs = [o for o in _as_tuple(func_out) if _is_float(o)]
    jacobians = []
    for _, inp in _diff_inputs(inputs):
        data = inp._data
        cols = [np.zeros((data.size, o.numel()), o._data.dtype) for o in outs]
        for d_idx, x_idx in enumerate(np.ndindex(*data.shape)):
            for col, c in zip(cols, _central(func, inputs, data, x_idx, eps, eps, x_idx)):
                col[d_idx] = c
        jacobians.append(cols)
    return jacobians


def _analytical_jacobian(inputs, output, nondet_tol, check_grad_dtypes):
    """[diff input] -> array (input numel, output numel) in the input's dtype, with torch's
    reentrancy, size and dtype checks."""
    diff = [t for _, t in _diff_inputs(inputs)]
    n_out = output.numel()

    def build():
        jac = [np.zeros((t.numel(), n_out), t._data.dtype) for t in diff]
        sizes_ok = types_ok = True
        go = np.zeros(tuple(output.shape), output._data.dtype)
        flat = go.reshape(-1)
        for j in range(n_out):
            flat[:] = 0
            flat[j] = 1
            grads = _grad((output,), diff, (_wrap(go),), retain_graph=True, allow_unused=True)
            for k, (g, t) in enumerate(zip(grads, diff)):
                if g is None:
                    continue
                if tuple(g.shape) != tuple(t.shape):
                    sizes_ok = False
                elif g.dtype != t.dtype:
                    types_ok = False
                jac[k][:, j] = g._data.reshape(-1)
        return jac, sizes_ok, types_ok

    jac1, sizes_ok, types_ok = build()
    jac2, _, _ = build()
    reentrant = all(a.size == 0 or np.max(np.abs(a - b)) <= nondet_tol
                    for a, b in zip(jac1, jac2))
    if not types_ok and check_grad_dtypes:
        raise GradcheckError("Gradient has dtype mismatch")
    if not sizes_ok:
        raise GradcheckError("Analytical gradient has incorrect size")
    if not reentrant:
        raise GradcheckError(
            "Backward is not reentrant, i.e., running backward with same input and grad_output "
            "multiple times gives different values, although analytical gradient matches "
            f"numerical gradient.The tolerance for nondeterminism was {nondet_tol}." + _NONDET)
    return jac1


_NONDET = """\n
NOTE: If your op relies on non-deterministic operations i.e., it is listed here:
https://pytorch.org/docs/stable/generated/torch.use_deterministic_algorithms.html
this failure might be expected.

If you are adding a new operator, please file an issue and then use one of the
workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck.
If the test
- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck
  with `nondet_tol=<tol>` as a keyword argument.
- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test
  to have `gradcheck_nondet_tol=<tol>`.
- is a Module test (e.g., in common_nn.py), then modify the corresponding
  module_test entry to have `gradcheck_nondet_tol=<tol>`
"""


def _allclose(a, n, rtol, atol) -> bool:
    """``torch.allclose`` after promoting both to their common dtype."""
    dt = np.result_type(a.dtype, n.dtype)
    a, n = np.asarray(a, dt), np.asarray(n, dt)
    with np.errstate(invalid="ignore", over="ignore"):
        return bool(np.allclose(a, n, rtol=rtol, atol=atol, equal_nan=False))


def _mismatch(analytical, numerical, output_idx, input_idx) -> str:
    return (f"Jacobian mismatch for output {output_idx:d} with respect to input {input_idx:d},\n"
            f"numerical:{_wrap(numerical)}\nanalytical:{_wrap(analytical)}\n")


def _slow_gradcheck(func, func_out, inputs, outputs, eps, rtol, atol, check_grad_dtypes,
                    nondet_tol):
    if not outputs:
        for per_input in _numerical_jacobian(func, inputs, func_out, eps):
            for jac in per_input:
                if np.any(jac != 0):
                    raise GradcheckError("Numerical gradient for function expected to be zero")
        return True
    numerical = _numerical_jacobian(func, inputs, func_out, eps)
    # per output (the floating outputs that require grad), per input
    floats = [o for o in _as_tuple(func_out) if _is_float(o)]
    by_output = [[per_input[k] for per_input in numerical]
                 for k, o in enumerate(floats) if o.requires_grad]
    for i, o in enumerate(outputs):
        analytical = _analytical_jacobian(inputs, o, nondet_tol, check_grad_dtypes)
        for j, (a, n) in enumerate(zip(analytical, by_output[i])):
            if not _allclose(a, n, rtol, atol):
                raise GradcheckError(_mismatch(a, n, i, j))
    return True


# ----- fast mode -----------------------------------------------------------------------------------
def _unit_vector(numel, dtype, generator):
    from .._creation import rand
    v = rand(numel, generator=generator)._data.astype(dtype.np)
    with np.errstate(invalid="ignore", divide="ignore"):
        return v / np.sqrt(np.sum(v.astype(np.float64) ** 2)).astype(v.dtype)


def _make_vectors(inp_tensors, outputs):
    from .._random import Generator
    g = Generator()
    all_u = [_unit_vector(t.numel(), t.dtype, g) for t in inp_tensors]
    all_v = [_unit_vector(o.numel(), o.dtype, g) for o in outputs]
    return all_v, all_u


def _numerical_vJu(func, inputs, func_out, all_u, all_v, eps):
    """[diff input][output] -> ``v^T (J u)`` numerically (all_v None: the ``J u`` vectors)."""
    res = []
    for (_, inp), u in zip(_diff_inputs(inputs), all_u):
        data = inp._data
        delta = (u.reshape(data.shape) * eps).astype(data.dtype)
        jus = _central(func, inputs, data, Ellipsis, delta, eps)
        if all_v is None:
            res.append(jus)
        else:
            res.append([np.sum(v * ju) for v, ju in zip(all_v, jus)])
    return res


def _analytical_vJu(inputs, outputs, nondet_tol, check_grad_dtypes, all_v, all_u):
    """[output][diff input] -> ``(v^T J) u`` with the reentrancy and size checks."""
    diff = [t for _, t in _diff_inputs(inputs)]
    res = []
    for o, v in zip(outputs, all_v):
        go = _wrap(v.reshape(tuple(o.shape)))
        runs = []
        for _ in range(2):
            grads = _grad((o,), diff, (go,), retain_graph=True, allow_unused=True)
            runs.append([np.zeros(t.numel(), t._data.dtype) if g is None else
                         g._data.reshape(-1).astype(t._data.dtype) for g, t in zip(grads, diff)])
            for g, t in zip(grads, diff):
                if g is not None and tuple(g.shape) != tuple(t.shape):
                    raise GradcheckError("Analytical gradient has incorrect size")
                if g is not None and g.dtype != t.dtype and check_grad_dtypes:
                    raise GradcheckError("Gradient has dtype mismatch")
        if not all(a.size == 0 or np.max(np.abs(a - b)) <= nondet_tol
                   for a, b in zip(*runs)):
            raise GradcheckError(
                "Backward is not reentrant, i.e., running backward with same input and "
                "grad_output multiple times gives different values, although analytical "
                "gradient matches numerical gradient.The tolerance for nondeterminism was "
                f"{nondet_tol}." + _NONDET)
        res.append([np.sum(vj * u) for vj, u in zip(runs[0], all_u)])
    return res


_FAST_FAIL_SLOW_OK = """
Fast gradcheck failed but element-wise differences are small. This means that the
test might've passed in slow_mode!

If you are adding a new operator, please file an issue and then use one of the
workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck:

If the test
- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck
  with `fast_mode=False` as a keyword argument.
- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test
  to have `gradcheck_fast_mode=False`
- is a Module test (e.g., in common_nn.py), then modify the corresponding
  module_test entry to have `gradcheck_fast_mode=False`
""".strip()


def _slow_mode_report(func, inputs, func_out, outputs, input_idx, output_idx, rtol, atol, eps):
    num = _numerical_jacobian(func, inputs, func_out, eps)[input_idx][output_idx]
    ana = _analytical_jacobian(inputs, outputs[output_idx], float("inf"), False)[input_idx]
    diff = np.max(np.abs(num - ana)) if num.size else np.float64(0)
    msg = ("\nThe above quantities relating the numerical and analytical jacobians are computed "
           "\nin fast mode. See: https://github.com/pytorch/pytorch/issues/53876 for more "
           "background \nabout fast mode. Below, we recompute numerical and analytical "
           "jacobians in slow mode:\n\n"
           f"Numerical:\n {_wrap(num)}\nAnalytical:\n{_wrap(ana)}\n\n"
           f"The max per-element difference (slow mode) is: {_wrap(np.asarray(diff))}.\n")
    if _allclose(ana, num, rtol, atol):
        msg += _FAST_FAIL_SLOW_OK
    return msg


def _fast_gradcheck(func, func_out, inputs, outputs, eps, rtol, atol, check_grad_dtypes,
                    nondet_tol):
    diff = [t for _, t in _diff_inputs(inputs)]
    all_v, all_u = _make_vectors(diff, outputs)
    if not outputs:
        for jus in _numerical_vJu(func, inputs, func_out, all_u, None, eps):
            for ju in jus:
                if ju.size and np.max(np.abs(ju)) > nondet_tol:
                    raise GradcheckError("Numerical gradient for function expected to be zero")
        return True
    numerical = _numerical_vJu(func, inputs, func_out, all_u, all_v, eps)
    analytical = _analytical_vJu(inputs, outputs, nondet_tol, check_grad_dtypes, all_v, all_u)
    for i, per_input in enumerate(numerical):
        for j, n in enumerate(per_input):
            a = analytical[j][i]
            tol = atol * float(np.sum(all_u[i])) * float(np.sum(all_v[j]))
            if not _allclose(np.asarray(a), np.asarray(n), rtol, tol):
                raise GradcheckError(
                    f"Jacobian mismatch for output {j:d} with respect to input {i:d},\n"
                    f"numerical:{float(n)}\nanalytical:{float(a)}\n"
                    + _slow_mode_report(func, inputs, func_out, outputs, i, j, rtol, atol, eps))
    return True


# ----- the checks after the Jacobians --------------------------------------------------------------
def _zeros_like_outputs(outputs):
    return tuple(_wrap(np.zeros(tuple(o.shape), o._data.dtype)) for o in outputs)


def _test_backward_mul_by_grad_output(outputs, inputs) -> None:
    diff = [t for _, t in _diff_inputs(inputs)]
    if not diff:
        raise GradcheckError("no Tensors requiring grad found in input")
    grads = _grad(outputs, diff, _zeros_like_outputs(outputs), allow_unused=True)
    for gi, di in zip(grads, diff):
        if gi is None:
            continue
        if np.any(gi._data != 0):
            raise GradcheckError("backward not multiplied by grad_output")
        if gi.dtype != di.dtype:
            raise GradcheckError("grad is incorrect type")
        if tuple(gi.shape) != tuple(di.shape):
            raise GradcheckError("grad is incorrect size")


def _test_undefined_backward_mode(func, outputs, inputs) -> None:
    diff = [t for _, t in _diff_inputs(inputs)]
    if not diff:
        raise GradcheckError("no Tensors requiring grad found in input")

    def bc_warning():
        _warn("Backwards compatibility: New undefined gradient support checking feature is "
              "enabled by default, but it may break existing callers of this function. If this "
              'is true for you, you can call this function with "check_undefined_grad=False" '
              "to disable the feature")

    # all outputs undefined: no gradient reaches the inputs (nothing to run); with several
    # outputs, each one left undefined in turn: the others with zero gradients
    if len(outputs) < 2:
        return
    for undef in range(len(outputs)):
        fresh = _differentiable_outputs(func(*inputs))
        keep = tuple(o for k, o in enumerate(fresh) if k != undef)
        if not keep:
            continue
        try:
            grads = _grad(keep, diff, _zeros_like_outputs(keep), allow_unused=True)
        except RuntimeError as e:
            bc_warning()
            raise GradcheckError('Expected backward function to handle undefined output grads. '
                                 'Please look at "Notes about undefined output gradients" in '
                                 '"tools/autograd/derivatives.yaml"') from e
        for gi in grads:
            if gi is not None and np.any(gi._data != 0):
                bc_warning()
                raise GradcheckError(
                    "Expected all input grads to be undefined or zero when all output grads "
                    'are undefined or zero. Please look at "Notes about undefined output '
                    'gradients" in "tools/autograd/derivatives.yaml"')


def _unsupported(flag):
    raise NotImplementedError(f"{flag}=True: this implementation has no forward-mode AD and no "
                              f"vmap, so it cannot run this check; pass {flag}=False.")


# ----- public functions ----------------------------------------------------------------------------
def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
              nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False,
              check_batched_grad=False, check_batched_forward_grad=False, check_forward_ad=False,
              check_backward_ad=True, fast_mode=False, masked=None):
    """Check the gradients of ``func`` at ``inputs`` (float64 tensors that require grad)
    against central finite differences; True when they match, else ``GradcheckError`` (or
    False with ``raise_exception=False``)."""
    if not (check_forward_ad or check_backward_ad):
        raise AssertionError("Expected at least one of check_forward_ad or check_backward_ad to "
                             "be True")
    if check_batched_grad and not check_backward_ad:
        raise AssertionError("Setting check_batched_grad=True requires check_backward_ad to be "
                             "True")
    if check_batched_forward_grad and not check_forward_ad:
        raise AssertionError("Setting check_batched_forward_grad=True requires check_forward_ad "
                             "to be True")
    for flag, on in (("check_forward_ad", check_forward_ad),
                     ("check_batched_grad", check_batched_grad),
                     ("check_batched_forward_grad", check_batched_forward_grad)):
        if on:
            _unsupported(flag)
    try:
        return _gradcheck_helper(func, inputs, eps, atol, rtol, nondet_tol, check_undefined_grad,
                                 check_grad_dtypes, fast_mode)
    except GradcheckError:
        if raise_exception:
            raise
        return False


def _gradcheck_helper(func, inputs, eps, atol, rtol, nondet_tol, check_undefined_grad,
                      check_grad_dtypes, fast_mode):
    tupled_inputs = _as_tuple(inputs)
    _check_inputs(tupled_inputs)
    func_out = func(*tupled_inputs)
    outputs = _differentiable_outputs(func_out)
    check = _fast_gradcheck if fast_mode else _slow_gradcheck
    check(func, func_out, tupled_inputs, outputs, eps, rtol, atol, check_grad_dtypes,
          nondet_tol)
    _test_backward_mul_by_grad_output(outputs, tupled_inputs)
    if check_undefined_grad:
        _test_undefined_backward_mode(func, outputs, tupled_inputs)
    return True


def _random_grad_output(shape, dtype, noncontiguous):
    """torch.testing.make_tensor's uniform values in [-1, 1), requiring grad."""
    from .._creation import empty
    shape = tuple(shape)
    n = int(np.prod(shape, dtype=np.int64))
    if noncontiguous and n > 1:
        t = empty(shape[:-1] + (2 * shape[-1],), dtype=dtype).uniform_(-1, 1)[..., ::2]
    else:
        t = empty(shape, dtype=dtype).uniform_(-1, 1)
    return t.detach().requires_grad_(True)


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
                  check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
                  check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False,
                  masked=False):
    """Check the second derivatives of ``func``: :func:`gradcheck` of the gradient that
    ``autograd.grad(..., create_graph=True)`` records, w.r.t. the inputs and the
    ``grad_outputs``."""
    if not (check_fwd_over_rev or check_rev_over_rev):
        raise AssertionError("Expected at least one of check_fwd_over_rev or check_rev_over_rev "
                             "to be True")
    if check_undefined_grad and not check_rev_over_rev:
        raise AssertionError("Setting check_undefined_grad=True requires check_rev_over_rev to "
                             "be True")
    if check_batched_grad and not check_rev_over_rev:
        raise AssertionError("Setting check_batched_grad=True requires check_rev_over_rev to be "
                             "True")
    if check_fwd_over_rev:
        _unsupported("check_fwd_over_rev")
    tupled_inputs = _as_tuple(inputs)
    if grad_outputs is None:
        from .. import _dtype as D
        outputs = _differentiable_outputs(func(*tupled_inputs))
        tupled_grad_outputs = tuple(
            _random_grad_output(o.shape, o.dtype if o.dtype.is_floating_point else D.float64,
                                gen_non_contig_grad_outputs) for o in outputs)
    else:
        tupled_grad_outputs = _as_tuple(grad_outputs)
    num_outputs = len(tupled_grad_outputs)
    diff_input_idx = {i for i, x in enumerate(tupled_inputs)
                      if isinstance(x, Tensor) and x.requires_grad}
    diff_grad_output_idx = {i for i, x in enumerate(tupled_grad_outputs) if x.requires_grad}

    def new_func(*args):
        input_args = tuple(x.requires_grad_() if i in diff_input_idx else x
                           for i, x in enumerate(args[:-num_outputs]))
        outputs = _differentiable_outputs(func(*input_args))
        grad_outs = tuple(x.requires_grad_() if i in diff_grad_output_idx else x
                          for i, x in enumerate(args[-num_outputs:]))
        diff_args = tuple(x for i, x in enumerate(input_args) if i in diff_input_idx)
        grads = _grad(outputs, diff_args, grad_outs, create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(new_func, tupled_inputs + tupled_grad_outputs, eps=eps, atol=atol,
                     rtol=rtol, raise_exception=raise_exception, nondet_tol=nondet_tol,
                     check_undefined_grad=check_undefined_grad,
                     check_grad_dtypes=check_grad_dtypes, check_batched_grad=check_batched_grad,
                     fast_mode=fast_mode, check_forward_ad=check_fwd_over_rev,
                     check_backward_ad=check_rev_over_rev, masked=masked)
