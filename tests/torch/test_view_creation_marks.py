"""Views torch will not let an in-place change record gradients through: a view made in no_grad
mode, an output of split/chunk/unbind, and views made of those (torch's view creation marks).
Swept against torch 2.13 over how the view is made, whether its base requires grad, the grad
mode it is made in, and what changes in place afterwards (the view itself, its base or another
view; with or without an operand that requires grad); then used."""
from __future__ import annotations

import pytest

import minitorch_cs.torch as mt
from tests.torch._sweeps import assert_same_as_torch, outcomes

_MAKERS = {
    "slice": lambda x: (x[:2], x[2:]),
    "split": lambda x: x.split(2),
    "unbind": lambda x: x.view(2, 2).unbind(),
    "chunk": lambda x: x.chunk(2),
    "view": lambda x: (x.view(2, 2), x.view(4)),
}
_CHANGES = ("view", "view_rg", "base", "base_rg", "other_view_rg")


def _show(r):
    return f"requires_grad={r.requires_grad} leaf={r.is_leaf}" if hasattr(r, "is_leaf") else repr(r)


def _table(T):
    def no_grad(f):
        with T.no_grad():
            return f()

    def rg():
        return T.tensor(0.5, requires_grad=True)

    calls = {}
    for name, make in _MAKERS.items():
        for base_rg in (False, True):
            for made in ("grad", "no_grad"):
                for change in _CHANGES:
                    def call(make=make, base_rg=base_rg, made=made, change=change):
                        b = T.zeros(4, requires_grad=True).clone() if base_rg else T.zeros(4)
                        p, q = make(b) if made == "grad" else no_grad(lambda: make(b))
                        if change == "view":
                            return p.add_(1)
                        if change == "view_rg":
                            return p.add_(rg())
                        if change == "base":
                            b.add_(1)
                        elif change == "base_rg":
                            b.add_(rg())
                        else:
                            q.add_(rg())
                        return p * 2
                    calls[f"{name} base_rg={base_rg} made in {made}, change {change}"] = call

    def leaf():
        return T.zeros(4, requires_grad=True)

    def backward_through(b):
        w = no_grad(lambda: b[:2])
        (w * 2).sum().backward()
        return (w.grad, b.grad)

    def split_of_marked():
        p, _ = no_grad(lambda: leaf()[:4]).split(2)
        return p.add_(1)

    def changed_then_used_no_grad():
        w = no_grad(lambda: leaf()[:2])
        no_grad(lambda: w.add_(1))
        return no_grad(lambda: w * 2)

    def multi_base_changed_no_grad():
        a = leaf().clone()
        p, _ = a.split(2)
        no_grad(lambda: a.add_(1))
        return p * 2

    def plain_view_base_changed_no_grad():
        a = leaf().clone()
        p = a[:2]
        no_grad(lambda: a.add_(1))
        return p * 2

    def view_of_marked_base_changed():
        b = leaf()
        r = no_grad(lambda: b[:2])[0]
        no_grad(lambda: b.add_(1))
        return r * 2

    def transposed_made_after_change():
        b = leaf()
        w = no_grad(lambda: b[:2])
        no_grad(lambda: b.add_(1))
        return w.transpose(0, 0)

    calls.update({
        "made in no_grad: requires grad": lambda: no_grad(lambda: leaf()[:2]),
        "made in no_grad: sum": lambda: no_grad(lambda: leaf().view(2, 2)).sum(),
        "made in no_grad: backward reaches nothing": lambda: backward_through(leaf()),
        "view of it, view op, add_": lambda: no_grad(lambda: leaf()[:2]).view(2, 1).add_(1),
        "view of it, select, add_": lambda: no_grad(lambda: leaf()[:2])[0].add_(1),
        "view of it, both in no_grad": lambda: no_grad(lambda: no_grad(
            lambda: leaf()[:2])[0:1]).add_(1),
        "view of it, transpose, mul_ rg": lambda: no_grad(
            lambda: leaf()[:2]).transpose(0, 0).mul_(rg()),
        "view of it, base requires no grad": lambda: no_grad(
            lambda: T.zeros(4)[:2]).view(2, 1).add_(rg()),
        "split of it": split_of_marked,
        "detach of it": lambda: no_grad(lambda: leaf()[:2]).detach().add_(1),
        "t() made in no_grad": lambda: no_grad(lambda: T.zeros(2, 3).t()).add_(rg()),
        "changed, then used in no_grad": changed_then_used_no_grad,
        "multi, base changed in no_grad": multi_base_changed_no_grad,
        "plain view, base changed in no_grad": plain_view_base_changed_no_grad,
        "view of it, base changed": view_of_marked_base_changed,
        "view made after the change": transposed_made_after_change,
        "chunk, in place": lambda: leaf().clone().chunk(2)[1].mul_(2),
    })
    return outcomes(calls, show=_show)


def test_creation_marks_match_torch():
    assert_same_as_torch(_table, mt)


def _custom_function_table(T):
    def function(name, forward, backward):
        return type(name, (T.autograd.Function,),
                    {"forward": staticmethod(forward), "backward": staticmethod(backward)})

    view_as = function("Id", lambda ctx, x: x.view_as(x), lambda ctx, g: g)
    same = function("Same", lambda ctx, x: x, lambda ctx, g: g)
    halves = function("Id2", lambda ctx, x: (x[:2], x[2:]), lambda ctx, a, b: T.cat([a, b]))
    mixed = function("Mixed", lambda ctx, x: (x[:2], x * 2), lambda ctx, a, b: T.cat([a, a]))

    def mk():
        return T.zeros(4, requires_grad=True).clone()

    def base_changed(fn):
        x = mk()
        y = fn.apply(x)
        y = y[0] if isinstance(y, tuple) else y
        x.add_(1)
        return y * 2

    def leaf_input():
        return view_as.apply(T.zeros(4, requires_grad=True)).add_(1)

    def grad_through_same():
        x = T.arange(4.0, requires_grad=True)
        y = same.apply(x * 1)
        (y * y).sum().backward()
        return x.grad

    def shares_storage():
        x = mk()
        y = view_as.apply(x)
        with T.no_grad():
            x.add_(1)
        return y.detach()

    calls = {
        "view out": lambda: view_as.apply(mk()),
        "view in place": lambda: view_as.apply(mk()).add_(1),
        "input returned": lambda: same.apply(mk()),
        "input returned, in place": lambda: same.apply(mk()).add_(1),
        "two views, in place": lambda: halves.apply(mk())[0].add_(1),
        "view and non-view, view in place": lambda: mixed.apply(mk())[0].add_(1),
        "view and non-view, non-view in place": lambda: mixed.apply(mk())[1].add_(1),
        "base changed": lambda: base_changed(view_as),
        "base changed, two views": lambda: base_changed(halves),
        "input without grad": lambda: view_as.apply(T.zeros(4)).add_(1),
        "leaf input": leaf_input,
        "gradient through the input returned": grad_through_same,
        "shares storage": shares_storage,
    }
    return outcomes(calls, show=lambda r: f"view={r._base is not None} "
                    f"requires_grad={r.requires_grad} {r.tolist()}")


def test_custom_function_views_match_torch():
    """A custom Function's output that is a view of an input (or the input itself) stays a view
    sharing its version counter, and refuses an in-place change that records gradients."""
    assert_same_as_torch(_custom_function_table, mt)


def test_without_torch():
    # the rules, on their own: a view made in no_grad mode refuses an in-place change that
    # records gradients, directly and after its base changed
    b = mt.zeros(4, requires_grad=True)
    with mt.no_grad():
        w = b[:2]
    assert w.requires_grad and w.is_leaf
    y = (w * 2).sum()
    y.backward()
    assert w.grad is None and b.grad is None
    with pytest.raises(RuntimeError, match="A view was created in no_grad mode and is being "
                                           "modified inplace with grad mode enabled"):
        w.add_(1)
    with mt.no_grad():
        b.add_(1)
    with pytest.raises(RuntimeError, match="its base or another view of its base has been "
                                           "modified inplace"):
        w * 2
    c = mt.zeros(4)
    p, _ = c.split(2)
    with pytest.raises(RuntimeError, match="This view is the output of a function that returns "
                                           "multiple views"):
        p.add_(mt.tensor(1.0, requires_grad=True))


def _views_before_requires_grad(T):
    def made_before():
        v1 = T.ones(4)
        v2 = v1[:2]
        v1.requires_grad_()
        y = v2 * 2
        y.sum().backward()
        return (v2.requires_grad, y.requires_grad, v2.is_leaf, v1.grad)

    def in_place_after():
        v1 = T.ones(4)
        v2 = v1[:2]
        v1.requires_grad_()
        return v2.add_(1)

    def made_after():
        v1 = T.ones(4)
        v1[:2]
        v1.requires_grad_()
        (v1[1:] * 2).sum().backward()
        return v1.grad

    def pooled():
        v1 = T.full((1, 2, 6, 3), 0.5)
        v2 = v1.view(-1).view(1, 2, 6, 3)
        v1.requires_grad_()
        return T.nn.functional.max_pool2d(v2, kernel_size=2, stride=2).requires_grad

    return outcomes({"made before": made_before, "in place after": in_place_after,
                     "made after": made_after, "pooled": pooled}, show=repr)


def test_views_made_before_their_base_requires_grad():
    """A view made before ``base.requires_grad_()`` then requires grad as a leaf whose gradient
    reaches nothing (torch 2.13); in place it is a view of a leaf that requires grad."""
    assert_same_as_torch(_views_before_requires_grad, mt)
