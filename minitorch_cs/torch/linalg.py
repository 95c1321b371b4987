"""``torch.linalg``: the norms (``vector_norm``, ``matrix_norm``, ``norm``), ``svdvals`` and
``cross``.

Each follows torch 2.13's argument checks, dtype rules (floating inputs only; ``dtype=`` must
widen, never narrow) and composition (see ``_functions/linalg_norms.py``), so values, gradients
and errors match.
"""

from ._functions.linalg import _linalg_cross
from ._functions.linalg_norms import matrix_norm, norm, svdvals, vector_norm
from ._ops import linalg as L

__all__ = ["vector_norm", "matrix_norm", "norm", "svdvals", "cross"]
_NO_OUT = {"cross"}  # (no out= here)

LinAlgError = L._LinAlgError  # (torch.linalg.LinAlgError: torch._C._LinAlgError, a RuntimeError)


def cross(input, other, *, dim=-1):
    """The cross product of 3-vectors along ``dim`` (size 3 in both) of two tensors with the same
    number of dims, broadcast against each other, of one dtype (bool refused); torch's checks
    in its order."""
    return _linalg_cross(input, other, dim)


def _install_out():
    from ._functions import _with_out
    g = globals()
    for name in __all__:  # torch's out= rules (argument check, autograd refusal, dtype policy)
        if name not in _NO_OUT:
            g[name] = _with_out(name, g[name])


_install_out()
