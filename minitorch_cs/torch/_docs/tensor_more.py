"""Docstring table: the in-place forms and methods added with the differential tester's fixes
(``acos_``, ``eq_``, ``cumsum_``, ``kron``, ...), in the format of :mod:`.tensor`."""

TENSOR_MORE = {
    'acos_': ('Tensor.acos_() -> Tensor',
        ('In-place Tensor.acos: writes the result into ``self`` and returns it; ``self`` keeps '
         'its dtype (a result that cannot be cast to it raises RuntimeError).'),
        ''),
    'acosh': ('Tensor.acosh() -> Tensor',
        ('``torch.acosh(self, ...)``.'),
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'acosh_': ('Tensor.acosh_() -> Tensor',
        ('In-place Tensor.acosh: writes the result into ``self`` and returns it; ``self`` keeps '
         'its dtype (a result that cannot be cast to it raises RuntimeError).'),
        ''),
    'addbmm': ('Tensor.addbmm(batch1, batch2, *, beta=1, alpha=1) -> Tensor',
        ('``torch.addbmm(self, ...)``.'),
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'addbmm_': ('Tensor.addbmm_(batch1, batch2, *, beta=1, alpha=1) -> Tensor',
        ('In-place Tensor.addbmm: writes the result into ``self`` and returns it; ``self`` keeps '
         'its dtype (a result that cannot be cast to it raises RuntimeError).'),
        ''),
    'addmm_': ('Tensor.addmm_(mat1, mat2, *, beta=1, alpha=1) -> Tensor',
        ('In-place Tensor.addmm: writes the result into ``self`` and returns it; ``self`` keeps '
         'its dtype (a result that cannot be cast to it raises RuntimeError).'),
        ''),
    'arccos_': ('Tensor.arccos_() -> Tensor',
        ('In-place Tensor.arccos: writes the result into ``self`` and returns it; ``self`` keeps '
         'its dtype (a result that cannot be cast to it raises RuntimeError).'),
        ''),
    'arccosh': ('Tensor.arccosh() -> Tensor',
        ('``torch.arccosh(self, ...)``.'),
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'arccosh_': ('Tensor.arccosh_() -> Tensor',
        ('In-place Tensor.arccosh: writes the result into ``self`` and returns it; ``self`` '
         'keeps its dtype (a result that cannot be cast to it raises RuntimeError).'),
        ''),
    'arcsin_': ('Tensor.arcsin_() -> Tensor',
        ('In-place Tensor.arcsin: writes the result into ``self`` and returns it; ``self`` keeps '
         'its dtype (a result that cannot be cast to it raises RuntimeError).'),
        ''),
    'arcsinh': ('Tensor.arcsinh() -> Tensor',
        ('``torch.arcsinh(self, ...)``.'),
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'arcsinh_': ('Tensor.arcsinh_() -> Tensor',
        ('In-place Tensor.arcsinh: writes the result into ``self`` and returns it; ``self`` '
         'keeps its dtype (a result that cannot be cast to it raises RuntimeError).'),
        ''),
    'arctan_': ('Tensor.arctan_() -> Tensor',
        ('In-place Tensor.arctan: writes the result into ``self`` and returns it; ``self`` keeps '
         'its dtype (a result that cannot be cast to it raises RuntimeError).'),
        ''),
    'arctanh': ('Tensor.arctanh() -> Tensor',
        ('``torch.arctanh(self, ...)``.'),
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'arctanh_': ('Tensor.arctanh_() -> Tensor',
        ('In-place Tensor.arctanh: writes the result into ``self`` and returns it; ``self`` '
         'keeps its dtype (a result that cannot be cast to it raises RuntimeError).'),
        ''),
    'asin_': ('Tensor.asin_() -> Tensor',
        ('In-place Tensor.asin: writes the result into ``self`` and returns it; ``self`` keeps '
         'its dtype (a result that cannot be cast to it raises RuntimeError).'),
        ''),
    'asinh': ('Tensor.asinh() -> Tensor',
        ('``torch.asinh(self, ...)``.'),
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'asinh_': ('Tensor.asinh_() -> Tensor',
        ('In-place Tensor.asinh: writes the result into ``self`` and returns it; ``self`` keeps '
         'its dtype (a result that cannot be cast to it raises RuntimeError).'),
        ''),
    'atan2_': ('Tensor.atan2_(other) -> Tensor',
        ('In-place Tensor.atan2: writes the result into ``self`` and returns it; ``self`` keeps '
         'its dtype (a result that cannot be cast to it raises RuntimeError).'),
        ''),
    'atan_': ('Tensor.atan_() -> Tensor',
        ('In-place Tensor.atan: writes the result into ``self`` and returns it; ``self`` keeps '
         'its dtype (a result that cannot be cast to it raises RuntimeError).'),
        ''),
    'atanh': ('Tensor.atanh() -> Tensor',
        ('``torch.atanh(self, ...)``.'),
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'atanh_': ('Tensor.atanh_() -> Tensor',
        ('In-place Tensor.atanh: writes the result into ``self`` and returns it; ``self`` keeps '
         'its dtype (a result that cannot be cast to it raises RuntimeError).'),
        ''),
    'baddbmm': ('Tensor.baddbmm(batch1, batch2, *, beta=1, alpha=1) -> Tensor',
        ('``torch.baddbmm(self, ...)``.'),
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'baddbmm_': ('Tensor.baddbmm_(batch1, batch2, *, beta=1, alpha=1) -> Tensor',
        ('In-place Tensor.baddbmm: writes the result into ``self`` and returns it; ``self`` '
         'keeps its dtype (a result that cannot be cast to it raises RuntimeError).'),
        ''),
    'bitwise_and_': ('Tensor.bitwise_and_(other) -> Tensor',
        ('In-place Tensor.bitwise_and: writes the result into ``self`` and returns it; ``self`` '
         'keeps its dtype (a result that cannot be cast to it raises RuntimeError).'),
        ''),
    'bitwise_not_': ('Tensor.bitwise_not_() -> Tensor',
        ('In-place Tensor.bitwise_not: writes the result into ``self`` and returns it; ``self`` '
         'keeps its dtype (a result that cannot be cast to it raises RuntimeError).'),
        ''),
    'bitwise_or_': ('Tensor.bitwise_or_(other) -> Tensor',
        ('In-place Tensor.bitwise_or: writes the result into ``self`` and returns it; ``self`` '
         'keeps its dtype (a result that cannot be cast to it raises RuntimeError).'),
        ''),
    'bitwise_xor_': ('Tensor.bitwise_xor_(other) -> Tensor',
        ('In-place Tensor.bitwise_xor: writes the result into ``self`` and returns it; ``self`` '
         'keeps its dtype (a result that cannot be cast to it raises RuntimeError).'),
        ''),
    'cosh_': ('Tensor.cosh_() -> Tensor',
        ('In-place Tensor.cosh: writes the result into ``self`` and returns it; ``self`` keeps '
         'its dtype (a result that cannot be cast to it raises RuntimeError).'),
        ''),
    'cumprod_': ('Tensor.cumprod_(dim, *, dtype=None) -> Tensor',
        ('In-place Tensor.cumprod: writes the result into ``self`` and returns it; ``self`` '
         'keeps its dtype (a result that cannot be cast to it raises RuntimeError).'),
        ''),
    'cumsum_': ('Tensor.cumsum_(dim, *, dtype=None) -> Tensor',
        ('In-place Tensor.cumsum: writes the result into ``self`` and returns it; ``self`` keeps '
         'its dtype (a result that cannot be cast to it raises RuntimeError).'),
        ''),
    'digamma': ('Tensor.digamma() -> Tensor',
        ('``torch.digamma(self, ...)``.'),
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'digamma_': ('Tensor.digamma_() -> Tensor',
        ('In-place Tensor.digamma: writes the result into ``self`` and returns it; ``self`` '
         'keeps its dtype (a result that cannot be cast to it raises RuntimeError).'),
        ''),
    'eq_': ('Tensor.eq_(other) -> Tensor',
        ('In-place Tensor.eq: writes the result into ``self`` and returns it; ``self`` keeps its '
         'dtype (a result that cannot be cast to it raises RuntimeError).'),
        ''),
    'exp2_': ('Tensor.exp2_() -> Tensor',
        ('In-place Tensor.exp2: writes the result into ``self`` and returns it; ``self`` keeps '
         'its dtype (a result that cannot be cast to it raises RuntimeError).'),
        ''),
    'logit': ('Tensor.logit(eps=None) -> Tensor', "``torch.logit(self, eps)``.",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'logit_': ('Tensor.logit_(eps=None) -> Tensor',
        ('In-place Tensor.logit: writes the result into ``self`` and returns it; ``self`` keeps '
         'its dtype (a result that cannot be cast to it raises RuntimeError).'),
        ''),
    'hypot': ('Tensor.hypot(other) -> Tensor', "``torch.hypot(self, other)``.",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'hypot_': ('Tensor.hypot_(other) -> Tensor',
        ('In-place Tensor.hypot: writes the result into ``self`` and returns it; ``self`` keeps '
         'its dtype (a result that cannot be cast to it raises RuntimeError).'),
        ''),
    'sinc_': ('Tensor.sinc_() -> Tensor',
        ('In-place Tensor.sinc: writes the result into ``self`` and returns it; ``self`` keeps '
         'its dtype (a result that cannot be cast to it raises RuntimeError).'),
        ''),
    'float_power_': ('Tensor.float_power_(exponent) -> Tensor',
        ('In-place Tensor.float_power: writes the result into ``self`` and returns it; ``self`` '
         'keeps its dtype (a result that cannot be cast to it raises RuntimeError).'),
        ''),
    'floor_divide_': ('Tensor.floor_divide_(other) -> Tensor',
        ('In-place Tensor.floor_divide: writes the result into ``self`` and returns it; ``self`` '
         'keeps its dtype (a result that cannot be cast to it raises RuntimeError).'),
        ''),
    'fmod_': ('Tensor.fmod_(other) -> Tensor',
        ('In-place Tensor.fmod: writes the result into ``self`` and returns it; ``self`` keeps '
         'its dtype (a result that cannot be cast to it raises RuntimeError).'),
        ''),
    'ge_': ('Tensor.ge_(other) -> Tensor',
        ('In-place Tensor.ge: writes the result into ``self`` and returns it; ``self`` keeps its '
         'dtype (a result that cannot be cast to it raises RuntimeError).'),
        ''),
    'greater_': ('Tensor.greater_(other) -> Tensor',
        ('In-place Tensor.greater: writes the result into ``self`` and returns it; ``self`` '
         'keeps its dtype (a result that cannot be cast to it raises RuntimeError).'),
        ''),
    'greater_equal_': ('Tensor.greater_equal_(other) -> Tensor',
        ('In-place Tensor.greater_equal: writes the result into ``self`` and returns it; '
         '``self`` keeps its dtype (a result that cannot be cast to it raises RuntimeError).'),
        ''),
    'gt_': ('Tensor.gt_(other) -> Tensor',
        ('In-place Tensor.gt: writes the result into ``self`` and returns it; ``self`` keeps its '
         'dtype (a result that cannot be cast to it raises RuntimeError).'),
        ''),
    'kron': ('Tensor.kron(other) -> Tensor',
        ('``torch.kron(self, ...)``.'),
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'le_': ('Tensor.le_(other) -> Tensor',
        ('In-place Tensor.le: writes the result into ``self`` and returns it; ``self`` keeps its '
         'dtype (a result that cannot be cast to it raises RuntimeError).'),
        ''),
    'less_': ('Tensor.less_(other) -> Tensor',
        ('In-place Tensor.less: writes the result into ``self`` and returns it; ``self`` keeps '
         'its dtype (a result that cannot be cast to it raises RuntimeError).'),
        ''),
    'less_equal_': ('Tensor.less_equal_(other) -> Tensor',
        ('In-place Tensor.less_equal: writes the result into ``self`` and returns it; ``self`` '
         'keeps its dtype (a result that cannot be cast to it raises RuntimeError).'),
        ''),
    'lgamma': ('Tensor.lgamma() -> Tensor',
        ('``torch.lgamma(self, ...)``.'),
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'lgamma_': ('Tensor.lgamma_() -> Tensor',
        ('In-place Tensor.lgamma: writes the result into ``self`` and returns it; ``self`` keeps '
         'its dtype (a result that cannot be cast to it raises RuntimeError).'),
        ''),
    'log10_': ('Tensor.log10_() -> Tensor',
        ('In-place Tensor.log10: writes the result into ``self`` and returns it; ``self`` keeps '
         'its dtype (a result that cannot be cast to it raises RuntimeError).'),
        ''),
    'log2_': ('Tensor.log2_() -> Tensor',
        ('In-place Tensor.log2: writes the result into ``self`` and returns it; ``self`` keeps '
         'its dtype (a result that cannot be cast to it raises RuntimeError).'),
        ''),
    'logical_and_': ('Tensor.logical_and_(other) -> Tensor',
        ('In-place Tensor.logical_and: writes the result into ``self`` and returns it; ``self`` '
         'keeps its dtype (a result that cannot be cast to it raises RuntimeError).'),
        ''),
    'logical_not_': ('Tensor.logical_not_() -> Tensor',
        ('In-place Tensor.logical_not: writes the result into ``self`` and returns it; ``self`` '
         'keeps its dtype (a result that cannot be cast to it raises RuntimeError).'),
        ''),
    'logical_or_': ('Tensor.logical_or_(other) -> Tensor',
        ('In-place Tensor.logical_or: writes the result into ``self`` and returns it; ``self`` '
         'keeps its dtype (a result that cannot be cast to it raises RuntimeError).'),
        ''),
    'logical_xor_': ('Tensor.logical_xor_(other) -> Tensor',
        ('In-place Tensor.logical_xor: writes the result into ``self`` and returns it; ``self`` '
         'keeps its dtype (a result that cannot be cast to it raises RuntimeError).'),
        ''),
    'lt_': ('Tensor.lt_(other) -> Tensor',
        ('In-place Tensor.lt: writes the result into ``self`` and returns it; ``self`` keeps its '
         'dtype (a result that cannot be cast to it raises RuntimeError).'),
        ''),
    'ne_': ('Tensor.ne_(other) -> Tensor',
        ('In-place Tensor.ne: writes the result into ``self`` and returns it; ``self`` keeps its '
         'dtype (a result that cannot be cast to it raises RuntimeError).'),
        ''),
    'negative_': ('Tensor.negative_() -> Tensor',
        ('In-place Tensor.negative: writes the result into ``self`` and returns it; ``self`` '
         'keeps its dtype (a result that cannot be cast to it raises RuntimeError).'),
        ''),
    'not_equal_': ('Tensor.not_equal_(other) -> Tensor',
        ('In-place Tensor.not_equal: writes the result into ``self`` and returns it; ``self`` '
         'keeps its dtype (a result that cannot be cast to it raises RuntimeError).'),
        ''),
    'positive': ('Tensor.positive() -> Tensor',
        ('``torch.positive(self, ...)``.'),
        ''),
    'remainder_': ('Tensor.remainder_(other) -> Tensor',
        ('In-place Tensor.remainder: writes the result into ``self`` and returns it; ``self`` '
         'keeps its dtype (a result that cannot be cast to it raises RuntimeError).'),
        ''),
    'rot90': ('Tensor.rot90(k=1, dims=(0, 1)) -> Tensor',
        ('``torch.rot90(self, ...)``.'),
        ''),
    'sgn_': ('Tensor.sgn_() -> Tensor',
        ('In-place Tensor.sgn: writes the result into ``self`` and returns it; ``self`` keeps '
         'its dtype (a result that cannot be cast to it raises RuntimeError).'),
        ''),
    'sinh_': ('Tensor.sinh_() -> Tensor',
        ('In-place Tensor.sinh: writes the result into ``self`` and returns it; ``self`` keeps '
         'its dtype (a result that cannot be cast to it raises RuntimeError).'),
        ''),
    'take_along_dim': ('Tensor.take_along_dim(indices, dim=None) -> Tensor',
        ('``torch.take_along_dim(self, ...)``.'),
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'tan_': ('Tensor.tan_() -> Tensor',
        ('In-place Tensor.tan: writes the result into ``self`` and returns it; ``self`` keeps '
         'its dtype (a result that cannot be cast to it raises RuntimeError).'),
        ''),
    'true_divide_': ('Tensor.true_divide_(other) -> Tensor',
        ('In-place Tensor.true_divide: writes the result into ``self`` and returns it; ``self`` '
         'keeps its dtype (a result that cannot be cast to it raises RuntimeError).'),
        ''),
    'xlogy': ('Tensor.xlogy(other) -> Tensor',
        ('``torch.xlogy(self, ...)``.'),
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'xlogy_': ('Tensor.xlogy_(other) -> Tensor',
        ('In-place Tensor.xlogy: writes the result into ``self`` and returns it; ``self`` keeps '
         'its dtype (a result that cannot be cast to it raises RuntimeError).'),
        ''),
}
