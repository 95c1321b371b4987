"""Docstring tables of the ops added later with their own differential sweep against torch
(``tests/torch/test_missing_apis.py``): order statistics, matrix-vector updates and index
writes. ``FUNCTIONS`` joins ``TORCH_FUNCTIONS`` and ``METHODS`` joins ``TENSOR``, in the format
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
}
