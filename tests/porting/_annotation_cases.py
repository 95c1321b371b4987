"""cstorch's naming and annotation helpers, observed the same way on both stacks.

Run as a script in a fresh interpreter (the backend is a process-wide singleton and decorators
applied before it exists behave differently): ``python _annotation_cases.py real`` uses
``cerebras.pytorch`` and ``torch``; ``... ours`` uses minitorch_cs. Prints one JSON document.
"""
import json
import sys
import warnings


def _error(fn):
    try:
        fn()
    except Exception as e:  # the failure is the observation
        return [type(e).__name__, str(e).splitlines()[0]]
    return None


def run(cstorch, torch):
    out = {"warnings": []}
    warnings.simplefilter("always")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out["pol_default"] = cstorch.current_pol()

        def name_scope_no_backend():
            with cstorch.name_scope("a"):
                pass
        out["name_scope_no_backend"] = _error(name_scope_no_backend)

        @cstorch.pol(level=2)
        def early():
            return cstorch.current_pol()
        out["decorated_before_backend"] = early()
        cstorch.backend("CPU")

        @cstorch.pol(level=2, bwd_level=0)
        def two():
            return cstorch.current_pol()

        @cstorch.pol(level=0)
        def zero():
            return cstorch.current_pol()

        @cstorch.pol(level=2)
        def outer():
            return [cstorch.current_pol(), zero(), cstorch.current_pol()]

        @cstorch.pol()
        def unset():
            return cstorch.current_pol()

        @cstorch.pol(level=2, enable_fwd=False)
        def fwd_off():
            return cstorch.current_pol()

        @cstorch.device_annotation("wafer")
        def placed(x):
            return x + 1
        out["pol"] = [two(), outer(), unset(), fwd_off(), cstorch.current_pol()]
        out["wraps"] = [two.__name__, placed.__name__]
        out["device_annotation_value"] = placed(torch.ones(2)).tolist()
        out["errors"] = [_error(lambda: cstorch.pol(level=3)),
                         _error(lambda: cstorch.pol(bwd_level=-1)),
                         _error(lambda: cstorch.device_annotation("gpu"))]
        with cstorch.name_scope("block"):
            out["inside_name_scope"] = (torch.ones(2) * 3).tolist()
        cstorch.set_debug_scope("xyz")
        cstorch.set_debug_scope(None)
        model = torch.nn.Sequential(torch.nn.Linear(2, 2),
                                    torch.nn.Sequential(torch.nn.ReLU(), torch.nn.Tanh()))
        names = [cstorch.get_debug_name(model), cstorch.get_debug_name(model[1][0])]
        cstorch.add_debug_name(model, "root")
        names += [cstorch.get_debug_name(m) for m in model.modules()]
        cstorch.add_debug_name(model)
        names += [cstorch.get_debug_name(m) for m in model.modules()]
        out["debug_names"] = names
        cstorch.backends.csx.precision.optimization_level = 2
        out["pol_from_flag"] = cstorch.current_pol()
    out["warnings"] = [[w.category.__name__, str(w.message)] for w in caught
                       if "GenericAnnotationMode" in str(w.message)]
    return out


if __name__ == "__main__":
    if sys.argv[1] == "real":
        import cerebras.pytorch as cstorch
        import torch
    else:
        import minitorch_cs as cstorch
        import minitorch_cs.torch as torch
    print(json.dumps(run(cstorch, torch), indent=1, sort_keys=True))
