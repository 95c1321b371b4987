"""Docstring tables of the ops added later with their own differential sweep against torch
(``tests/torch/test_missing_apis.py``: order statistics, matrix-vector updates and index
writes; ``tests/torch/test_added_pointwise.py``: logaddexp, fmax, copysign, frac, ...). ``FUNCTIONS`` joins ``TORCH_FUNCTIONS`` and ``METHODS`` joins ``TENSOR``, in the format
:mod:`minitorch_cs.torch._docs` describes."""

_METHOD_OUT = "Differs from torch: the method form also takes ``out`` (torch's methods do not)."

FUNCTIONS = {  # torch.<name>
    'kthvalue': (
        'kthvalue(input, k, dim=None, keepdim=False, *, out=None) -> (Tensor, LongTensor)',
        "", ""),
    'mode': ('mode(input, dim=-1, keepdim=False, *, out=None) -> (Tensor, LongTensor)',
        "", ""),
    'nanmedian': (
        ('nanmedian(input) -> Tensor\n'
         'nanmedian(input, dim=-1, keepdim=False, *, out=None) -> (Tensor, LongTensor)'),
        "", ""),
    'cummax': ('cummax(input, dim, *, out=None) -> (Tensor, LongTensor)', "", ""),
    'cummin': ('cummin(input, dim, *, out=None) -> (Tensor, LongTensor)', "", ""),
    'addmv': ('addmv(input, mat, vec, *, beta=1, alpha=1, out=None) -> Tensor', "", ""),
    'addr': ('addr(input, vec1, vec2, *, beta=1, alpha=1, out=None) -> Tensor', "", ""),
    'take': ('take(input, index, *, out=None) -> Tensor', "", ""),
    'put': ('put(input, index, source, accumulate=False) -> Tensor', "", ""),
    'masked_scatter': ('masked_scatter(input, mask, source) -> Tensor', "", ""),
    'index_put': ('index_put(input, indices, values, accumulate=False) -> Tensor', "", ""),
    'scatter_reduce': (
        ('scatter_reduce(input, dim, index, src, reduce, *, include_self=True, out=None) '
         '-> Tensor'), "", ""),
    'logaddexp': ('logaddexp(input, other, *, out=None) -> Tensor',
        ('``log(exp(input) + exp(other))`` elementwise with broadcasting, computed as torch\'s '
         'kernel does: ``max + log1p(exp(-|input - other|))``, two equal infinities giving '
         'themselves. Both arguments must be tensors; floating dtypes only (integer or bool '
         'operands raise torch\'s NotImplementedError); float16/bfloat16 in float32, rounded '
         'once. Gradients: ``grad / (1 + exp(other - input))`` and ``grad / (1 + exp(input - '
         'other))``.'), ""),
    'logaddexp2': ('logaddexp2(input, other, *, out=None) -> Tensor',
        ('``log2(2**input + 2**other)``, as ``logaddexp`` in base 2 (``exp2`` and a factor '
         '``1 / ln 2``); gradients ``grad / (1 + 2**(other - input))`` and the mirror.'), ""),
    'fmax': ('fmax(input, other, *, out=None) -> Tensor',
        ('The elementwise maximum where a NaN operand loses to a number (NaN only where both '
         'are NaN); both arguments tensors, any dtype. Of equal operands (0.0 and -0.0) the '
         'first is returned (bfloat16: the second, as torch\'s kernel). Gradient: all of it to '
         '``input`` where ``input >= other`` or ``other`` is NaN, else to ``other``.'), ""),
    'fmin': ('fmin(input, other, *, out=None) -> Tensor',
        ('The elementwise minimum where a NaN operand loses to a number; as ``fmax`` with '
         '``<=``.'), ""),
    'copysign': ('copysign(input, other, *, out=None) -> Tensor',
        ('``|input|`` with the sign bit of ``other`` (a tensor, broadcast, or a number); '
         'integer and bool inputs give the default float dtype. Gradient: ``grad * (result / '
         'input)``, 0 where ``input`` is 0; a tensor ``other`` gets a zero gradient.'), ""),
    'histc': ('histc(input, bins=100, min=0, max=0, *, out=None) -> Tensor', "", ""),
    'nextafter': ('nextafter(input, other, *, out=None) -> Tensor',
        ('The next floating-point value after ``input`` toward ``other``, in their common '
         'dtype (both tensors, broadcast; floating dtypes only). Gradient: ``grad`` to '
         '``input``, zeros to ``other``.'), ""),
    'ldexp': ('ldexp(input, other, *, out=None) -> Tensor',
        ('``input * 2 ** other`` (both tensors, broadcast), in their common dtype or the '
         'default float for integer and bool operands. A floating ``input`` with an integer '
         '``other`` is scaled exactly (the exponent read as a 32-bit int; a bool ``other`` is '
         'refused); otherwise the product with ``2.0 ** other`` computed in ``other``\'s '
         'floating dtype or the default float. Gradients: ``grad * 2 ** other`` (an integer '
         'power for an integer ``other``: 0 below 0) and ``grad * result * ln 2``.'), ""),
    'unique_consecutive': (
        ('unique_consecutive(input, return_inverse=False, return_counts=False, dim=None) -> '
         '(Tensor, Tensor, Tensor)'), "", ""),
    'bitwise_left_shift': ('bitwise_left_shift(input, other, *, out=None) -> Tensor',
        ('``input`` shifted left by ``other`` bits elementwise, with broadcasting (the ``<<`` '
         'operator); either argument may be a number, not both. Integer dtypes only (float and '
         'bool raise torch\'s NotImplementedError for ``lshift_cpu``); the result has the '
         'operands\' promoted dtype. A shift by the width or more gives 0, a negative shift 0. '
         'Not differentiable.'), ""),
    'bitwise_right_shift': ('bitwise_right_shift(input, other, *, out=None) -> Tensor',
        ('``input`` shifted right by ``other`` bits (the ``>>`` operator), the sign bit '
         'repeated: a shift by the width or more gives 0, or -1 for a negative value; a '
         'negative shift 0. Otherwise as ``bitwise_left_shift``.'), ""),
    'heaviside': ('heaviside(input, values, *, out=None) -> Tensor',
        ('``values`` where ``input`` is 0, else ``input > 0`` (NaN: 0); ``input``, '
         '``values`` (and ``out``) must share a dtype. Not differentiable (torch\'s '
         'NotImplemented node: backward raises).'), ""),
    'frac': ('frac(input, *, out=None) -> Tensor',
        ('``input - trunc(input)``, keeping the sign (``frac(-1.5)`` is ``-0.5``); floating '
         'dtypes only (torch\'s NotImplementedError for ``frac_cpu`` otherwise). Gradient: '
         '``grad``.'), ""),
    'deg2rad': ('deg2rad(input, *, out=None) -> Tensor',
        ('``input * pi / 180`` (the constant in the computation dtype: float32 for '
         'float16/bfloat16, rounded once); integer and bool inputs give the default float '
         'dtype. Gradient: ``grad * pi / 180``.'), ""),
    'rad2deg': ('rad2deg(input, *, out=None) -> Tensor',
        '``input * 180 / pi``, as ``deg2rad``.', ""),
    'erfc': ('erfc(input, *, out=None) -> Tensor',
        ('The complementary error function ``1 - erf(input)``, accurate where it is small; '
         'integer and bool inputs give the default float dtype. Gradient: ``-2 / sqrt(pi) * '
         'exp(-input**2) * grad``.'), ""),
    'signbit': ('signbit(input, *, out=None) -> Tensor',
        ('Whether each element\'s sign bit is set (``-0.0`` and a negative NaN included), as a '
         'bool tensor; integers test ``< 0``, bool and unsigned are never negative. ``out`` '
         'must be bool.'), ""),
    'isposinf': ('isposinf(input, *, out=None) -> Tensor',
        'Whether each element is ``+inf`` (bool); ``out`` must be bool.', ""),
    'isneginf': ('isneginf(input, *, out=None) -> Tensor',
        'Whether each element is ``-inf`` (bool); ``out`` must be bool.', ""),
    'hardshrink': ('hardshrink(input, lambd=0.5, *, out=None) -> Tensor',
        ('``x`` where ``x < -lambd`` or ``x > lambd``, else 0 (NaN stays NaN), ``lambd`` '
         'converted to the input\'s dtype first as torch\'s kernel does; floating dtypes only. '
         'Gradient: 0 where ``-lambd <= x <= lambd``, else ``grad``.'), ""),
    'prelu': ('prelu(input, weight) -> Tensor',
        ('``x`` where ``x > 0``, else ``weight * x`` in the input\'s dtype. ``weight`` holds one '
         'slope or one per channel (dim 1 of ``input``; 1 for inputs of fewer than 2 dims) and '
         'is broadcast along that dim. torch\'s checks in its order: both tensors of one dtype '
         '("Type promoting not supported"), the number of slopes against the channels, a '
         'weight of at most one dim; integer and bool inputs raise NotImplementedError. '
         'Gradients (torch\'s ``_prelu_kernel_backward``, node ``PreluKernelBackward0``): '
         '``grad`` or ``weight * grad`` for ``input``; 0 or ``x * grad`` for ``weight``, summed '
         'over the broadcast dims.'), ""),
    'flipud': ('flipud(input) -> Tensor', "", ""),
    'fliplr': ('fliplr(input) -> Tensor', "", ""),
    'ravel': ('ravel(input) -> Tensor', "", ""),
    'atleast_1d': ('atleast_1d(*tensors) -> Tensor or tuple of Tensors', "", ""),
    'atleast_2d': ('atleast_2d(*tensors) -> Tensor or tuple of Tensors', "", ""),
    'atleast_3d': ('atleast_3d(*tensors) -> Tensor or tuple of Tensors', "", ""),
    'nanmean': ('nanmean(input, dim=None, keepdim=False, *, dtype=None, out=None) -> Tensor', "", ""),
    'diff': ('diff(input, n=1, dim=-1, prepend=None, append=None) -> Tensor', "", ""),
    'argwhere': ('argwhere(input) -> Tensor', "", ""),
    'isin': ('isin(elements, test_elements, *, assume_unique=False, invert=False, out=None) '
             '-> Tensor', "", ""),
    'aminmax': ('aminmax(input, *, dim=None, keepdim=False) -> (Tensor min, Tensor max)', "",
                "Differs from torch: no ``out=``."),
    'logcumsumexp': ('logcumsumexp(input, dim) -> Tensor', "", "Differs from torch: no ``out=``."),
    'cross': ('cross(input, other, dim=None) -> Tensor', "", "Differs from torch: no ``out=``."),
    'fix': ('fix(input, *, out=None) -> Tensor', 'Alias of torch.trunc.', ''),
    'narrow_copy': ('narrow_copy(input, dim, start, length, *, out=None) -> Tensor',
        ("``narrow``'s slice as a new contiguous tensor (not a view)."), ""),
    'diag_embed': ('diag_embed(input, offset=0, dim1=-2, dim2=-1) -> Tensor',
        ("A tensor of one more dim, zero except on the diagonal ``offset`` of the planes "
         "``(dim1, dim2)``, which holds ``input``'s last dim (its other dims kept in order); "
         "``torch.diagonal(result, offset, dim1, dim2)`` is ``input``."), ""),
    'adjoint': ('adjoint(input) -> Tensor',
        ("The conjugate transpose of a matrix or batch of matrices: every dtype here is real, so "
         "the last two dims swapped (a view). A 1-D input raises; a 0-d one is itself, with "
         "torch's one-time deprecation warning."), ""),
    'real': ('real(input) -> Tensor',
        "The real part: ``input`` itself, as for any real tensor in torch.", ""),
    'imag': ('imag(input) -> Tensor',
        ("The imaginary part, which only complex tensors have: raises torch's RuntimeError "
         "(every dtype here is real)."), ""),
    'rsub': ('rsub(input, other, *, alpha=1) -> Tensor', "", ""),
    'hsplit': ('hsplit(input, indices_or_sections) -> List of Tensors', "", ""),
    'vsplit': ('vsplit(input, indices_or_sections) -> List of Tensors', "", ""),
    'dsplit': ('dsplit(input, indices_or_sections) -> List of Tensors', "", ""),
    'msort': ('msort(input) -> Tensor', "", "Differs from torch: no ``out`` parameter."),
    'column_stack': ('column_stack(tensors) -> Tensor', "", "Differs from torch: no ``out`` parameter."),
    'row_stack': ('row_stack(tensors) -> Tensor', "", "Differs from torch: no ``out`` parameter."),
    'dstack': ('dstack(tensors) -> Tensor', "", "Differs from torch: no ``out`` parameter."),
}

METHODS = {  # Tensor.<name>
    'kthvalue': ('Tensor.kthvalue(k, dim=None, keepdim=False) -> (Tensor, LongTensor)', "",
        _METHOD_OUT),
    'mode': ('Tensor.mode(dim=None, keepdim=False) -> (Tensor, LongTensor)', "", _METHOD_OUT),
    'nanmedian': (
        ('Tensor.nanmedian() -> Tensor\n'
         'Tensor.nanmedian(dim=-1, keepdim=False) -> (Tensor, LongTensor)'), "", _METHOD_OUT),
    'cummax': ('Tensor.cummax(dim) -> (Tensor, LongTensor)', "", _METHOD_OUT),
    'cummin': ('Tensor.cummin(dim) -> (Tensor, LongTensor)', "", _METHOD_OUT),
    'addmv': ('Tensor.addmv(mat, vec, *, beta=1, alpha=1) -> Tensor', "", _METHOD_OUT),
    'addmv_': ('Tensor.addmv_(mat, vec, *, beta=1, alpha=1) -> Tensor',
        ('In-place Tensor.addmv: ``self`` must have the product\'s length (no broadcasting); '
         'writes the result into ``self`` and returns it.'), ""),
    'addr': ('Tensor.addr(vec1, vec2, *, beta=1, alpha=1) -> Tensor', "", _METHOD_OUT),
    'addr_': ('Tensor.addr_(vec1, vec2, *, beta=1, alpha=1) -> Tensor',
        ('In-place Tensor.addr: ``self`` must be the 2-D result (no broadcasting) and keeps its '
         'dtype (a promoted result that cannot be cast to it raises RuntimeError).'), ""),
    'take': ('Tensor.take(index) -> Tensor', "", _METHOD_OUT),
    'put': ('Tensor.put(index, source, accumulate=False) -> Tensor', "", ""),
    'put_': ('Tensor.put_(index, source, accumulate=False) -> Tensor',
        ('In-place Tensor.put: writes (or with ``accumulate`` adds) ``source`` at the flat '
         'positions ``index`` of ``self`` (row-major, whatever its strides) and returns it.'),
        ""),
    'masked_scatter': ('Tensor.masked_scatter(mask, source) -> Tensor', "", ""),
    'masked_scatter_': ('Tensor.masked_scatter_(mask, source) -> Tensor',
        ('In-place Tensor.masked_scatter: ``mask`` must broadcast to ``self``\'s shape; fills '
         'the True positions of ``self`` from ``source`` and returns it.'), ""),
    'index_put': ('Tensor.index_put(indices, values, accumulate=False) -> Tensor', "", ""),
    'scatter_reduce': (
        'Tensor.scatter_reduce(dim, index, src, reduce, *, include_self=True) -> Tensor', "",
        _METHOD_OUT),
    'scatter_reduce_': (
        'Tensor.scatter_reduce_(dim, index, src, reduce, *, include_self=True) -> Tensor',
        ('In-place Tensor.scatter_reduce: reduces ``src`` into ``self`` at ``index`` along '
         '``dim`` and returns ``self``.'), ""),
    'logaddexp': ('Tensor.logaddexp(other) -> Tensor', "", _METHOD_OUT),
    'logaddexp2': ('Tensor.logaddexp2(other) -> Tensor', "", _METHOD_OUT),
    'fmax': ('Tensor.fmax(other) -> Tensor', "", _METHOD_OUT),
    'fmin': ('Tensor.fmin(other) -> Tensor', "", _METHOD_OUT),
    'copysign': ('Tensor.copysign(other) -> Tensor', "", _METHOD_OUT),
    'copysign_': ('Tensor.copysign_(other) -> Tensor',
        ('In-place Tensor.copysign: ``self`` keeps its dtype (an integer ``self`` cannot take '
         'the float result: RuntimeError).'), ""),
    'histc': ('Tensor.histc(bins=100, min=0, max=0) -> Tensor', "", _METHOD_OUT),
    'nextafter': ('Tensor.nextafter(other) -> Tensor', "", _METHOD_OUT),
    'nextafter_': ('Tensor.nextafter_(other) -> Tensor',
        'In-place Tensor.nextafter: ``self`` must be able to hold the common dtype.', ""),
    'ldexp': ('Tensor.ldexp(other) -> Tensor', "", _METHOD_OUT),
    'ldexp_': ('Tensor.ldexp_(other) -> Tensor',
        ('In-place Tensor.ldexp: ``self`` must be able to hold the result dtype (an integer '
         '``self`` cannot: "ldexp can\'t be cast to the desired output type").'), ""),
    'unique_consecutive': (
        'Tensor.unique_consecutive(return_inverse=False, return_counts=False, dim=None)',
        'See ``torch.unique_consecutive``.', ""),
    'bitwise_left_shift': ('Tensor.bitwise_left_shift(other) -> Tensor', "", _METHOD_OUT),
    'bitwise_left_shift_': ('Tensor.bitwise_left_shift_(other) -> Tensor',
        ('In-place Tensor.bitwise_left_shift (the ``<<=`` operator): ``self`` keeps its dtype '
         '(a float ``other`` on an integer ``self`` is the in-place cast error).'), ""),
    'bitwise_right_shift': ('Tensor.bitwise_right_shift(other) -> Tensor', "", _METHOD_OUT),
    'bitwise_right_shift_': ('Tensor.bitwise_right_shift_(other) -> Tensor',
        'In-place Tensor.bitwise_right_shift (the ``>>=`` operator).', ""),
    'heaviside': ('Tensor.heaviside(values) -> Tensor', "", _METHOD_OUT),
    'heaviside_': ('Tensor.heaviside_(values) -> Tensor',
        'In-place Tensor.heaviside: ``values`` must have ``self``\'s dtype.', ""),
    'frac': ('Tensor.frac() -> Tensor', "", _METHOD_OUT),
    'frac_': ('Tensor.frac_() -> Tensor', 'In-place Tensor.frac.', ""),
    'deg2rad': ('Tensor.deg2rad() -> Tensor', "", _METHOD_OUT),
    'deg2rad_': ('Tensor.deg2rad_() -> Tensor',
        ('In-place Tensor.deg2rad: an integer ``self`` cannot take the float result '
         '(RuntimeError).'), ""),
    'rad2deg': ('Tensor.rad2deg() -> Tensor', "", _METHOD_OUT),
    'rad2deg_': ('Tensor.rad2deg_() -> Tensor',
        ('In-place Tensor.rad2deg: an integer ``self`` cannot take the float result '
         '(RuntimeError).'), ""),
    'erfc': ('Tensor.erfc() -> Tensor', "", _METHOD_OUT),
    'erfc_': ('Tensor.erfc_() -> Tensor',
        ('In-place Tensor.erfc: an integer ``self`` cannot take the float result '
         '(RuntimeError).'), ""),
    'signbit': ('Tensor.signbit() -> Tensor', "", _METHOD_OUT),
    'isposinf': ('Tensor.isposinf() -> Tensor', "", _METHOD_OUT),
    'isneginf': ('Tensor.isneginf() -> Tensor', "", _METHOD_OUT),
    'hardshrink': ('Tensor.hardshrink(lambd=0.5) -> Tensor', "", _METHOD_OUT),
    'prelu': ('Tensor.prelu(weight) -> Tensor', "", ""),
    'flipud': ('Tensor.flipud() -> Tensor', "", ""),
    'fliplr': ('Tensor.fliplr() -> Tensor', "", ""),
    'ravel': ('Tensor.ravel() -> Tensor', "", ""),
    'nanmean': ('Tensor.nanmean(dim=None, keepdim=False, *, dtype=None) -> Tensor', "", _METHOD_OUT),
    'diff': ('Tensor.diff(n=1, dim=-1, prepend=None, append=None) -> Tensor', "", ""),
    'argwhere': ('Tensor.argwhere() -> Tensor', "", ""),
    'aminmax': ('Tensor.aminmax(*, dim=None, keepdim=False) -> (Tensor min, Tensor max)', "", ""),
    'logcumsumexp': ('Tensor.logcumsumexp(dim) -> Tensor', "", ""),
    'cross': ('Tensor.cross(other, dim=None) -> Tensor', "", ""),
    'narrow_copy': ('Tensor.narrow_copy(dim, start, length) -> Tensor', "", _METHOD_OUT),
    'fix': ('Tensor.fix() -> Tensor', 'Alias of Tensor.trunc.', _METHOD_OUT),
    'fix_': ('Tensor.fix_() -> Tensor', 'Alias of Tensor.trunc_.', ''),
    'diag_embed': ('Tensor.diag_embed(offset=0, dim1=-2, dim2=-1) -> Tensor', "", ""),
    'adjoint': ('Tensor.adjoint() -> Tensor', "", ""),
    'msort': ('Tensor.msort() -> Tensor', "", ""),
    'hsplit': ('Tensor.hsplit(indices_or_sections) -> List of Tensors', "", ""),
    'vsplit': ('Tensor.vsplit(indices_or_sections) -> List of Tensors', "", ""),
    'dsplit': ('Tensor.dsplit(indices_or_sections) -> List of Tensors', "", ""),
}
