"""Docstrings of ``torch``'s functional surface (math, reductions, shape, indexing, linear algebra).

Entries are ``name: (signature lines, rule, differences)``, as :mod:`minitorch_cs.torch._docs`
describes.
"""

TORCH_FUNCTIONS = {  # torch.<name>
    'abs': ('abs(input, *, out=None) -> Tensor',
        ("|x|, elementwise; the result keeps the input's dtype. A bool input raises "
         'NotImplementedError (torch has no bool kernel).'), ""),
    'absolute': ('absolute(input, *, out=None) -> Tensor', 'Alias of torch.abs.', ''),
    'acos': ('acos(input, *, out=None) -> Tensor',
        ('Inverse cosine, elementwise (NaN outside [-1, 1]); integer and bool inputs give the '
         'default float dtype, float16/bfloat16 compute in float32 and round once.'), ""),
    'acosh': ('acosh(input, *, out=None) -> Tensor',
        ('Inverse hyperbolic cosine, elementwise (NaN below 1); integer and bool inputs give '
         'the default float dtype, float16/bfloat16 compute in float32 and round once.'), ""),
    'add': ('add(input, other, *, alpha=1, out=None) -> Tensor',
        ('input + alpha * other, elementwise with broadcasting; the result dtype is '
         'torch.result_type of the operands. An integer result refuses a float ``alpha``.'), ""),
    'addbmm': ('addbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None) -> Tensor', '', ''),
    'addcdiv': ('addcdiv(input, tensor1, tensor2, *, value=1, out=None) -> Tensor',
        ('input + value * tensor1 / tensor2, elementwise with broadcasting; integer '
         '``tensor1``/``tensor2`` raise (torch refuses integer division here).'), ""),
    'addcmul': ('addcmul(input, tensor1, tensor2, *, value=1, out=None) -> Tensor',
        ('input + value * tensor1 * tensor2, elementwise with broadcasting in the promoted '
         'dtype of the three tensors.'), ""),
    'addmm': (
        ('addmm(input, mat1, mat2, *, beta=1, alpha=1, out=None) -> Tensor\n'
         'addmm(input, mat1, mat2, out_dtype, *, beta=1, alpha=1, out=None) -> Tensor'),
        ("beta * input + alpha * (mat1 @ mat2), ``input`` broadcasting to the product's shape;"
         ' with beta=0 ``input`` is ignored (NaN included).'),
        "Differs from torch: torch's ``out_dtype`` is not accepted here."),
    'all': (
        ('all(input, *, out=None) -> Tensor\n'
         'all(input, dim, keepdim=False, *, out=None) -> Tensor'),
        ('True when every element (over ``dim`` if given) is nonzero; the result is bool '
         '(uint8 input gives uint8, as torch).'), ""),
    'allclose': ('allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False) -> bool', '', ''),
    'amax': ('amax(input, dim=None, keepdim=False, *, out=None) -> Tensor',
        ('The largest values over ``dim`` (an int or tuple; all dims when empty); the gradient'
         ' is shared evenly among the elements equal to the maximum.'), ""),
    'amin': ('amin(input, dim=None, keepdim=False, *, out=None) -> Tensor',
        ('The smallest values over ``dim`` (an int or tuple; all dims when empty); the '
         'gradient is shared evenly among the elements equal to the minimum.'), ""),
    'any': (
        ('any(input, *, out=None) -> Tensor\n'
         'any(input, dim, keepdim=False, *, out=None) -> Tensor'),
        ('True when some element (over ``dim`` if given) is nonzero; the result is bool (uint8'
         ' input gives uint8, as torch).'), ""),
    'arccos': ('arccos(input, *, out=None) -> Tensor', 'Alias of torch.acos.', ''),
    'arccosh': ('arccosh(input, *, out=None) -> Tensor', 'Alias of torch.acosh.', ''),
    'arcsin': ('arcsin(input, *, out=None) -> Tensor', 'Alias of torch.asin.', ''),
    'arcsinh': ('arcsinh(input, *, out=None) -> Tensor', 'Alias of torch.asinh.', ''),
    'arctan': ('arctan(input, *, out=None) -> Tensor', 'Alias of torch.atan.', ''),
    'arctanh': ('arctanh(input, *, out=None) -> Tensor', 'Alias of torch.atanh.', ''),
    'argmax': (
        ('argmax(input) -> LongTensor\n'
         'argmax(input, dim, keepdim=False, *, out=None) -> LongTensor'),
        ('The int64 index of the largest element, of the flattened input or along ``dim`` (the'
         ' first one among ties; NaN counts as largest).'), ""),
    'argmin': ('argmin(input, dim=None, keepdim=False, *, out=None) -> LongTensor',
        ('The int64 index of the smallest element, of the flattened input or along ``dim`` '
         '(the first one among ties; NaN counts as smallest).'), ""),
    'argsort': ('argsort(input, dim=-1, descending=False, *, stable=False) -> Tensor',
        'The indices that sort ``input`` along ``dim`` (the indices of torch.sort).', ""),
    'asin': ('asin(input, *, out=None) -> Tensor',
        ('Inverse sine, elementwise (NaN outside [-1, 1]); integer and bool inputs give the '
         'default float dtype, float16/bfloat16 compute in float32 and round once.'), ""),
    'asinh': ('asinh(input, *, out=None) -> Tensor',
        ('Inverse hyperbolic sine, elementwise; integer and bool inputs give the default float'
         ' dtype, float16/bfloat16 compute in float32 and round once.'), ""),
    'atan': ('atan(input, *, out=None) -> Tensor',
        ('Inverse tangent, elementwise, in (-pi/2, pi/2); integer and bool inputs give the '
         'default float dtype, float16/bfloat16 compute in float32 and round once.'), ""),
    'atan2': ('atan2(input, other, *, out=None) -> Tensor',
        ('The angle of (other, input), i.e. atan(input / other) with the quadrant from both '
         'signs, in [-pi, pi], elementwise with broadcasting; the result dtype is '
         'torch.result_type of the operands. Integer operands give the default float dtype.'), ""),
    'atanh': ('atanh(input, *, out=None) -> Tensor',
        ('Inverse hyperbolic tangent, elementwise (±inf at ±1, NaN outside); integer and bool '
         'inputs give the default float dtype, float16/bfloat16 compute in float32 and round '
         'once.'), ""),
    'baddbmm': (
        ('baddbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None) -> Tensor\n'
         'baddbmm(input, batch1, batch2, out_dtype, *, beta=1, alpha=1, out=None) -> Tensor'),
        "",
        "Differs from torch: torch's ``out_dtype`` is not accepted here."),
    'bernoulli': (
        ('bernoulli(input, *, generator=None, out=None) -> Tensor\n'
         'bernoulli(input, p, *, generator=None) -> Tensor'),
        "", ""),
    'bincount': ('bincount(input, weights=None, minlength=0) -> Tensor', '', ''),
    'bitwise_and': ('bitwise_and(input, other, *, out=None) -> Tensor',
        ('Bitwise AND, elementwise with broadcasting over integer or bool tensors (bool stays '
         'bool); floating inputs raise RuntimeError.'), ""),
    'bitwise_not': ('bitwise_not(input, *, out=None) -> Tensor',
        ('Bitwise NOT (~x) of an integer tensor, logical NOT of a bool tensor; floating inputs'
         ' raise RuntimeError.'), ""),
    'bitwise_or': ('bitwise_or(input, other, *, out=None) -> Tensor',
        ('Bitwise OR, elementwise with broadcasting over integer or bool tensors (bool stays '
         'bool); floating inputs raise RuntimeError.'), ""),
    'bitwise_xor': ('bitwise_xor(input, other, *, out=None) -> Tensor',
        ('Bitwise XOR, elementwise with broadcasting over integer or bool tensors (bool stays '
         'bool); floating inputs raise RuntimeError.'), ""),
    'bmm': (
        ('bmm(input, mat2, *, out=None) -> Tensor\n'
         'bmm(input, mat2, out_dtype, *, out=None) -> Tensor'),
        ('Batched product of two 3-D tensors (b, n, m) @ (b, m, p) (no broadcasting); both '
         'must have the same dtype.'),
        "Differs from torch: torch's ``out_dtype`` is not accepted here."),
    'broadcast_shapes': ('broadcast_shapes(*shapes) -> Size',
        'The shape (torch.Size) the given shapes broadcast to; RuntimeError when they do not.', ""),
    'broadcast_tensors': ('broadcast_tensors(*tensors) -> List of Tensors',
        'The tensors broadcast to their common shape, as views.', ""),
    'broadcast_to': ('broadcast_to(input, shape) -> Tensor',
        "A view of ``input`` broadcast to ``shape`` (numpy's rules, -1 keeps a dim).", ""),
    'bucketize': (
        'bucketize(input, boundaries, *, out_int32=False, right=False, out=None) -> Tensor',
        "", ""),
    'cat': ('cat(tensors, dim=0, *, out=None) -> Tensor',
        ('Concatenates tensors of the same shape (except in ``dim``) along ``dim``; mixed '
         'dtypes promote; 1-D empty tensors are skipped.'), ""),
    'cdist': ("cdist(x1, x2, p=2.0, compute_mode='use_mm_for_euclid_dist_if_necessary')", '', ''),
    'ceil': ('ceil(input, *, out=None) -> Tensor',
        ('Smallest integer not below x, elementwise; integer inputs are returned unchanged; '
         "the result keeps the input's dtype."), ""),
    'chunk': ('chunk(input, chunks, dim=0) -> Tuple[Tensor, ...]',
        ('Splits into ``chunks`` nearly equal views along ``dim`` (ceil(size/chunks) each; '
         'fewer when the size does not allow).'), ""),
    'clamp': ('clamp(input, min=None, max=None, *, out=None) -> Tensor',
        ('Limits every element to [min, max] (either may be None; a tensor bound broadcasts); '
         'the dtype is the promoted dtype of input and bounds. Where min > max the result is '
         'max.'), ""),
    'clamp_max': ('clamp_max(input, max, *, out=None) -> Tensor',
        'torch.clamp with only an upper bound.', ""),
    'clamp_min': ('clamp_min(input, min, *, out=None) -> Tensor',
        'torch.clamp with only a lower bound.', ""),
    'clip': ('clip(input, min=None, max=None, *, out=None) -> Tensor', 'Alias of torch.clamp.', ''),
    'clone': ('clone(input, *, memory_format=torch.preserve_format) -> Tensor',
        ('A copy with its own storage that stays in the autograd graph (gradients flow back to'
         ' ``input``).'), ""),
    'concat': ('concat(tensors, dim=0, *, out=None) -> Tensor', 'Alias of torch.cat.', ''),
    'concatenate': ('concatenate(tensors, dim=0, *, out=None) -> Tensor',
        'Alias of torch.cat.', ""),
    'cos': ('cos(input, *, out=None) -> Tensor',
        ('Cosine, elementwise; integer and bool inputs give the default float dtype, '
         'float16/bfloat16 compute in float32 and round once.'), ""),
    'cosh': ('cosh(input, *, out=None) -> Tensor',
        ('Hyperbolic cosine, elementwise; integer and bool inputs give the default float '
         'dtype, float16/bfloat16 compute in float32 and round once.'), ""),
    'count_nonzero': ('count_nonzero(input, dim=None) -> Tensor',
        'The number of nonzero elements, over all of them or over ``dim``, as int64.', ""),
    'cumprod': ('cumprod(input, dim, *, dtype=None, out=None) -> Tensor',
        ('Running product along ``dim``; integer and bool inputs accumulate in int64 unless '
         '``dtype`` is given.'), ""),
    'cumsum': ('cumsum(input, dim, *, dtype=None, out=None) -> Tensor',
        ('Running sum along ``dim``; integer and bool inputs accumulate in int64 unless '
         '``dtype`` is given.'), ""),
    'diag': ('diag(input, diagonal=0, *, out=None) -> Tensor',
        ('From a 1-D tensor, a 2-D matrix with it on the ``diagonal``-th diagonal; from a 2-D '
         'tensor, that diagonal as a 1-D tensor.'), ""),
    'diagonal': ('diagonal(input, offset=0, dim1=0, dim2=1) -> Tensor',
        ('The ``offset``-th diagonal of the dims ``dim1``, ``dim2``, appended as the last dim.'
         ' The result is a view: it shares storage (and the version counter) with ``input``.'), ""),
    'digamma': ('digamma(input, *, out=None) -> Tensor',
        ('The digamma function (derivative of lgamma), elementwise; -inf at 0 as torch; '
         'integer and bool inputs give the default float dtype, float16/bfloat16 compute in '
         'float32 and round once.'), ""),
    'dist': ('dist(input, other, p=2) -> Tensor',
        'The p-norm of input - other (broadcast together).', ""),
    'div': ('div(input, other, *, rounding_mode=None, out=None) -> Tensor',
        ('input / other with broadcasting. Without ``rounding_mode`` it is true division '
         "(integer operands give the default float dtype); 'trunc' and 'floor' round the "
         'quotient and keep integer dtypes (integer division by zero raises).'), ""),
    'divide': ('divide(input, other, *, rounding_mode=None, out=None) -> Tensor',
        'Alias of torch.div.', ""),
    'dot': ('dot(input, tensor, *, out=None) -> Tensor',
        'Inner product of two 1-D tensors of the same dtype and length (a 0-d tensor).',
        ('Differs from torch: the second parameter is named ``other`` here (torch: '
         '``tensor``); positional calls agree.')),
    'einsum': ('einsum(equation, *operands) -> Tensor', '', ''),
    'eq': ('eq(input, other, *, out=None) -> Tensor',
        ('input == other, elementwise with broadcasting; the operands are compared in their '
         'promoted dtype (torch.result_type) and the result is bool.'), ""),
    'equal': ('equal(input, other) -> bool', '', ''),
    'erf': ('erf(input, *, out=None) -> Tensor',
        ('The error function, elementwise; integer and bool inputs give the default float '
         'dtype, float16/bfloat16 compute in float32 and round once.'), ""),
    'erfinv': ('erfinv(input, *, out=None) -> Tensor', '', ''),
    'exp': ('exp(input, *, out=None) -> Tensor',
        ('e**x, elementwise; integer and bool inputs give the default float dtype, '
         'float16/bfloat16 compute in float32 and round once.'), ""),
    'exp2': ('exp2(input, *, out=None) -> Tensor',
        ('2**x, elementwise; integer and bool inputs give the default float dtype, '
         'float16/bfloat16 compute in float32 and round once.'), ""),
    'sinc': ('sinc(input, *, out=None) -> Tensor',
        ('sin(pi x) / (pi x), elementwise, and 1 at 0; pi and the product are in the computing '
         'dtype (float32 for float32 and half inputs, which round once), so sinc(1.0) in '
         'float32 is -2.78e-08, as torch gives; integer and bool inputs give the default float '
         'dtype. The gradient is torch\'s formula grad * (pi x cos(pi x) - sin(pi x)) / '
         '(pi x^2), 0 at 0.'), ""),
    'expm1': ('expm1(input, *, out=None) -> Tensor',
        ('exp(x) - 1, accurate for small x, elementwise; integer and bool inputs give the '
         'default float dtype, float16/bfloat16 compute in float32 and round once.'), ""),
    'finfo': ('finfo(type=None) -> finfo', '', ''),
    'flatten': ('flatten(input, start_dim=0, end_dim=-1) -> Tensor',
        ('Merges dims ``start_dim``..``end_dim`` into one (a view when possible, otherwise a '
         'copy).'), ""),
    'flip': ('flip(input, dims) -> Tensor',
        'Reverses the order of elements along ``dims`` (a copy).', ""),
    'float_power': ('float_power(input, exponent, *, out=None) -> Tensor',
        'input ** exponent computed in float64 (the result is always float64).', ""),
    'floor': ('floor(input, *, out=None) -> Tensor',
        ('Largest integer not above x, elementwise; integer inputs are returned unchanged; the'
         " result keeps the input's dtype."), ""),
    'floor_divide': ('floor_divide(input, other, *, out=None) -> Tensor',
        ("Division rounded toward -inf (torch's floor_divide), elementwise with broadcasting "
         'in the promoted dtype; integer division by zero raises RuntimeError.'), ""),
    'fmod': ('fmod(input, other, *, out=None) -> Tensor',
        ('C-style modulus: the result has the sign of ``input``, elementwise with '
         'broadcasting; the result dtype is torch.result_type of the operands. Integer modulus'
         ' by zero raises RuntimeError.'), ""),
    'gather': ('gather(input, dim, index, *, sparse_grad=False, out=None) -> Tensor',
        ('out[i][j] = input[index[i][j]][j] for dim 0 (likewise for other dims); ``index`` is '
         "int64 with input's number of dims; an index outside [0, size) raises RuntimeError."), ""),
    'ge': ('ge(input, other, *, out=None) -> Tensor',
        ('input >= other, elementwise with broadcasting; the operands are compared in their '
         'promoted dtype (torch.result_type) and the result is bool.'), ""),
    'get_float32_matmul_precision': ('get_float32_matmul_precision() -> str', '', ''),
    'greater': ('greater(input, other, *, out=None) -> Tensor', 'Alias of torch.gt.', ''),
    'greater_equal': ('greater_equal(input, other, *, out=None) -> Tensor',
        'Alias of torch.ge.', ""),
    'gt': ('gt(input, other, *, out=None) -> Tensor',
        ('input > other, elementwise with broadcasting; the operands are compared in their '
         'promoted dtype (torch.result_type) and the result is bool.'), ""),
    'hstack': ('hstack(tensors, *, out=None) -> Tensor',
        'Concatenates along dim 1 (dim 0 for 1-D tensors).', ""),
    'iinfo': ('iinfo(type) -> iinfo', '', ''),
    'index_add': ('index_add(input, dim, index, source, *, alpha=1, out=None) -> Tensor', '', ''),
    'index_copy': ('index_copy(input, dim, index, source, *, out=None) -> Tensor', '', ''),
    'index_fill': ('index_fill(input, dim, index, value) -> Tensor', '', ''),
    'index_select': ('index_select(input, dim, index, *, out=None) -> Tensor',
        ('The slices of ``input`` at the 1-D int64/int32 ``index`` along ``dim`` (a copy); an '
         'index outside [0, size) raises.'), ""),
    'is_anomaly_check_nan_enabled': ('is_anomaly_check_nan_enabled() -> bool', '', ''),
    'is_anomaly_enabled': ('is_anomaly_enabled() -> bool', '', ''),
    'is_floating_point': ('is_floating_point(input) -> bool',
        "True when ``input``'s dtype is a floating dtype.", ""),
    'is_nonzero': ('is_nonzero(input) -> (bool)',
        'The truth value of a one-element tensor (RuntimeError for other sizes).', ""),
    'is_tensor': ("is_tensor(obj, /) -> typing_extensions.TypeIs[ForwardRef('Tensor')]",
        'True when ``obj`` is a Tensor (or a subclass such as Parameter).', ""),
    'isclose': ('isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False) -> Tensor', '', ''),
    'isfinite': ('isfinite(input) -> Tensor',
        ('True where the element is neither infinite nor NaN; bool result (integers are always'
         ' finite).'), ""),
    'isinf': ('isinf(input) -> Tensor', 'True where the element is +inf or -inf; bool result.', ''),
    'isnan': ('isnan(input) -> Tensor', 'True where the element is NaN; bool result.', ''),
    'kron': ('kron(input, other, *, out=None) -> Tensor', '', ''),
    'le': ('le(input, other, *, out=None) -> Tensor',
        ('input <= other, elementwise with broadcasting; the operands are compared in their '
         'promoted dtype (torch.result_type) and the result is bool.'), ""),
    'lerp': ('lerp(input, end, weight, *, out=None)', '', ''),
    'less': ('less(input, other, *, out=None) -> Tensor', 'Alias of torch.lt.', ''),
    'less_equal': ('less_equal(input, other, *, out=None) -> Tensor', 'Alias of torch.le.', ''),
    'lgamma': ('lgamma(input, *, out=None) -> Tensor',
        ('log|Γ(x)|, elementwise; integer and bool inputs give the default float dtype, '
         'float16/bfloat16 compute in float32 and round once.'), ""),
    'log': ('log(input, *, out=None) -> Tensor',
        ('Natural logarithm, elementwise (-inf at 0, NaN below); integer and bool inputs give '
         'the default float dtype, float16/bfloat16 compute in float32 and round once.'), ""),
    'log10': ('log10(input, *, out=None) -> Tensor',
        ('Base-10 logarithm, elementwise; integer and bool inputs give the default float '
         'dtype, float16/bfloat16 compute in float32 and round once.'), ""),
    'log1p': ('log1p(input, *, out=None) -> Tensor',
        ('log(1 + x), accurate for small x, elementwise; integer and bool inputs give the '
         'default float dtype, float16/bfloat16 compute in float32 and round once.'), ""),
    'log2': ('log2(input, *, out=None) -> Tensor',
        ('Base-2 logarithm, elementwise; integer and bool inputs give the default float dtype,'
         ' float16/bfloat16 compute in float32 and round once.'), ""),
    'log_softmax': ('log_softmax(input, dim, dtype=None, *, out=None) -> Tensor', '', ''),
    'logical_and': ('logical_and(input, other, *, out=None) -> Tensor',
        ('Logical AND, elementwise with broadcasting; any dtype is read as truth values '
         '(nonzero is True) and the result is bool.'), ""),
    'logical_not': ('logical_not(input, *, out=None) -> Tensor',
        'True where the element is zero, elementwise; the result is bool.', ""),
    'logical_or': ('logical_or(input, other, *, out=None) -> Tensor',
        ('Logical OR, elementwise with broadcasting; any dtype is read as truth values '
         '(nonzero is True) and the result is bool.'), ""),
    'logical_xor': ('logical_xor(input, other, *, out=None) -> Tensor',
        ('Logical XOR, elementwise with broadcasting; any dtype is read as truth values '
         '(nonzero is True) and the result is bool.'), ""),
    'logsumexp': ('logsumexp(input, dim, keepdim=False, *, out=None)',
        ('log(sum(exp(input))) over ``dim``, computed stably by subtracting the maximum; '
         'integer inputs give the default float dtype.'), ""),
    'lt': ('lt(input, other, *, out=None) -> Tensor',
        ('input < other, elementwise with broadcasting; the operands are compared in their '
         'promoted dtype (torch.result_type) and the result is bool.'), ""),
    'masked_fill': ('masked_fill(input, mask, value) -> Tensor',
        ('A copy of ``input`` with ``value`` written where the bool ``mask`` (broadcast to '
         "input's shape) is True; ``value`` is a number or a 0-d tensor."), ""),
    'masked_select': ('masked_select(input, mask, *, out=None) -> Tensor', '', ''),
    'matmul': ('matmul(input, other, *, out=None) -> Tensor',
        ('Matrix product with broadcasting: 1-D operands are treated as a row/column vector '
         '(the added dim is removed again), 2-D operands multiply as matrices, and higher dims'
         ' are batch dims that broadcast. Both operands must have the same dtype; half dtypes '
         'accumulate in float32.'), ""),
    'max': (
        ('max(input, *, out=None) -> Tensor\n'
         'max(input, dim, keepdim=False, *, out=None) -> (Tensor, LongTensor)\n'
         'max(input, other, *, out=None) -> Tensor'),
        ('Without ``dim``: the largest element (NaN if any). With ``dim``: a (values, indices)'
         ' named tuple along that dim. With a tensor ``other``: torch.maximum.'),
        ('Differs from torch: the two-tensor form takes ``other`` positionally only (``max(a, '
         'other=b)`` raises TypeError here).')),
    'maximum': ('maximum(input, other, *, out=None) -> Tensor',
        ('The larger of the two elements (NaN if either is NaN), elementwise with '
         'broadcasting; the result dtype is torch.result_type of the operands.'), ""),
    'mean': (
        ('mean(input, *, dtype=None) -> Tensor\n'
         'mean(input, dim, keepdim=False, *, dtype=None, out=None) -> Tensor'),
        ('Arithmetic mean over all elements or over ``dim`` (an int or a tuple); floating or '
         '``dtype``-given inputs only (an integer input raises RuntimeError). Half dtypes '
         'accumulate in float32.'), ""),
    'median': (
        ('median(input) -> Tensor\n'
         'median(input, dim=-1, keepdim=False, *, out=None) -> (Tensor, LongTensor)'),
        "", ""),
    'meshgrid': ('meshgrid(*tensors, indexing=None) -> tuple[Tensor, ...]',
        ("Coordinate grids from 1-D tensors: ``indexing='ij'`` (matrix, the default here and "
         "in torch today) or ``'xy'`` (Cartesian)."), ""),
    'min': (
        ('min(input, *, out=None) -> Tensor\n'
         'min(input, dim, keepdim=False, *, out=None) -> (Tensor, LongTensor)\n'
         'min(input, other, *, out=None) -> Tensor'),
        ('Without ``dim``: the smallest element (NaN if any). With ``dim``: a (values, '
         'indices) named tuple along that dim. With a tensor ``other``: torch.minimum.'),
        ('Differs from torch: the two-tensor form takes ``other`` positionally only (``min(a, '
         'other=b)`` raises TypeError here).')),
    'minimum': ('minimum(input, other, *, out=None) -> Tensor',
        ('The smaller of the two elements (NaN if either is NaN), elementwise with '
         'broadcasting; the result dtype is torch.result_type of the operands.'), ""),
    'mm': (
        ('mm(input, mat2, *, out=None) -> Tensor\n'
         'mm(input, mat2, out_dtype, *, out=None) -> Tensor'),
        'Product of two 2-D matrices (no broadcasting); both must have the same dtype.',
        "Differs from torch: torch's ``out_dtype`` is not accepted here."),
    'moveaxis': ('moveaxis(input, source, destination) -> Tensor', 'Alias of torch.movedim.', ''),
    'movedim': ('movedim(input, source, destination) -> Tensor',
        ('Moves dim(s) ``source`` to position(s) ``destination``, the others keeping their '
         'order. The result is a view: it shares storage (and the version counter) with '
         '``input``.'), ""),
    'mul': ('mul(input, other, *, out=None) -> Tensor',
        ('input * other, elementwise with broadcasting; the result dtype is torch.result_type '
         'of the operands.'), ""),
    'multinomial': (
        ('multinomial(input, num_samples, replacement=False, *, generator=None, out=None) -> '
         'LongTensor'),
        "", ""),
    'multiply': ('multiply(input, other, *, out=None)', 'Alias of torch.mul.', ''),
    'mv': ('mv(input, vec, *, out=None) -> Tensor',
        'Product of a 2-D matrix and a 1-D vector.', ""),
    'nan_to_num': ('nan_to_num(input, nan=0.0, posinf=None, neginf=None, *, out=None) -> Tensor',
        "", ""),
    'nan_to_num_': ('nan_to_num_(input, nan=0.0, posinf=None, neginf=None) -> Tensor', '', ''),
    'nansum': (
        ('nansum(input, *, dtype=None) -> Tensor\n'
         'nansum(input, dim, keepdim=False, *, dtype=None, out=None) -> Tensor'),
        ('torch.sum treating NaN as zero. Integer and bool inputs reduce in int64 unless '
         '``dtype`` is given; ``dim`` may be an int or a tuple, ``keepdim`` keeps reduced dims'
         ' with size 1.'), ""),
    'narrow': ('narrow(input, dim, start, length) -> Tensor',
        ('The slice input[..., start:start+length, ...] along ``dim``. The result is a view: '
         'it shares storage (and the version counter) with ``input``.'), ""),
    'ne': ('ne(input, other, *, out=None) -> Tensor',
        ('input != other, elementwise with broadcasting; the operands are compared in their '
         'promoted dtype (torch.result_type) and the result is bool.'), ""),
    'neg': ('neg(input, *, out=None) -> Tensor',
        ("-x, elementwise; the result keeps the input's dtype. A bool input raises "
         'RuntimeError (use ~ or logical_not).'), ""),
    'negative': ('negative(input, *, out=None) -> Tensor', 'Alias of torch.neg.', ''),
    'nonzero': ('nonzero(input, *, out=None, as_tuple=False) -> LongTensor or tuple of LongTensors',
        "",
        "Differs from torch: torch's ``out`` is not accepted here."),
    'norm': ("norm(input, p='fro', dim=None, keepdim=False, out=None, dtype=None)",
        ('The p-norm of ``input`` (Frobenius by default) over all elements or over ``dim``; '
         "'fro' and 'nuc' are matrix norms. Prefer torch.linalg.vector_norm / matrix_norm."), ""),
    'not_equal': ('not_equal(input, other, *, out=None) -> Tensor', 'Alias of torch.ne.', ''),
    'numel': ('numel(input) -> int', 'The number of elements of ``input``.', ''),
    'outer': ('outer(input, vec2, *, out=None) -> Tensor',
        'The outer product of two 1-D tensors: result[i, j] = input[i] * vec2[j].', ""),
    'permute': ('permute(input, dims) -> Tensor',
        ('Reorders the dims as ``dims`` says. The result is a view: it shares storage (and the'
         ' version counter) with ``input``.'), ""),
    'positive': ('positive(input) -> Tensor', '', ''),
    'pow': (
        ('pow(input, exponent, *, out=None) -> Tensor\n'
         'pow(self, exponent, *, out=None) -> Tensor'),
        ('input ** exponent, elementwise with broadcasting; either may be a number. The dtype '
         'is torch.result_type; an integer raised to a negative integer raises RuntimeError.'), ""),
    'prod': (
        ('prod(input, *, dtype=None) -> Tensor\n'
         'prod(input, dim, keepdim=False, *, dtype=None, out=None) -> Tensor'),
        ('Product of the elements, over all of them or over one ``dim``. Integer and bool '
         'inputs reduce in int64 unless ``dtype`` is given; ``dim`` may be an int or a tuple, '
         '``keepdim`` keeps reduced dims with size 1.'), ""),
    'reciprocal': ('reciprocal(input, *, out=None) -> Tensor',
        ('1 / x, elementwise (±inf at ±0); integer and bool inputs give the default float '
         'dtype, float16/bfloat16 compute in float32 and round once.'), ""),
    'relu': ('relu(input) -> Tensor',
        "max(x, 0), elementwise; the result keeps the input's dtype. The gradient at 0 is 0.", ""),
    'remainder': ('remainder(input, other, *, out=None) -> Tensor',
        ('Python-style modulus: the result has the sign of ``other``, elementwise with '
         'broadcasting; the result dtype is torch.result_type of the operands. Integer modulus'
         ' by zero raises RuntimeError.'), ""),
    'repeat_interleave': (
        ('repeat_interleave(input, repeats, dim=None, *, output_size=None) -> Tensor\n'
         'repeat_interleave(repeats, *) -> Tensor'),
        ('Repeats each element (or each slice along ``dim``) ``repeats`` times; without '
         '``dim`` the input is flattened. With only a 1-D ``repeats`` it repeats each index i '
         'repeats[i] times.'), ""),
    'reshape': ('reshape(input, shape) -> Tensor',
        ('A tensor with the same elements in the given shape (one dim may be -1): a view when '
         'the strides allow it, otherwise a copy.'), ""),
    'roll': ('roll(input, shifts, dims=None) -> Tensor',
        ('Rotates elements by ``shifts`` along ``dims`` (elements shifted past the end come '
         'back at the start; without ``dims`` on the flattened tensor).'), ""),
    'rot90': ('rot90(input, k=1, dims=(0, 1)) -> Tensor', '', ''),
    'round': ('round(input, *, decimals=0, out=None) -> Tensor', '', ''),
    'rsqrt': ('rsqrt(input, *, out=None) -> Tensor',
        ('1 / sqrt(x), elementwise; integer and bool inputs give the default float dtype, '
         'float16/bfloat16 compute in float32 and round once.'), ""),
    'scatter': (
        ('scatter(input, dim, index, src, *, reduce=None) -> Tensor\n'
         'scatter(input, dim, index, value, *, reduce=None) -> Tensor'),
        ('A copy of ``input`` with ``src`` (or the number ``value``) written at ``index`` '
         "along ``dim``; ``reduce`` is 'add' or 'multiply'."), ""),
    'scatter_add': ('scatter_add(input, dim, index, src) -> Tensor',
        ('A copy of ``input`` with ``src`` added at ``index`` along ``dim``; repeated indices '
         'accumulate.'), ""),
    'searchsorted': (
        ('searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None, '
         'out=None, sorter=None) -> Tensor'),
        "", ""),
    'select': ('select(input, dim, index) -> Tensor',
        ('input[..., index, ...] along ``dim`` (that dim removed). The result is a view: it '
         'shares storage (and the version counter) with ``input``.'), ""),
    'set_anomaly_enabled': ('set_anomaly_enabled(enabled, check_nan=True) -> None', '', ''),
    'set_float32_matmul_precision': ('set_float32_matmul_precision(precision) -> None', '', ''),
    'set_printoptions': (
        ('set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, '
         'profile=None, sci_mode=None)'),
        "", ""),
    'sgn': ('sgn(input, *, out=None) -> Tensor',
        "The sign, as torch.sign for real tensors; the result keeps the input's dtype.", ""),
    'sigmoid': ('sigmoid(input, *, out=None) -> Tensor',
        ('The logistic function 1 / (1 + exp(-x)), elementwise; integer and bool inputs give '
         'the default float dtype, float16/bfloat16 compute in float32 and round once. The '
         'gradient is computed from the saved result.'), ""),
    'sign': ('sign(input, *, out=None) -> Tensor',
        ("-1, 0 or 1 by the sign of each element (0 for NaN); the result keeps the input's "
         'dtype.'), ""),
    'sin': ('sin(input, *, out=None) -> Tensor',
        ('Sine, elementwise; integer and bool inputs give the default float dtype, '
         'float16/bfloat16 compute in float32 and round once.'), ""),
    'sinh': ('sinh(input, *, out=None) -> Tensor',
        ('Hyperbolic sine, elementwise; integer and bool inputs give the default float dtype, '
         'float16/bfloat16 compute in float32 and round once.'), ""),
    'softmax': ('softmax(input, dim, *, dtype=None, out=None) -> Tensor', '', ''),
    'sort': (
        ('sort(input, dim=-1, descending=False, *, stable=False, out=None) -> (Tensor, '
         'LongTensor)'),
        ('A (values, indices) named tuple sorted along ``dim`` (ascending unless '
         '``descending``); NaN sorts as the largest value; ``stable=True`` keeps the order of '
         'equal elements.'), ""),
    'split': ('split(tensor, split_size_or_sections, dim=0) -> tuple[Tensor, ...]',
        ('Splits into chunks of ``split_size_or_sections`` elements along ``dim`` (the last '
         'may be smaller), or into the listed sizes; views.'), ""),
    'sqrt': ('sqrt(input, *, out=None) -> Tensor',
        ('Square root, elementwise (NaN for negative inputs); integer and bool inputs give the'
         ' default float dtype, float16/bfloat16 compute in float32 and round once.'), ""),
    'square': ('square(input, *, out=None) -> Tensor',
        'x * x, elementwise; integer inputs stay integer, bool becomes int64.', ""),
    'squeeze': ('squeeze(input, dim=None) -> Tensor',
        ('Removes dims of size 1 (all of them, or those named by ``dim``, an int or tuple). '
         'The result is a view: it shares storage (and the version counter) with ``input``.'), ""),
    'stack': ('stack(tensors, dim=0, *, out=None) -> Tensor',
        'Stacks tensors of equal shape along a new dim ``dim``.', ""),
    'std': (
        ('std(input, dim=None, *, correction=1, keepdim=False, out=None) -> Tensor\n'
         'std(input, dim, unbiased, keepdim=False, *, out=None) -> Tensor'),
        ('Standard deviation over ``dim`` (all elements when None), dividing by N - correction'
         ' (correction=1 by default; ``unbiased=False`` is correction=0). N - correction <= 0 '
         'warns and divides by zero as torch.'), ""),
    'std_mean': (
        ('std_mean(input, dim=None, *, correction=1, keepdim=False) -> (Tensor, Tensor)\n'
         'std_mean(input, dim, unbiased, keepdim=False) -> (Tensor, Tensor)'),
        '(torch.std, torch.mean) of the same reduction, computed together.', ""),
    'sub': ('sub(input, other, *, alpha=1, out=None) -> Tensor',
        ('input - alpha * other, elementwise with broadcasting; the result dtype is '
         'torch.result_type of the operands. Bool minus bool raises RuntimeError.'), ""),
    'subtract': ('subtract(input, other, *, alpha=1, out=None) -> Tensor',
        'Alias of torch.sub.', ""),
    'sum': (
        ('sum(input, *, dtype=None) -> Tensor\n'
         'sum(input, dim, keepdim=False, *, dtype=None, out=None) -> Tensor'),
        ('Sum of the elements, over all of them or over ``dim``. Integer and bool inputs '
         'reduce in int64 unless ``dtype`` is given; ``dim`` may be an int or a tuple, '
         '``keepdim`` keeps reduced dims with size 1.'), ""),
    'swapaxes': ('swapaxes(input, axis0, axis1) -> Tensor',
        'Alias of torch.transpose.',
        ('Differs from torch: ``swapaxes`` is ``transpose`` here, so its dims are the keywords'
         ' ``dim0``, ``dim1`` (torch: ``axis0``, ``axis1``).')),
    'swapdims': ('swapdims(input, dim0, dim1) -> Tensor', 'Alias of torch.transpose.', ''),
    't': ('t(input) -> Tensor',
        ('Transposes a 2-D tensor (0-D and 1-D are returned as they are). The result is a '
         'view: it shares storage (and the version counter) with ``input``.'), ""),
    'take_along_dim': ('take_along_dim(input, indices, dim=None, *, out=None) -> Tensor', '', ''),
    'tan': ('tan(input, *, out=None) -> Tensor',
        ('Tangent, elementwise; integer and bool inputs give the default float dtype, '
         'float16/bfloat16 compute in float32 and round once.'), ""),
    'tanh': ('tanh(input, *, out=None) -> Tensor',
        ('Hyperbolic tangent, elementwise; integer and bool inputs give the default float '
         'dtype, float16/bfloat16 compute in float32 and round once. The gradient is computed '
         'from the saved result (1 - y²).'), ""),
    'tensor_split': (
        ('tensor_split(input, indices_or_sections, dim=0) -> List of Tensors\n'
         'tensor_split(input, sections, dim=0) -> List of Tensors\n'
         'tensor_split(input, indices, dim=0) -> List of Tensors'),
        ('Splits into ``sections`` parts whose sizes differ by at most one, or at the given '
         '``indices``, along ``dim``; views.'),
        ('Differs from torch: the second argument is the keyword ``indices_or_sections`` here,'
         " where torch's binding names it ``sections`` (an int) or ``indices`` (a list).")),
    'tensordot': ('tensordot(a, b, dims=2, out=None)',
        ('Contracts ``dims`` trailing dims of ``a`` with leading dims of ``b`` (or the listed '
         'pairs of dims).'), ""),
    'tile': ('tile(input, dims) -> Tensor',
        'Repeats the whole tensor ``dims`` times per dim (missing leading reps count as 1).', ""),
    'topk': (
        ('topk(input, k, dim=None, largest=True, sorted=True, *, out=None) -> (Tensor, '
         'LongTensor)'),
        ('A (values, indices) named tuple of the ``k`` largest (or smallest, '
         '``largest=False``) elements along ``dim``, sorted when ``sorted``.'), ""),
    'trace': ('trace(input) -> Tensor',
        'The sum of the main diagonal of a 2-D tensor (integers sum in int64).', ""),
    'transpose': ('transpose(input, dim0, dim1) -> Tensor',
        ('Swaps dims ``dim0`` and ``dim1``. The result is a view: it shares storage (and the '
         'version counter) with ``input``.'), ""),
    'tril': ('tril(input, diagonal=0, *, out=None) -> Tensor',
        ('A copy with the elements above the ``diagonal``-th diagonal zeroed (the last two '
         'dims).'), ""),
    'triu': ('triu(input, diagonal=0, *, out=None) -> Tensor',
        ('A copy with the elements below the ``diagonal``-th diagonal zeroed (the last two '
         'dims).'), ""),
    'true_divide': ('true_divide(input, other, *, out=None) -> Tensor',
        ('torch.div with rounding_mode=None: true division, integer operands give the default '
         'float dtype.'),
        'Differs from torch: also takes ``rounding_mode``.'),
    'trunc': ('trunc(input, *, out=None) -> Tensor',
        ('Rounds toward zero, elementwise; integer inputs are returned unchanged; the result '
         "keeps the input's dtype."), ""),
    'unbind': ('unbind(input, dim=0) -> seq',
        'A tuple of the slices along ``dim``, each with that dim removed; views.', ""),
    'unflatten': ('unflatten(input, dim, sizes) -> Tensor',
        'Splits dim ``dim`` into ``sizes`` (one may be -1); a view.', ""),
    'unique': (
        ('unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None) -> '
         'tuple[Tensor, Tensor, Tensor]'),
        "", ""),
    'unsqueeze': ('unsqueeze(input, dim) -> Tensor',
        ('Inserts a dim of size 1 at ``dim``. The result is a view: it shares storage (and the'
         ' version counter) with ``input``.'), ""),
    'var': (
        ('var(input, dim=None, *, correction=1, keepdim=False, out=None) -> Tensor\n'
         'var(input, dim, unbiased, keepdim=False, *, out=None) -> Tensor'),
        ('Variance over ``dim`` (all elements when None), dividing by N - correction '
         '(correction=1 by default; ``unbiased=False`` is correction=0). N - correction <= 0 '
         'warns and divides by zero as torch.'), ""),
    'var_mean': (
        ('var_mean(input, dim=None, *, correction=1, keepdim=False) -> (Tensor, Tensor)\n'
         'var_mean(input, dim, unbiased, keepdim=False) -> (Tensor, Tensor)'),
        '(torch.var, torch.mean) of the same reduction, computed together.', ""),
    'vstack': ('vstack(tensors, *, out=None) -> Tensor',
        'Concatenates along dim 0 after making 1-D tensors rows (1, n).', ""),
    'where': (
        ('where(condition, input, other, *, out=None) -> Tensor\n'
         'where(condition) -> tuple of LongTensor'),
        ('Picks ``input`` where ``condition`` is True and ``other`` elsewhere, broadcasting '
         'all three; the dtype is torch.result_type(input, other). With only ``condition`` it '
         'is torch.nonzero(condition, as_tuple=True).'), ""),
    'xlogy': ('xlogy(input, other, *, out=None) -> Tensor',
        ('``input * log(other)`` elementwise with broadcasting, 0 where ``input`` is 0 unless '
         '``other`` is NaN; either operand may be a Python number. Integer and bool operands '
         'give the default float dtype; float16/bfloat16 compute in float32 and round once. '
         "The gradient for ``input`` is ``xlogy(grad, other)``, 0 where ``input`` is 0 and "
         "``other`` <= 0 (torch's choice at the non-differentiable points); for ``other`` it "
         'is ``grad * input / other``.'), ""),
    'logit': ('logit(input, eps=None, *, out=None) -> Tensor',
        ('``log(input / (1 - input))`` elementwise; with ``eps`` the input is first clamped '
         'into ``[eps, 1 - eps]`` (``eps`` converted to the dtype; NaN passes). As torch\'s CPU '
         'kernels, every operation computes and rounds in the tensor\'s dtype, float16 and '
         'bfloat16 too; integer and bool inputs give the default float dtype. The gradient is '
         '``grad / (x * (1 - x))`` where ``x`` lies in ``[0, 1]`` (with ``eps``: ``[eps, '
         '1 - eps]``), else NaN (with ``eps``: 0).'),
        ("Differs from torch: torch's vectorized kernel and its scalar loop (the elements past "
         "the last full vector block) disagree for NaN and -0.0 inputs; ours is the vectorized "
         "kernel's rule everywhere (a NaN input's gradient is NaN without ``eps``, 0 with it; "
         "at -0.0 the gradient is -inf); float32 values may differ from torch's by an ulp "
         "(its log is MKL's, ours the exact value's nearest float32).")),
    'hypot': ('hypot(input, other, *, out=None) -> Tensor',
        ('``sqrt(input**2 + other**2)`` elementwise with broadcasting, without intermediate '
         'overflow; both arguments must be tensors (a number is a TypeError naming it). Only '
         'floating dtypes (an integer or bool result dtype raises torch\'s NotImplementedError '
         'for ``hypot_cpu``); float16/bfloat16 compute in float32 and round once. The gradients '
         'are torch\'s formulas ``grad * input / result`` and ``grad * other / result`` (NaN at '
         '(0, 0)).'), ""),
}

from .added_ops import FUNCTIONS as _ADDED  # noqa: E402  (the ops added later)

TORCH_FUNCTIONS.update(_ADDED)
