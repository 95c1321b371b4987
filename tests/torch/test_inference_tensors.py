"""Inference tensors (torch 2.13): memory made in ``inference_mode`` is an inference tensor
(``is_inference()``; views of it are too, a view made there of an ordinary tensor is not). Outside
inference mode it refuses in-place updates, being saved for backward and ``requires_grad``, and
it has no version counter; ``clone()`` gives an ordinary tensor. Swept against torch."""
from __future__ import annotations

import pytest

import minitorch_cs.torch as mt


def _table(T):
    out = {}
    def t(name, f):
        try:
            r = f()
            if hasattr(r, 'is_inference'):
                out[name] = f'ok inf={r.is_inference()} rg={r.requires_grad} {r.tolist()}'
            else:
                out[name] = 'ok ' + repr(r)
        except Exception as e:
            out[name] = type(e).__name__ + ': ' + str(e).splitlines()[0][:160]
    def inf(f):
        with T.inference_mode():
            return f()
    rg = lambda: T.ones(2, requires_grad=True)
    t('factory inside', lambda: inf(lambda: T.zeros(2)))
    t('op inside', lambda: inf(lambda: T.ones(2) * 2))
    t('op on inf outside', lambda: inf(lambda: T.ones(2)) * 2)
    t('view of inf outside', lambda: inf(lambda: T.ones(2))[0:1])
    t('view inside of normal', lambda: (lambda x: inf(lambda: x[0:1]))(T.ones(2)))
    t('inplace inf outside', lambda: inf(lambda: T.ones(2)).add_(1))
    t('inplace inf inside', lambda: inf(lambda: T.ones(2).add_(1)))
    t('inplace normal inside', lambda: (lambda x: inf(lambda: x.add_(1)))(T.ones(2)))
    t('inf + rg (not saved)', lambda: inf(lambda: T.ones(2)) + rg())
    t('inf * rg (saved)', lambda: inf(lambda: T.ones(2)) * rg())
    t('rg * inf (saved)', lambda: rg() * inf(lambda: T.ones(2)))
    t('exp of inf', lambda: inf(lambda: T.ones(2)).exp())
    t('requires_grad_ outside', lambda: inf(lambda: T.ones(2)).requires_grad_())
    t('requires_grad_ inside', lambda: inf(lambda: T.ones(2).requires_grad_()))
    t('version', lambda: inf(lambda: T.ones(2))._version)
    t('clone outside', lambda: inf(lambda: T.ones(2)).clone())
    t('detach outside', lambda: inf(lambda: T.ones(2)).detach())
    t('detach inplace', lambda: inf(lambda: T.ones(2)).detach().add_(1))
    def nested():
        with T.inference_mode():
            with T.inference_mode(False):
                return T.ones(2)
    t('inference_mode(False) factory', nested)
    t('is_inference normal', lambda: T.ones(2).is_inference())
    t('setitem outside', lambda: (lambda x: x.__setitem__(0, 5.0))(inf(lambda: T.ones(2))))
    t('copy_ outside', lambda: inf(lambda: T.ones(2)).copy_(T.zeros(2)))
    t('inf in linear with rg weight', lambda: T.nn.functional.linear(inf(lambda: T.ones(1, 2)), T.ones(3, 2, requires_grad=True)))
    def no_grad_inplace():
        x = inf(lambda: T.ones(2))
        with T.no_grad():
            return x.add_(1)
    t('no_grad inplace inf', no_grad_inplace)
    t('tensor() inside', lambda: inf(lambda: T.tensor([1.0, 2.0])))
    t('from list arange inside', lambda: inf(lambda: T.arange(3.0)))
    return out


def test_inference_tensors_match_torch():
    real = pytest.importorskip("torch")
    want, got = _table(real), _table(mt)
    assert want == got


def test_without_torch():
    with mt.inference_mode():
        x = mt.ones(2)
        v = x[:1]
    assert x.is_inference() and v.is_inference() and not x.clone().is_inference()
    with pytest.raises(RuntimeError, match="Inplace update to inference tensor outside "
                                           "InferenceMode is not allowed"):
        x.add_(1)
    with pytest.raises(RuntimeError, match="Inference tensors cannot be saved for backward"):
        x * mt.ones(2, requires_grad=True)
    assert (x + mt.ones(2, requires_grad=True)).requires_grad  # (add saves neither operand)
