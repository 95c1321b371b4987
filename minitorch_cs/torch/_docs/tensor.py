"""Docstrings of ``Tensor``'s methods and properties.

A method that is the same object as a ``torch`` function (``Tensor.add is torch.add``) has
no rule of its own: its ``Tensor.name(...)`` line joins that function's docstring.

Entries are ``name: (signature lines, rule, differences)``, as :mod:`minitorch_cs.torch._docs`
describes.
"""

TENSOR = {  # Tensor.<name>
    'T': ('Tensor.T -> Tensor',
        ('A view with the dims reversed (the transpose of a matrix); on tensors that are not '
         '2-D it warns once, as torch.'), ""),
    'abs': ('Tensor.abs() -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'abs_': ('Tensor.abs_() -> Tensor',
        ('In-place Tensor.abs: writes the result into ``self`` and returns it; ``self`` keeps '
         'its dtype (a result that cannot be cast to it raises RuntimeError).'), ""),
    'absolute': ('Tensor.absolute() -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'absolute_': ('Tensor.absolute_() -> Tensor',
        ('In-place Tensor.absolute: writes the result into ``self`` and returns it; ``self`` '
         'keeps its dtype (a result that cannot be cast to it raises RuntimeError).'), ""),
    'acos': ('Tensor.acos() -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'add': ('Tensor.add(other, *, alpha=1) -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'add_': ('Tensor.add_(other, *, alpha=1) -> Tensor',
        ('In-place Tensor.add: writes the result into ``self`` and returns it; ``self`` keeps '
         'its dtype (a result that cannot be cast to it raises RuntimeError).'), ""),
    'addcdiv': ('Tensor.addcdiv(tensor1, tensor2, *, value=1) -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'addcdiv_': ('Tensor.addcdiv_(tensor1, tensor2, *, value=1) -> Tensor',
        ('In-place Tensor.addcdiv: writes the result into ``self`` and returns it; ``self`` '
         'keeps its dtype (a result that cannot be cast to it raises RuntimeError).'), ""),
    'addcmul': ('Tensor.addcmul(tensor1, tensor2, *, value=1) -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'addcmul_': ('Tensor.addcmul_(tensor1, tensor2, *, value=1) -> Tensor',
        ('In-place Tensor.addcmul: writes the result into ``self`` and returns it; ``self`` '
         'keeps its dtype (a result that cannot be cast to it raises RuntimeError).'), ""),
    'addmm': ('Tensor.addmm(mat1, mat2, *, beta=1, alpha=1) -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'all': ('Tensor.all() -> Tensor\nTensor.all(dim, keepdim=False) -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'allclose': ('Tensor.allclose(other, rtol=1e-05, atol=1e-08, equal_nan=False) -> bool', '', ''),
    'amax': ('Tensor.amax(dim=None, keepdim=False) -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'amin': ('Tensor.amin(dim=None, keepdim=False) -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'any': ('Tensor.any() -> Tensor\nTensor.any(dim, keepdim=False) -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'arccos': ('Tensor.arccos() -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'arcsin': ('Tensor.arcsin() -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'arctan': ('Tensor.arctan() -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'argmax': ('Tensor.argmax() -> LongTensor\nTensor.argmax(dim, keepdim=False) -> LongTensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'argmin': ('Tensor.argmin(dim=None, keepdim=False) -> LongTensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'argsort': ('Tensor.argsort(dim=-1, descending=False, *, stable=False) -> Tensor', None, ''),
    'asin': ('Tensor.asin() -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'atan': ('Tensor.atan() -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'atan2': ('Tensor.atan2(other) -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'backward': (
        'Tensor.backward(gradient=None, retain_graph=None, create_graph=False, inputs=None)',
        "", ""),
    'bernoulli': (
        ('Tensor.bernoulli(*, generator=None) -> Tensor\n'
         'Tensor.bernoulli(p, *, generator=None) -> Tensor'),
        "", ""),
    'bernoulli_': ('Tensor.bernoulli_(p=0.5, *, generator=None) -> Tensor', '', ''),
    'bfloat16': ('Tensor.bfloat16(memory_format=torch.preserve_format) -> Tensor',
        ('``self.to(torch.bfloat16)``. Returns ``self`` when it already has that dtype; '
         'otherwise a copy that stays in the autograd graph.'),
        ""),
    'bincount': ('Tensor.bincount(weights=None, minlength=0) -> Tensor', '', ''),
    'bitwise_and': ('Tensor.bitwise_and(other) -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'bitwise_not': ('Tensor.bitwise_not() -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'bitwise_or': ('Tensor.bitwise_or(other) -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'bitwise_xor': ('Tensor.bitwise_xor(other) -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'bmm': ('Tensor.bmm(mat2) -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'bool': ('Tensor.bool(memory_format=torch.preserve_format) -> Tensor',
        ('``self.to(torch.bool)``. Returns ``self`` when it already has that dtype; otherwise '
         'a copy that stays in the autograd graph.'),
        ""),
    'broadcast_to': ('Tensor.broadcast_to(shape) -> Tensor', None, ''),
    'byte': ('Tensor.byte(memory_format=torch.preserve_format) -> Tensor',
        ('``self.to(torch.uint8)``. Returns ``self`` when it already has that dtype; otherwise'
         ' a copy that stays in the autograd graph.'),
        ""),
    'ceil': ('Tensor.ceil() -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'ceil_': ('Tensor.ceil_() -> Tensor',
        ('In-place Tensor.ceil: writes the result into ``self`` and returns it; ``self`` keeps'
         ' its dtype (a result that cannot be cast to it raises RuntimeError).'), ""),
    'chunk': ('Tensor.chunk(chunks, dim=0) -> Tuple[Tensor, ...]', None, ''),
    'clamp': ('Tensor.clamp(min=None, max=None) -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'clamp_': ('Tensor.clamp_(min=None, max=None) -> Tensor',
        ('In-place Tensor.clamp: writes the result into ``self`` and returns it; ``self`` '
         'keeps its dtype (a result that cannot be cast to it raises RuntimeError).'), ""),
    'clamp_max': ('Tensor.clamp_max(max) -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'clamp_max_': ('Tensor.clamp_max_(max) -> Tensor',
        ('In-place Tensor.clamp_max: writes the result into ``self`` and returns it; ``self`` '
         'keeps its dtype (a result that cannot be cast to it raises RuntimeError).'), ""),
    'clamp_min': ('Tensor.clamp_min(min) -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'clamp_min_': ('Tensor.clamp_min_(min) -> Tensor',
        ('In-place Tensor.clamp_min: writes the result into ``self`` and returns it; ``self`` '
         'keeps its dtype (a result that cannot be cast to it raises RuntimeError).'), ""),
    'clip': ('Tensor.clip(min=None, max=None) -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'clip_': ('Tensor.clip_(min=None, max=None) -> Tensor',
        ('In-place Tensor.clip: writes the result into ``self`` and returns it; ``self`` keeps'
         ' its dtype (a result that cannot be cast to it raises RuntimeError).'), ""),
    'clone': ('Tensor.clone(*, memory_format=torch.preserve_format) -> Tensor', None, ''),
    'contiguous': ('Tensor.contiguous(memory_format=torch.contiguous_format) -> Tensor',
        ('``self`` if it is contiguous in ``memory_format`` (C order, or channels_last(_3d) '
         'for a 4-D (5-D) tensor), otherwise a copy laid out so; preserve_format is refused '
         'when a copy is needed, as torch does.'), ""),
    'copy_': ('Tensor.copy_(src, non_blocking=False) -> Tensor',
        ("Copies ``src`` (broadcast to self's shape, cast to self's dtype) into ``self`` in "
         'place and returns ``self``.'), ""),
    'cos': ('Tensor.cos() -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'cos_': ('Tensor.cos_() -> Tensor',
        ('In-place Tensor.cos: writes the result into ``self`` and returns it; ``self`` keeps '
         'its dtype (a result that cannot be cast to it raises RuntimeError).'), ""),
    'cosh': ('Tensor.cosh() -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'count_nonzero': ('Tensor.count_nonzero(dim=None) -> Tensor', None, ''),
    'cpu': ('Tensor.cpu(memory_format=torch.preserve_format) -> Tensor',
        "",
        "Differs from torch: torch's ``memory_format`` is not accepted here."),
    'cuda': (
        ('Tensor.cuda(device=None, non_blocking=False, memory_format=torch.preserve_format) ->'
         ' Tensor'),
        "Raises torch's 'Torch not compiled with CUDA enabled' error (no CUDA here).", ""),
    'cumprod': ('Tensor.cumprod(dim, *, dtype=None) -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'cumsum': ('Tensor.cumsum(dim, *, dtype=None) -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'data': ('Tensor.data -> Tensor', '', ''),
    'data_ptr': ('Tensor.data_ptr() -> int',
        'An integer address of the first element (equal for tensors that share it).', ""),
    'detach': ('Tensor.detach() -> Tensor', '', ''),
    'detach_': ('Tensor.detach_() -> Tensor',
        'Cuts ``self`` itself from the autograd graph (in place) and returns it.', ""),
    'device': ('Tensor.device -> torch.device', '', ''),
    'diag': ('Tensor.diag(diagonal=0) -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'diagonal': ('Tensor.diagonal(offset=0, dim1=0, dim2=1) -> Tensor', None, ''),
    'dim': ('Tensor.dim() -> int', 'The number of dims.', ''),
    'dist': ('Tensor.dist(other, p=2) -> Tensor', None, ''),
    'div': ('Tensor.div(other, *, rounding_mode=None) -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'div_': ('Tensor.div_(other, *, rounding_mode=None) -> Tensor',
        ('In-place Tensor.div: writes the result into ``self`` and returns it; ``self`` keeps '
         'its dtype (a result that cannot be cast to it raises RuntimeError).'), ""),
    'divide': ('Tensor.divide(other, *, rounding_mode=None) -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'divide_': ('Tensor.divide_(other, *, rounding_mode=None) -> Tensor',
        ('In-place Tensor.divide: writes the result into ``self`` and returns it; ``self`` '
         'keeps its dtype (a result that cannot be cast to it raises RuntimeError).'), ""),
    'dot': ('Tensor.dot(tensor) -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'double': ('Tensor.double(memory_format=torch.preserve_format) -> Tensor',
        ('``self.to(torch.float64)``. Returns ``self`` when it already has that dtype; '
         'otherwise a copy that stays in the autograd graph.'),
        ""),
    'dtype': ('Tensor.dtype -> torch.dtype', 'The element type (a torch.dtype).', ''),
    'element_size': ('Tensor.element_size() -> int', 'The size of one element in bytes.', ''),
    'itemsize': ('Tensor.itemsize -> int', 'The size of one element in bytes (``element_size()``).',
                 ''),
    'nbytes': ('Tensor.nbytes -> int',
               'The bytes of the elements the tensor spans: ``numel() * element_size()``.', ''),
    'ndimension': ('Tensor.ndimension() -> int', 'The number of dims (``dim()``).', ''),
    'storage_offset': ('Tensor.storage_offset() -> int',
        ('The offset of the first element, in elements, from the start of the memory the tensor '
         'views (0 for a tensor that owns its memory).'), ''),
    'eq': ('Tensor.eq(other) -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'equal': ('Tensor.equal(other) -> bool', '', ''),
    'erf': ('Tensor.erf() -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'erf_': ('Tensor.erf_() -> Tensor',
        ('In-place Tensor.erf: writes the result into ``self`` and returns it; ``self`` keeps '
         'its dtype (a result that cannot be cast to it raises RuntimeError).'), ""),
    'erfinv': ('Tensor.erfinv() -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'erfinv_': ('Tensor.erfinv_() -> Tensor',
        ('In-place Tensor.erfinv: writes the result into ``self`` and returns it; ``self`` '
         'keeps its dtype (a result that cannot be cast to it raises RuntimeError).'), ""),
    'exp': ('Tensor.exp() -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'exp2': ('Tensor.exp2() -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'sinc': ('Tensor.sinc() -> Tensor',
        "``torch.sinc(self)``.",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'exp_': ('Tensor.exp_() -> Tensor',
        ('In-place Tensor.exp: writes the result into ``self`` and returns it; ``self`` keeps '
         'its dtype (a result that cannot be cast to it raises RuntimeError).'), ""),
    'expand': ('Tensor.expand(*sizes) -> Tensor',
        ('A view repeating size-1 dims without copying (stride 0); -1 keeps a dim, new leading '
         'dims may be added.'), ''),
    'expand_as': ('Tensor.expand_as(other) -> Tensor', '``self.expand(other.size())``.', ''),
    'expm1': ('Tensor.expm1() -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'expm1_': ('Tensor.expm1_() -> Tensor',
        ('In-place Tensor.expm1: writes the result into ``self`` and returns it; ``self`` '
         'keeps its dtype (a result that cannot be cast to it raises RuntimeError).'), ""),
    'exponential_': ('Tensor.exponential_(lambd=1, *, generator=None) -> Tensor',
        ('Fills ``self`` in place with samples of the exponential distribution with rate '
         '``lambd``.'),
        ''),
    'fill_': ('Tensor.fill_(value) -> Tensor',
        ('Fills ``self`` with ``value`` (a number or 0-d tensor) in place; a number the dtype '
         'cannot hold raises.'), ""),
    'flatten': ('Tensor.flatten(start_dim=0, end_dim=-1) -> Tensor', None, ''),
    'flip': ('Tensor.flip(dims) -> Tensor', None, ''),
    'float': ('Tensor.float(memory_format=torch.preserve_format) -> Tensor',
        ('``self.to(torch.float32)``. Returns ``self`` when it already has that dtype; '
         'otherwise a copy that stays in the autograd graph.'),
        ""),
    'float_power': ('Tensor.float_power(exponent) -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'floor': ('Tensor.floor() -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'floor_': ('Tensor.floor_() -> Tensor',
        ('In-place Tensor.floor: writes the result into ``self`` and returns it; ``self`` '
         'keeps its dtype (a result that cannot be cast to it raises RuntimeError).'), ""),
    'floor_divide': ('Tensor.floor_divide(other) -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'fmod': ('Tensor.fmod(other) -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'gather': ('Tensor.gather(dim, index, *, sparse_grad=False) -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'ge': ('Tensor.ge(other) -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'grad': ('Tensor.grad -> Tensor or None', '', ''),
    'greater': ('Tensor.greater(other) -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'greater_equal': ('Tensor.greater_equal(other) -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'gt': ('Tensor.gt(other) -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'half': ('Tensor.half(memory_format=torch.preserve_format) -> Tensor',
        ('``self.to(torch.float16)``. Returns ``self`` when it already has that dtype; '
         'otherwise a copy that stays in the autograd graph.'),
        ""),
    'index_add': ('Tensor.index_add(dim, index, source, *, alpha=1) -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'index_add_': ('Tensor.index_add_(dim, index, source, *, alpha=1) -> Tensor',
        ('In-place Tensor.index_add: adds alpha * source[i] to slice index[i] along ``dim`` of'
         " ``self`` and returns it; ``source`` must have ``self``'s dtype."), ""),
    'index_copy': ('Tensor.index_copy(dim, index, source) -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'index_copy_': ('Tensor.index_copy_(dim, index, source) -> Tensor',
        ('In-place Tensor.index_copy: writes source[i] to slice index[i] along ``dim`` of '
         '``self`` and returns it.'), ""),
    'index_fill': ('Tensor.index_fill(dim, index, value) -> Tensor', '', ''),
    'index_fill_': ('Tensor.index_fill_(dim, index, value) -> Tensor',
        ("In-place Tensor.index_fill: writes ``value`` (converted to ``self``'s dtype) into "
         'the slices at ``index`` along ``dim`` and returns ``self``.'), ""),
    'index_put_': ('Tensor.index_put_(indices, values, accumulate=False) -> Tensor',
        ('``self[indices] = values`` in place, where ``indices`` is a tuple of index tensors; '
         'with ``accumulate=True`` values are added (repeated indices accumulate).'), ""),
    'index_select': ('Tensor.index_select(dim, index) -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'int': ('Tensor.int(memory_format=torch.preserve_format) -> Tensor',
        ('``self.to(torch.int32)``. Returns ``self`` when it already has that dtype; otherwise'
         ' a copy that stays in the autograd graph.'),
        ""),
    'is_contiguous': ('Tensor.is_contiguous(memory_format=torch.contiguous_format) -> bool',
        ('True when the elements are laid out in C order without gaps (with '
         '``memory_format=torch.channels_last(_3d)``: in that order, dims of size 1 taking any '
         'stride; False for another rank).'), ""),
    'is_cuda': ('Tensor.is_cuda -> bool', 'Always False here (no CUDA tensors).', ''),
    'is_floating_point': ('Tensor.is_floating_point() -> bool',
        'True when the dtype is a floating dtype.', ""),
    'is_inference': ('Tensor.is_inference() -> bool',
        ('True for an inference tensor: memory made inside ``torch.inference_mode()`` (and the '
         'views of it). Outside inference mode such a tensor refuses in-place updates, being '
         'saved for backward and ``requires_grad``; ``clone()`` gives an ordinary tensor.'), ""),
    'is_nonzero': ('Tensor.is_nonzero() -> bool',
        'The truth value of a one-element tensor (RuntimeError for other sizes).', ""),
    'is_leaf': ('Tensor.is_leaf -> bool',
        ('True for a tensor created by the user (or one that does not require grad); False for'
         ' a result of an op recorded by autograd.'), ""),
    'is_meta': ('Tensor.is_meta -> bool', 'True for a meta tensor (shape and dtype only).', ''),
    'isclose': ('Tensor.isclose(other, rtol=1e-05, atol=1e-08, equal_nan=False) -> Tensor', '', ''),
    'isfinite': ('Tensor.isfinite() -> Tensor', None, ''),
    'isinf': ('Tensor.isinf() -> Tensor', None, ''),
    'isnan': ('Tensor.isnan() -> Tensor', None, ''),
    'item': ('Tensor.item() -> number',
        'The value of a one-element tensor as a Python number.', ""),
    'le': ('Tensor.le(other) -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'lerp': ('Tensor.lerp(end, weight)',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'lerp_': ('Tensor.lerp_(end, weight) -> Tensor',
        ('In-place Tensor.lerp: writes the result into ``self`` and returns it; ``self`` keeps'
         ' its dtype (a result that cannot be cast to it raises RuntimeError).'), ""),
    'less': ('Tensor.less(other) -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'less_equal': ('Tensor.less_equal(other) -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'log': ('Tensor.log() -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'log10': ('Tensor.log10() -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'log1p': ('Tensor.log1p() -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'log1p_': ('Tensor.log1p_() -> Tensor',
        ('In-place Tensor.log1p: writes the result into ``self`` and returns it; ``self`` '
         'keeps its dtype (a result that cannot be cast to it raises RuntimeError).'), ""),
    'log2': ('Tensor.log2() -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'log_': ('Tensor.log_() -> Tensor',
        ('In-place Tensor.log: writes the result into ``self`` and returns it; ``self`` keeps '
         'its dtype (a result that cannot be cast to it raises RuntimeError).'), ""),
    'log_softmax': ('Tensor.log_softmax(dim, dtype=None) -> Tensor',
        'See torch.log_softmax (``axis`` is accepted for ``dim``).', ""),
    'logical_and': ('Tensor.logical_and(other) -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'logical_not': ('Tensor.logical_not() -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'logical_or': ('Tensor.logical_or(other) -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'logical_xor': ('Tensor.logical_xor(other) -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'logsumexp': ('Tensor.logsumexp(dim, keepdim=False)',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'long': ('Tensor.long(memory_format=torch.preserve_format) -> Tensor',
        ('``self.to(torch.int64)``. Returns ``self`` when it already has that dtype; otherwise'
         ' a copy that stays in the autograd graph.'),
        ""),
    'lt': ('Tensor.lt(other) -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'mT': ('Tensor.mT -> Tensor',
        'A view with the last two dims swapped (a batch of matrices transposed).', ""),
    'mH': ('Tensor.mH -> Tensor',
        ('The conjugate transpose of a batch of matrices: for our real dtypes, ``mT``.'), ""),
    'H': ('Tensor.H -> Tensor',
        ("The conjugate transpose of a matrix: for our real dtypes, ``t()``; other than 2-D "
         "raises (0-d: itself, with torch's one-time warning)."), ""),
    'real': ('Tensor.real -> Tensor', "``self`` (every dtype here is real).", ""),
    'imag': ('Tensor.imag -> Tensor',
        "Raises torch's RuntimeError: only complex tensors have an imaginary part.", ""),
    'masked_fill': ('Tensor.masked_fill(mask, value) -> Tensor', None, ''),
    'masked_fill_': ('Tensor.masked_fill_(mask, value)',
        ("In-place Tensor.masked_fill: writes ``value`` (converted to ``self``'s dtype) where "
         '``mask`` is True and returns ``self``.'), ""),
    'masked_select': ('Tensor.masked_select(mask) -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'matmul': ('Tensor.matmul(other) -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'max': (
        ('Tensor.max() -> Tensor\n'
         'Tensor.max(dim, keepdim=False) -> (Tensor, LongTensor)\n'
         'Tensor.max(other) -> Tensor'),
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'maximum': ('Tensor.maximum(other) -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'mean': (
        ('Tensor.mean(*, dtype=None) -> Tensor\n'
         'Tensor.mean(dim, keepdim=False, *, dtype=None) -> Tensor'),
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'median': (
        ('Tensor.median() -> Tensor\n'
         'Tensor.median(dim=-1, keepdim=False) -> (Tensor, LongTensor)'),
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'min': (
        ('Tensor.min() -> Tensor\n'
         'Tensor.min(dim, keepdim=False) -> (Tensor, LongTensor)\n'
         'Tensor.min(other) -> Tensor'),
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'minimum': ('Tensor.minimum(other) -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'mm': ('Tensor.mm(mat2) -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'moveaxis': ('Tensor.moveaxis(source, destination) -> Tensor', None, ''),
    'movedim': ('Tensor.movedim(source, destination) -> Tensor', None, ''),
    'mul': ('Tensor.mul(other) -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'mul_': ('Tensor.mul_(other) -> Tensor',
        ('In-place Tensor.mul: writes the result into ``self`` and returns it; ``self`` keeps '
         'its dtype (a result that cannot be cast to it raises RuntimeError).'), ""),
    'multinomial': (
        'Tensor.multinomial(num_samples, replacement=False, *, generator=None) -> LongTensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'multiply': ('Tensor.multiply(other)',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'multiply_': ('Tensor.multiply_(other) -> Tensor',
        ('In-place Tensor.multiply: writes the result into ``self`` and returns it; ``self`` '
         'keeps its dtype (a result that cannot be cast to it raises RuntimeError).'), ""),
    'mv': ('Tensor.mv(vec) -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'nan_to_num': ('Tensor.nan_to_num(nan=0.0, posinf=None, neginf=None) -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'nan_to_num_': ('Tensor.nan_to_num_(nan=0.0, posinf=None, neginf=None) -> Tensor', '', ''),
    'nansum': (
        ('Tensor.nansum(*, dtype=None) -> Tensor\n'
         'Tensor.nansum(dim, keepdim=False, *, dtype=None) -> Tensor'),
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'narrow': ('Tensor.narrow(dim, start, length) -> Tensor', None, ''),
    'ndim': ('Tensor.ndim -> int', 'The number of dims (same as ``dim()``).', ''),
    'ne': ('Tensor.ne(other) -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'neg': ('Tensor.neg() -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'neg_': ('Tensor.neg_() -> Tensor',
        ('In-place Tensor.neg: writes the result into ``self`` and returns it; ``self`` keeps '
         'its dtype (a result that cannot be cast to it raises RuntimeError).'), ""),
    'negative': ('Tensor.negative() -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'nelement': ('Tensor.nelement() -> int', 'Alias of Tensor.numel.', ''),
    'new_empty': (
        ('Tensor.new_empty(size, *, dtype=None, device=None, requires_grad=False, '
         'layout=torch.strided, pin_memory=False) -> Tensor'),
        ("A new tensor of ``size`` with ``self``'s dtype (unless ``dtype`` is given), not "
         'sharing anything with ``self``.'), ""),
    'new_full': (
        ('Tensor.new_full(size, fill_value, *, dtype=None, device=None, requires_grad=False, '
         'layout=torch.strided, pin_memory=False) -> Tensor'),
        ("A new tensor of ``size`` filled with ``fill_value``, with ``self``'s dtype unless "
         '``dtype`` is given.'),
        "Differs from torch: torch's ``layout``, ``pin_memory`` are not accepted here."),
    'new_ones': (
        ('Tensor.new_ones(size, *, dtype=None, device=None, requires_grad=False, '
         'layout=torch.strided, pin_memory=False) -> Tensor'),
        "A new tensor of ones of ``size``, with ``self``'s dtype unless ``dtype`` is given.", ""),
    'new_tensor': (
        ('Tensor.new_tensor(data, *, dtype=None, device=None, requires_grad=False, '
         'layout=torch.strided, pin_memory=False) -> Tensor'),
        "torch.tensor(data) with ``self``'s dtype unless ``dtype`` is given (a copy).",
        "Differs from torch: torch's ``layout``, ``pin_memory`` are not accepted here."),
    'new_zeros': (
        ('Tensor.new_zeros(size, *, dtype=None, device=None, requires_grad=False, '
         'layout=torch.strided, pin_memory=False) -> Tensor'),
        "A new tensor of zeros of ``size``, with ``self``'s dtype unless ``dtype`` is given.", ""),
    'nonzero': ('Tensor.nonzero(*, as_tuple=False) -> LongTensor or tuple of LongTensors', '', ''),
    'norm': ("Tensor.norm(p='fro', dim=None, keepdim=False, dtype=None)",
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'normal_': ('Tensor.normal_(mean=0, std=1, *, generator=None) -> Tensor',
        'Fills ``self`` in place with normal samples of the given ``mean`` and ``std``.',
        ''),
    'not_equal': ('Tensor.not_equal(other) -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'numel': ('Tensor.numel() -> int', 'The number of elements.', ''),
    'numpy': ('Tensor.numpy(*, force=False) -> numpy.ndarray',
        ('A numpy array sharing memory with ``self`` (zero copy). A tensor that requires grad,'
         " or one on the emulated wafer's lazy device, raises unless ``force=True``."), ""),
    'outer': ('Tensor.outer(vec2) -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'permute': ('Tensor.permute(dims) -> Tensor', None, ''),
    'pin_memory': ('Tensor.pin_memory() -> Tensor',
        'Returns ``self`` (no accelerator to pin memory for).', ""),
    'pow': ('Tensor.pow(exponent) -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'pow_': ('Tensor.pow_(exponent) -> Tensor',
        ('In-place Tensor.pow: writes the result into ``self`` and returns it; ``self`` keeps '
         'its dtype (a result that cannot be cast to it raises RuntimeError).'), ""),
    'prod': (
        ('Tensor.prod(*, dtype=None) -> Tensor\n'
         'Tensor.prod(dim, keepdim=False, *, dtype=None) -> Tensor'),
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'random_': ('Tensor.random_(from=0, to=None, *, generator=None) -> Tensor',
        ('Fills ``self`` in place with integers uniform in [from, to) (to defaults to the '
         "dtype's range)."),
        ("Differs from torch: the bounds are the parameters ``a`` and ``b`` here (torch's "
         'keywords are ``from``, ``to``); positional calls agree.')),
    'reciprocal': ('Tensor.reciprocal() -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'reciprocal_': ('Tensor.reciprocal_() -> Tensor',
        ('In-place Tensor.reciprocal: writes the result into ``self`` and returns it; ``self``'
         ' keeps its dtype (a result that cannot be cast to it raises RuntimeError).'), ""),
    'register_hook': ('Tensor.register_hook(hook)', '', ''),
    'register_post_accumulate_grad_hook': ('Tensor.register_post_accumulate_grad_hook(hook)',
        ('Registers ``hook(tensor)`` to run on a leaf after its ``.grad`` has been '
         'accumulated.'), ""),
    'relu': ('Tensor.relu() -> Tensor', None, ''),
    'relu_': ('Tensor.relu_() -> Tensor',
        ('In-place Tensor.relu: writes the result into ``self`` and returns it; ``self`` keeps'
         ' its dtype (a result that cannot be cast to it raises RuntimeError).'), ""),
    'remainder': ('Tensor.remainder(other) -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'sum_to_size': ('Tensor.sum_to_size(*size) -> Tensor',
        ('The sum of the tensor down to ``size``, a shape that expands to its own: leading dims '
         'and dims of size 1 in ``size`` are summed away (RuntimeError when ``size`` does not '
         'expand to the shape).'), ""),
    'repeat': ('Tensor.repeat(*repeats) -> Tensor',
        ('A copy with the whole tensor repeated ``repeats[i]`` times along dim i (more repeats'
         ' than dims add leading dims).'), ""),
    'repeat_interleave': (
        ('Tensor.repeat_interleave(repeats, dim=None, *, output_size=None) -> Tensor\n'
         'Tensor.repeat_interleave() -> Tensor'),
        "", ""),
    'requires_grad': ('Tensor.requires_grad -> bool',
        ('Whether autograd records operations on this tensor; only floating tensors can '
         'require grad. Settable on leaves.'), ""),
    'requires_grad_': ('Tensor.requires_grad_(requires_grad=True) -> Tensor',
        'Sets ``requires_grad`` in place and returns ``self``.', ""),
    'reshape': ('Tensor.reshape(shape) -> Tensor', None, ''),
    'reshape_as': ('Tensor.reshape_as(other) -> Tensor', '``self.reshape(other.size())``.', ''),
    'retain_grad': ('Tensor.retain_grad() -> None',
        'Makes this non-leaf tensor keep its ``.grad`` after backward.', ""),
    'retains_grad': ('Tensor.retains_grad -> bool',
        'True when ``retain_grad()`` was called on this non-leaf tensor.', ""),
    'roll': ('Tensor.roll(shifts, dims=None) -> Tensor', None, ''),
    'round': ('Tensor.round(*, decimals=0) -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'round_': ('Tensor.round_(decimals=0) -> Tensor',
        ('In-place Tensor.round: writes the result into ``self`` and returns it; ``self`` '
         'keeps its dtype (a result that cannot be cast to it raises RuntimeError).'),
        ''),
    'rsqrt': ('Tensor.rsqrt() -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'rsqrt_': ('Tensor.rsqrt_() -> Tensor',
        ('In-place Tensor.rsqrt: writes the result into ``self`` and returns it; ``self`` '
         'keeps its dtype (a result that cannot be cast to it raises RuntimeError).'), ""),
    'scatter': (
        ('Tensor.scatter(dim, index, src, *, reduce=None) -> Tensor\n'
         'Tensor.scatter(dim, index, value, *, reduce=None) -> Tensor'),
        "", ""),
    'scatter_': (
        ('Tensor.scatter_(dim, index, src, *, reduce=None) -> Tensor\n'
         'Tensor.scatter_(dim, index, value, *, reduce=None) -> Tensor'),
        ('In-place Tensor.scatter: writes ``src`` (or ``value``) into ``self`` at ``index`` '
         'along ``dim`` and returns ``self``.'), ""),
    'scatter_add': ('Tensor.scatter_add(dim, index, src) -> Tensor', None, ''),
    'scatter_add_': ('Tensor.scatter_add_(dim, index, src) -> Tensor',
        ('In-place Tensor.scatter_add: adds ``src`` into ``self`` at ``index`` along ``dim`` '
         '(repeated indices accumulate) and returns ``self``.'), ""),
    'select': ('Tensor.select(dim, index) -> Tensor', None, ''),
    'sgn': ('Tensor.sgn() -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'shape': ('Tensor.shape -> torch.Size',
        'The size of each dim, as a torch.Size (same as ``size()``).', ""),
    'share_memory_': ('Tensor.share_memory_()',
        'Returns ``self`` (no shared-memory move is needed here).', ""),
    'char': ('Tensor.char(memory_format=torch.preserve_format) -> Tensor',
        '``self.to(torch.int8)``.', ""),
    'short': ('Tensor.short(memory_format=torch.preserve_format) -> Tensor',
        ('``self.to(torch.int16)``. Returns ``self`` when it already has that dtype; otherwise'
         ' a copy that stays in the autograd graph.'),
        ""),
    'sigmoid': ('Tensor.sigmoid() -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'sigmoid_': ('Tensor.sigmoid_() -> Tensor',
        ('In-place Tensor.sigmoid: writes the result into ``self`` and returns it; ``self`` '
         'keeps its dtype (a result that cannot be cast to it raises RuntimeError).'), ""),
    'sign': ('Tensor.sign() -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'sign_': ('Tensor.sign_() -> Tensor',
        ('In-place Tensor.sign: writes the result into ``self`` and returns it; ``self`` keeps'
         ' its dtype (a result that cannot be cast to it raises RuntimeError).'), ""),
    'sin': ('Tensor.sin() -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'sin_': ('Tensor.sin_() -> Tensor',
        ('In-place Tensor.sin: writes the result into ``self`` and returns it; ``self`` keeps '
         'its dtype (a result that cannot be cast to it raises RuntimeError).'), ""),
    'sinh': ('Tensor.sinh() -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'size': ('Tensor.size(dim=None) -> torch.Size or int',
        'The shape as a torch.Size, or the size of one ``dim``.', ""),
    'softmax': ('Tensor.softmax(dim, dtype=None) -> Tensor',
        'See torch.softmax (``axis`` is accepted for ``dim``).', ""),
    'sort': ('Tensor.sort(dim=-1, descending=False, *, stable=False) -> (Tensor, LongTensor)',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'split': ('Tensor.split(split_size, dim=0)', 'See torch.split.', ''),
    'sqrt': ('Tensor.sqrt() -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'sqrt_': ('Tensor.sqrt_() -> Tensor',
        ('In-place Tensor.sqrt: writes the result into ``self`` and returns it; ``self`` keeps'
         ' its dtype (a result that cannot be cast to it raises RuntimeError).'), ""),
    'square': ('Tensor.square() -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'square_': ('Tensor.square_() -> Tensor',
        ('In-place Tensor.square: writes the result into ``self`` and returns it; ``self`` '
         'keeps its dtype (a result that cannot be cast to it raises RuntimeError).'), ""),
    'squeeze': ('Tensor.squeeze(dim=None) -> Tensor', None, ''),
    'squeeze_': ('Tensor.squeeze_(dim=None) -> Tensor',
        ("In-place Tensor.squeeze: changes ``self``'s shape and strides (not its data) and "
         'returns ``self``.'), ""),
    'std': (
        ('Tensor.std(dim=None, *, correction=1, keepdim=False) -> Tensor\n'
         'Tensor.std(dim, unbiased, keepdim=False) -> Tensor'),
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'stride': ('Tensor.stride(dim) -> tuple or int',
        'The step, in elements, between neighbours along each dim (or along ``dim``).', ""),
    'sub': ('Tensor.sub(other, *, alpha=1) -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'sub_': ('Tensor.sub_(other, *, alpha=1) -> Tensor',
        ('In-place Tensor.sub: writes the result into ``self`` and returns it; ``self`` keeps '
         'its dtype (a result that cannot be cast to it raises RuntimeError).'), ""),
    'subtract': ('Tensor.subtract(other, *, alpha=1) -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'subtract_': ('Tensor.subtract_(other, *, alpha=1) -> Tensor',
        ('In-place Tensor.subtract: writes the result into ``self`` and returns it; ``self`` '
         'keeps its dtype (a result that cannot be cast to it raises RuntimeError).'), ""),
    'sum': (
        ('Tensor.sum(*, dtype=None) -> Tensor\n'
         'Tensor.sum(dim, keepdim=False, *, dtype=None) -> Tensor'),
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'swapaxes': ('Tensor.swapaxes(axis0, axis1) -> Tensor',
        "",
        ("Differs from torch: the method's dims are the keywords ``dim0``, ``dim1`` here "
         '(torch: ``axis0``, ``axis1``).')),
    'swapdims': ('Tensor.swapdims(dim0, dim1) -> Tensor', None, ''),
    't': ('Tensor.t() -> Tensor', None, ''),
    't_': ('Tensor.t_() -> Tensor',
        ("In-place Tensor.t: changes ``self``'s shape and strides (not its data) and returns "
         '``self``.'), ""),
    'tan': ('Tensor.tan() -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'tanh': ('Tensor.tanh() -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'tanh_': ('Tensor.tanh_() -> Tensor',
        ('In-place Tensor.tanh: writes the result into ``self`` and returns it; ``self`` keeps'
         ' its dtype (a result that cannot be cast to it raises RuntimeError).'), ""),
    'tensor_split': (
        ('Tensor.tensor_split(indices_or_sections, dim=0) -> List of Tensors\n'
         'Tensor.tensor_split(sections, dim=0) -> List of Tensors\n'
         'Tensor.tensor_split(indices, dim=0) -> List of Tensors'),
        "",
        ('Differs from torch: the second argument is the keyword ``indices_or_sections`` here,'
         " where torch's binding names it ``sections`` (an int) or ``indices`` (a list).")),
    'tile': ('Tensor.tile(dims) -> Tensor',
        'See torch.tile (the repetitions may also be given as separate ints).', ""),
    'to': (
        ('Tensor.to(*args, **kwargs) -> Tensor\n'
         'Tensor.to(dtype, non_blocking=False, copy=False, '
         'memory_format=torch.preserve_format) -> Tensor\n'
         'Tensor.to(device=None, dtype=None, non_blocking=False, copy=False, '
         'memory_format=torch.preserve_format) -> Tensor\n'
         'Tensor.to(other, non_blocking=False, copy=False) -> Tensor'),
        "", ""),
    'tolist': ('Tensor.tolist() -> list or number',
        'The elements as nested Python lists (a Python number for a 0-d tensor).', ""),
    'topk': ('Tensor.topk(k, dim=None, largest=True, sorted=True) -> (Tensor, LongTensor)',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'trace': ('Tensor.trace() -> Tensor', None, ''),
    'transpose': ('Tensor.transpose(dim0, dim1) -> Tensor', None, ''),
    'transpose_': ('Tensor.transpose_(dim0, dim1) -> Tensor',
        ("In-place Tensor.transpose: changes ``self``'s shape and strides (not its data) and "
         'returns ``self``.'), ""),
    'swapaxes_': ('Tensor.swapaxes_(axis0, axis1) -> Tensor', "``transpose_``.", ""),
    'swapdims_': ('Tensor.swapdims_(dim0, dim1) -> Tensor', "``transpose_``.", ""),
    'tril': ('Tensor.tril(diagonal=0) -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'tril_': ('Tensor.tril_(diagonal=0) -> Tensor',
        ('In-place Tensor.tril: writes the result into ``self`` and returns it; ``self`` keeps'
         ' its dtype (a result that cannot be cast to it raises RuntimeError).'), ""),
    'triu': ('Tensor.triu(diagonal=0) -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'triu_': ('Tensor.triu_(diagonal=0) -> Tensor',
        ('In-place Tensor.triu: writes the result into ``self`` and returns it; ``self`` keeps'
         ' its dtype (a result that cannot be cast to it raises RuntimeError).'), ""),
    'true_divide': ('Tensor.true_divide(other) -> Tensor',
        "",
        ("Differs from torch: the method form also takes ``out`` (torch's methods do not); "
         'also takes ``rounding_mode``.')),
    'trunc': ('Tensor.trunc() -> Tensor',
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'trunc_': ('Tensor.trunc_() -> Tensor',
        ('In-place Tensor.trunc: writes the result into ``self`` and returns it; ``self`` '
         'keeps its dtype (a result that cannot be cast to it raises RuntimeError).'), ""),
    'type': ('Tensor.type(dtype=None, non_blocking=False, **kwargs) -> str or Tensor',
        ("Without ``dtype``: the legacy type name ('torch.FloatTensor'); with a dtype or a "
         'legacy name: ``self.to(...)``.'), ""),
    'type_as': ('Tensor.type_as(other) -> Tensor', '``self.to(other.dtype)``.', ''),
    'unfold': ('Tensor.unfold(dimension, size, step) -> Tensor',
        ('A view of every ``size``-long window along ``dimension``, ``step`` apart: that dim '
         'counts the windows ((n - size) // step + 1) and a new last dim holds each window '
         '(strides ``step * stride`` and ``stride``, so overlapping windows share memory); a 0-d '
         'tensor gives shape ``(size,)``. torch\'s checks in its order: the dim, '
         '``size <= n``, ``size >= 0``, ``step > 0``. The gradient adds each window\'s '
         'gradient back at its place.'), ''),
    'unbind': ('Tensor.unbind(dim=0) -> seq', None, ''),
    'unflatten': ('Tensor.unflatten(dim, sizes) -> Tensor', None, ''),
    'uniform_': ('Tensor.uniform_(from=0, to=1, *, generator=None) -> Tensor',
        'Fills ``self`` in place with uniform samples in [from, to).',
        ("Differs from torch: the bounds are the parameters ``a`` and ``b`` here (torch's "
         'keywords are ``from``, ``to``); positional calls agree.')),
    'unique': (
        ('Tensor.unique(sorted=True, return_inverse=False, return_counts=False, dim=None) -> '
         'tuple[Tensor, Tensor, Tensor]'),
        "", ""),
    'unsqueeze': ('Tensor.unsqueeze(dim) -> Tensor', None, ''),
    'unsqueeze_': ('Tensor.unsqueeze_(dim) -> Tensor',
        ("In-place Tensor.unsqueeze: changes ``self``'s shape and strides (not its data) and "
         'returns ``self``.'), ""),
    'var': (
        ('Tensor.var(dim=None, *, correction=1, keepdim=False) -> Tensor\n'
         'Tensor.var(dim, unbiased, keepdim=False) -> Tensor'),
        "",
        "Differs from torch: the method form also takes ``out`` (torch's methods do not)."),
    'view': ('Tensor.view(*shape) -> Tensor',
        ('A view with the given shape (one -1 is inferred), sharing storage; the shape must be '
         'compatible with the strides (otherwise RuntimeError: use reshape).'), ''),
    'view_as': ('Tensor.view_as(other) -> Tensor', '``self.view(other.size())``.', ''),
    'where': ('Tensor.where(condition, other) -> Tensor',
        '``torch.where(condition, self, other)``.', ""),
    'zero_': ('Tensor.zero_() -> Tensor', 'Fills ``self`` with zeros in place.', ''),
}


from .tensor_more import TENSOR_MORE  # noqa: E402  (the in-place forms added later)

TENSOR.update(TENSOR_MORE)

from .added_ops import METHODS as _ADDED  # noqa: E402  (the ops added later)

TENSOR.update(_ADDED)
