"""Docstrings of the rest of ``torch``: creation, random numbers, dtypes, modes, classes, save/load.

Entries are ``name: (signature lines, rule, differences)``, as :mod:`minitorch_cs.torch._docs`
describes.
"""

TORCH_API = {  # torch.<name>
    'BoolTensor': ('BoolTensor(*args) -> Tensor',
        ('Legacy constructor: ``BoolTensor(data)`` is ``tensor(data, dtype=torch.bool)``; '
         '``BoolTensor(*sizes)`` an empty (zero-filled) tensor of that shape.'), ""),
    'ByteTensor': ('ByteTensor(*args) -> Tensor',
        ('Legacy constructor: ``ByteTensor(data)`` is ``tensor(data, dtype=torch.uint8)``; '
         '``ByteTensor(*sizes)`` an empty (zero-filled) tensor of that shape.'), ""),
    'DoubleTensor': ('DoubleTensor(*args) -> Tensor',
        ('Legacy constructor: ``DoubleTensor(data)`` is ``tensor(data, dtype=torch.float64)``;'
         ' ``DoubleTensor(*sizes)`` an empty (zero-filled) tensor of that shape.'), ""),
    'FloatTensor': ('FloatTensor(*args) -> Tensor',
        ('Legacy constructor: ``FloatTensor(data)`` is ``tensor(data, dtype=torch.float32)``; '
         '``FloatTensor(*sizes)`` an empty (zero-filled) tensor of that shape.'), ""),
    'Function': ('Function(*args, **kwargs)', '', ''),
    'Generator': ("Generator(device='cpu') -> Generator", '', ''),
    'IntTensor': ('IntTensor(*args) -> Tensor',
        ('Legacy constructor: ``IntTensor(data)`` is ``tensor(data, dtype=torch.int32)``; '
         '``IntTensor(*sizes)`` an empty (zero-filled) tensor of that shape.'), ""),
    'LongTensor': ('LongTensor(*args) -> Tensor',
        ('Legacy constructor: ``LongTensor(data)`` is ``tensor(data, dtype=torch.int64)``; '
         '``LongTensor(*sizes)`` an empty (zero-filled) tensor of that shape.'), ""),
    'Size': ('Size(iterable=(), /)', '', ''),
    'Tensor': ('Tensor(*args, **kwargs)', '', ''),
    'arange': (
        ('arange(start=0, end, step=1, *, out=None, dtype=None, layout=torch.strided, '
         'device=None, requires_grad=False) -> Tensor'),
        ('Values from ``start`` (default 0) up to but excluding ``end``, stepping ``step``; '
         'int64 when all arguments are integers, otherwise the default float dtype '
         '(ceil((end-start)/step) elements).'), ""),
    'as_tensor': ('as_tensor(data, *, dtype=None, device=None) -> Tensor', '', ''),
    'asarray': ('asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=None) -> Tensor',
        "",
        ('Differs from torch: ``asarray`` is the same function as ``as_tensor`` here: its '
         'first parameter is ``data`` (torch: ``obj``) and ``copy`` and ``requires_grad`` are '
         'not accepted.')),
    'autocast': ('autocast(device_type, dtype=None, enabled=True, cache_enabled=None)',
        "",
        ("Differs from torch: ``device_type`` is optional here and defaults to 'cpu' (torch "
         'requires it).')),
    'compile': (
        ('compile(model=None, *, fullgraph=False, dynamic=None, backend=None, mode=None, '
         'options=None, name=None, disable=False, recompile_limit=None, '
         'isolate_recompiles=False, shapes_spec=None) -> Callable'),
        "",
        ('Differs from torch: every keyword is accepted and ignored (``fullgraph``, '
         '``backend``, ``mode``, ...): there is no graph compiler, the model runs eagerly.')),
    'device': ('device(type, index=None)', '', ''),
    'memory_format': ('memory_format',
        ('The class of the layout constants torch.contiguous_format, torch.preserve_format, '
         'torch.channels_last and torch.channels_last_3d (``repr`` their names; they pickle '
         'as themselves).'),
        ("Differs from torch: torch's class cannot be constructed from Python; here it takes "
         'the format\'s name (internal: use the module constants).')),
    'dtype': ('dtype',
        "",
        ("Differs from torch: torch's dtypes cannot be constructed from Python; here the "
         'constructor takes ``name``, ``np_type``, ``category`` and ``rank`` (internal: use '
         'the module constants such as torch.float32).')),
    'empty': (
        ('empty(*size, *, out=None, dtype=None, layout=torch.strided, device=None, '
         'requires_grad=False, pin_memory=False, memory_format=torch.contiguous_format) -> '
         'Tensor'),
        ('A tensor with the given shape; its values are unspecified in torch. ``dtype`` '
         'defaults to the default float dtype (torch.get_default_dtype()). ``memory_format`` '
         'lays it out: contiguous_format, or channels_last (channels_last_3d) for 4-D (5-D) '
         'shapes (another rank is a RuntimeError); preserve_format is refused ("unsupported '
         'memory format Preserve").'), ""),
    'empty_like': (
        ('empty_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, '
         'memory_format=torch.preserve_format) -> Tensor'),
        ("An uninitialised tensor shaped like ``input``. Takes ``input``'s shape, and its "
         'dtype unless ``dtype`` is given; the result does not share memory or autograd '
         "history with ``input``. Its layout follows ``memory_format`` (all ``*_like`` "
         "functions): preserve_format keeps a dense ``input``'s strides exactly and packs "
         'any other in its dim order; contiguous_format is C order; channels_last(_3d) need '
         'a 4-D (5-D) input.'), ""),
    'empty_strided': (
        ('empty_strided(size, stride, *, dtype=None, layout=None, device=None, '
         'requires_grad=False, pin_memory=False) -> Tensor'),
        ('A tensor of ``size`` with the given element ``stride``s (overlapping ones allowed; a '
         'negative one is torch\'s "Storage size calculation overflowed" RuntimeError). '
         '``dtype`` defaults to the default float dtype (torch.get_default_dtype()).'),
        "Differs from torch: torch's ``layout``, ``pin_memory`` are not accepted here."),
    'enable_grad': ('enable_grad(orig_func=None)', '', ''),
    'tril_indices': (
        ('tril_indices(row, col, offset=0, *, dtype=torch.long, device=None, '
         'layout=torch.strided, requires_grad=False) -> Tensor'),
        ('The (2, N) row and column indices of the lower triangle of a row x col matrix (the '
         'diagonal ``offset`` and those below it), in row-major order; int64 or int32.'), ""),
    'triu_indices': (
        ('triu_indices(row, col, offset=0, *, dtype=torch.long, device=None, '
         'layout=torch.strided, requires_grad=False) -> Tensor'),
        ('The (2, N) row and column indices of the upper triangle of a row x col matrix (the '
         'diagonal ``offset`` and those above it), in row-major order; int64 or int32.'), ""),
    'eye': (
        ('eye(n, m=None, *, out=None, dtype=None, layout=torch.strided, device=None, '
         'requires_grad=False) -> Tensor'),
        ('An n x m matrix (m = n by default) with ones on the main diagonal. ``dtype`` '
         'defaults to the default float dtype (torch.get_default_dtype()).'), ""),
    'fork_rng': (
        ("fork_rng(devices=None, enabled=True, _caller='fork_rng', _devices_kw='devices', "
         "device_type='cuda')"),
        "",
        ('Differs from torch: it lives at ``torch.random.fork_rng`` in torch; ``device_type`` '
         "defaults to 'cpu' here (no CUDA).")),
    'from_numpy': ('from_numpy(ndarray, /) -> Tensor', '', ''),
    'full': (
        ('full(size, fill_value, *, out=None, dtype=None, layout=torch.strided, device=None, '
         'requires_grad=False) -> Tensor'),
        ('A tensor of ``size`` filled with ``fill_value``; without ``dtype`` the dtype is '
         'inferred from the value (bool, int64 or the default float dtype).'), ""),
    'full_like': (
        ('full_like(input, fill_value, *, dtype=None, layout=torch.strided, device=None, '
         'requires_grad=False, memory_format=torch.preserve_format) -> Tensor'),
        ("A tensor shaped like ``input`` filled with ``fill_value``. Takes ``input``'s shape, "
         'and its dtype unless ``dtype`` is given; the result does not share memory or '
         'autograd history with ``input``.'), ""),
    'get_autocast_dtype': ('get_autocast_dtype(device_type) -> dtype',
        'The dtype autocast uses for ``device_type`` (bfloat16 for the CPU by default).',
        ("Differs from torch: ``device_type`` is optional here and defaults to 'cpu' (torch "
         'requires it).')),
    'get_default_dtype': ('get_default_dtype() -> torch.dtype',
        'The dtype of new floating tensors (float32 unless set).', ""),
    'get_num_threads': ('get_num_threads() -> int', 'Always 1 here.', ''),
    'get_rng_state': ('get_rng_state() -> Tensor',
        "The default generator's state as a uint8 tensor (pass it to torch.set_rng_state).", ""),
    'inference_mode': ('inference_mode(mode=True)', '', ''),
    'initial_seed': ('initial_seed() -> int',
        'The seed the default generator was last seeded with.', ""),
    'is_autocast_enabled': ('is_autocast_enabled(device_type=None) -> bool',
        'True inside an active torch.autocast region (for ``device_type``, when given).', ""),
    'is_grad_enabled': ('is_grad_enabled() -> (bool)',
        'True when operations record autograd history.', ""),
    'is_inference_mode_enabled': ('is_inference_mode_enabled() -> (bool)',
        'True inside an active torch.inference_mode.', ""),
    'is_storage': ("is_storage(obj, /) -> TypeGuard[ForwardRef('TypedStorage | UntypedStorage')]",
        'Always False here: no storage objects are exposed.', ""),
    'linspace': (
        ('linspace(start, end, steps, *, out=None, dtype=None, layout=torch.strided, '
         'device=None, requires_grad=False) -> Tensor'),
        ('``steps`` evenly spaced values from ``start`` to ``end`` inclusive. ``dtype`` '
         'defaults to the default float dtype (torch.get_default_dtype()).'), ""),
    'load': (
        ('load(f, map_location=None, pickle_module=pickle, *, weights_only=True, mmap=None, '
         '**pickle_load_args)'),
        "", ""),
    'logspace': (
        ('logspace(start, end, steps, base=10.0, *, out=None, dtype=None, '
         'layout=torch.strided, device=None, requires_grad=False) -> Tensor'),
        ('``steps`` values base**x for x evenly spaced from ``start`` to ``end`` inclusive. '
         '``dtype`` defaults to the default float dtype (torch.get_default_dtype()).'), ""),
    'manual_seed': ('manual_seed(seed) -> torch._C.Generator', '', ''),
    'no_grad': ('no_grad(orig_func=None)', '', ''),
    'normal': (
        ('normal(mean, std, *, generator=None, out=None) -> Tensor\n'
         'normal(mean, std, size, *, generator=None, out=None, dtype=None, '
         'layout=torch.strided, device=None, pin_memory=False, requires_grad=False) -> Tensor'),
        "",
        "Differs from torch: torch's ``layout``, ``pin_memory`` are not accepted here."),
    'ones': (
        ('ones(*size, *, out=None, dtype=None, layout=torch.strided, device=None, '
         'pin_memory=False, requires_grad=False) -> Tensor'),
        ('A tensor of ones with the given shape. ``dtype`` defaults to the default float dtype'
         ' (torch.get_default_dtype()).'), ""),
    'ones_like': (
        ('ones_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, '
         'memory_format=torch.preserve_format) -> Tensor'),
        ("Ones shaped like ``input``. Takes ``input``'s shape, and its dtype unless ``dtype`` "
         'is given; the result does not share memory or autograd history with ``input``.'), ""),
    'promote_types': ('promote_types(type1, type2) -> dtype',
        "",
        ('Differs from torch: the parameters are named ``a`` and ``b`` here (torch: ``type1``,'
         ' ``type2``); positional calls agree.')),
    'rand': (
        ('rand(*size, *, generator=None, out=None, dtype=None, layout=torch.strided, '
         'device=None, requires_grad=False, pin_memory=False) -> Tensor'),
        ('Uniform samples in [0, 1) with the given shape, from ``generator`` or the default '
         'generator. ``dtype`` defaults to the default float dtype '
         '(torch.get_default_dtype()).'), ""),
    'rand_like': (
        ('rand_like(input, *, generator=None, dtype=None, layout=None, device=None, '
         'requires_grad=False, memory_format=torch.preserve_format) -> Tensor'),
        "torch.rand with ``input``'s shape and dtype.", ""),
    'randint': (
        ('randint(low=0, high, size, *, generator=None, out=None, dtype=None, '
         'layout=torch.strided, device=None, requires_grad=False) -> Tensor'),
        ('Uniform integers in [low, high) with shape ``size`` (int64 unless ``dtype`` is '
         'given).'), ""),
    'randint_like': (
        ('randint_like(input, low=0, high, *, generator=None, dtype=None, '
         'layout=torch.strided, device=None, requires_grad=False, '
         'memory_format=torch.preserve_format) -> Tensor'),
        "torch.randint with ``input``'s shape and dtype.", ""),
    'randn': (
        ('randn(*size, *, generator=None, out=None, dtype=None, layout=torch.strided, '
         'device=None, requires_grad=False, pin_memory=False) -> Tensor'),
        ('Standard normal samples with the given shape, from ``generator`` or the default '
         'generator. ``dtype`` defaults to the default float dtype '
         '(torch.get_default_dtype()).'), ""),
    'randn_like': (
        ('randn_like(input, *, generator=None, dtype=None, layout=None, device=None, '
         'requires_grad=False, memory_format=torch.preserve_format) -> Tensor'),
        "torch.randn with ``input``'s shape and dtype.", ""),
    'randperm': (
        ('randperm(n, *, generator=None, out=None, dtype=torch.int64, layout=torch.strided, '
         'device=None, requires_grad=False, pin_memory=False) -> Tensor'),
        'A random permutation of 0..n-1 (int64 by default).', ""),
    'result_type': ('result_type(tensor1, tensor2) -> dtype',
        ('The dtype an elementwise op on the two operands would give (tensors outrank 0-d '
         'tensors, which outrank Python numbers; a higher category always wins).'), ""),
    'save': (
        ('save(obj, f, pickle_module=pickle, pickle_protocol=2, '
         '_use_new_zipfile_serialization=True)'),
        "", ""),
    'scalar_tensor': (
        ('scalar_tensor(s, *, dtype=None, layout=None, device=None, requires_grad=False, '
         'pin_memory=False) -> Tensor'),
        ('A 0-d tensor holding the number ``s`` (default float dtype unless ``dtype`` is '
         'given).'),
        "Differs from torch: torch's ``layout``, ``pin_memory`` are not accepted here."),
    'seed': ('seed() -> int',
        'Seeds the default generator from a non-deterministic source and returns the seed.', ""),
    'set_default_dtype': ('set_default_dtype(d, /) -> None',
        ('Sets the dtype of new floating tensors; only floating dtypes are allowed (TypeError '
         'otherwise).'), ""),
    'set_grad_enabled': ('set_grad_enabled(mode) -> None', '', ''),
    'set_num_threads': ('set_num_threads(int, /) -> None',
        ('Accepted for compatibility; computation here is single-threaded numpy, so it has no '
         'effect.'), ""),
    'set_rng_state': ('set_rng_state(new_state) -> None',
        "Restores the default generator's state from a tensor given by torch.get_rng_state.", ""),
    'tensor': (
        ('tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False) -> '
         'Tensor'),
        "", ""),
    'use_deterministic_algorithms': (
        'use_deterministic_algorithms(mode, *, warn_only=False) -> None',
        'Accepted for compatibility: every computation here is deterministic already.', ""),
    'zeros': (
        ('zeros(*size, *, out=None, dtype=None, layout=torch.strided, device=None, '
         'pin_memory=False, requires_grad=False) -> Tensor'),
        ('A tensor of zeros with the given shape. ``dtype`` defaults to the default float '
         'dtype (torch.get_default_dtype()).'), ""),
    'zeros_like': (
        ('zeros_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, '
         'memory_format=torch.preserve_format) -> Tensor'),
        ("Zeros shaped like ``input``. Takes ``input``'s shape, and its dtype unless ``dtype``"
         ' is given; the result does not share memory or autograd history with ``input``.'), ""),
}


LINALG = {  # torch.linalg.<name>
    'cross': ('cross(input, other, *, dim=-1) -> Tensor', "", "Differs from torch: no ``out=``."),
    'matrix_norm': (
        ("matrix_norm(A, ord='fro', dim=(-2, -1), keepdim=False, *, dtype=None, out=None) -> "
         'Tensor'),
        "", ""),
    'norm': ('norm(input, ord=None, dim=None, keepdim=False, *, out=None, dtype=None) -> Tensor',
        "",
        ('Differs from torch: the first parameter is named ``A`` here (torch: ``input``); '
         'positional calls agree.')),
    'svdvals': ('svdvals(A, *, driver=None, out=None) -> Tensor', '', ''),
    'vector_norm': (
        'vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None) -> Tensor',
        "", ""),
}
