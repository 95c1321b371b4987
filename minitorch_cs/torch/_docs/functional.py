"""Docstrings of ``torch.nn.functional`` and ``torch.nn.init``.

Entries are ``name: (signature lines, rule, differences)``, as :mod:`minitorch_cs.torch._docs`
describes.
"""

FUNCTIONAL = {  # torch.nn.functional.<name>
    'adaptive_avg_pool1d': ('adaptive_avg_pool1d(input, output_size) -> Tensor',
        ('Average pooling to a fixed output length: window i spans floor(i*L/out) .. '
         'ceil((i+1)*L/out).'), ""),
    'adaptive_avg_pool2d': ('adaptive_avg_pool2d(input, output_size) -> Tensor',
        ('Average pooling to a fixed (H_out, W_out), windows chosen as in adaptive_avg_pool1d '
         'per dim (None keeps that size).'), ""),
    'adaptive_max_pool1d': (
        'adaptive_max_pool1d(input, output_size, return_indices=False) -> Tensor',
        ('Max pooling to a fixed output length (adaptive_max_pool2d at height 1); with '
         '``return_indices`` also the int64 argmax offsets.'), ""),
    'adaptive_max_pool2d': (
        'adaptive_max_pool2d(input, output_size, return_indices=False) -> Tensor',
        ('Max pooling to a fixed (H_out, W_out) over the windows of adaptive_avg_pool2d (None keeps '
         'that size): a tie keeps the first element, the last NaN wins; with ``return_indices`` '
         'also the int64 argmax offsets in the H*W plane. The gradient sums into those '
         'positions.'), ""),
    'alpha_dropout': ('alpha_dropout(input, p=0.5, training=False, inplace=False) -> Tensor',
        ('Dropout that keeps the mean and variance of SELU activations: dropped elements take '
         "SELU's negative saturation value, then an affine correction is applied (training "
         "only). With ``inplace=True`` the result is written into ``input`` (torch's in-place "
         'checks apply).'), ""),
    'avg_pool1d': (
        ('avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, '
         'count_include_pad=True) -> Tensor'),
        ('Mean over sliding windows of the last dim (stride defaults to the kernel size); '
         'padded zeros count unless ``count_include_pad=False``.'), ""),
    'avg_pool2d': (
        ('avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, '
         'count_include_pad=True, divisor_override=None) -> Tensor'),
        ('Mean over sliding windows of the last two dims (stride defaults to the kernel size);'
         ' padded zeros count unless ``count_include_pad=False``; ``divisor_override`` '
         'replaces the window size.'), ""),
    'batch_norm': (
        ('batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,'
         ' momentum=0.1, eps=1e-05) -> Tensor'),
        ('Normalises each channel (dim 1). In training, batch statistics are used and the '
         'running statistics updated with ``momentum`` (unbiased variance); otherwise the '
         'running statistics are used.'), ""),
    'bilinear': ('bilinear(input1, input2, weight, bias=None) -> Tensor',
        'y[..., o] = input1 @ weight[o] @ input2 + bias[o]: ``weight`` is (out, in1, in2).', ""),
    'binary_cross_entropy': (
        ('binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, '
         "reduction='mean') -> Tensor"),
        ('-(target·log(input) + (1-target)·log(1-input)) with the logs clamped at -100, '
         "optionally times ``weight``; ``input`` holds probabilities. ``reduction`` is 'mean' "
         "(default), 'sum' or 'none'; the legacy ``size_average``/``reduce`` warn and map to "
         'it.'), ""),
    'binary_cross_entropy_with_logits': (
        ('binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, '
         "reduce=None, reduction='mean', pos_weight=None) -> Tensor"),
        ('Binary cross-entropy of sigmoid(input), computed stably from the logits; '
         "``pos_weight`` scales the positive term per class. ``reduction`` is 'mean' "
         "(default), 'sum' or 'none'; the legacy ``size_average``/``reduce`` warn and map to "
         'it.'), ""),
    'celu': ('celu(input, alpha=1., inplace=False) -> Tensor',
        ('max(0, x) + min(0, alpha * (exp(x / alpha) - 1)). With ``inplace=True`` the result '
         "is written into ``input`` (torch's in-place checks apply)."), ""),
    'celu_': ('celu_(input, alpha=1.) -> Tensor', 'In-place F.celu.', ''),
    'conv1d': (
        ('conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1) -> '
         'Tensor'),
        ('1-D cross-correlation of (N, C_in, L) (or unbatched) input with a (C_out, '
         "C_in/groups, k) weight; ``padding`` may be an int, a tuple, 'valid' or 'same'. Half "
         'dtypes accumulate in float32.'), ""),
    'conv2d': (
        ('conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1) -> '
         'Tensor'),
        ('2-D cross-correlation of (N, C_in, H, W) (or unbatched) input with a (C_out, '
         "C_in/groups, kh, kw) weight; ``padding`` may be an int, a tuple, 'valid' or 'same'. "
         'Half dtypes accumulate in float32.'), ""),
    'conv_transpose1d': (
        ('conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, '
         'groups=1, dilation=1) -> Tensor'),
        "", ""),
    'conv_transpose2d': (
        ('conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, '
         'groups=1, dilation=1) -> Tensor'),
        "", ""),
    'cosine_embedding_loss': (
        ('cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, '
         "reduce=None, reduction='mean') -> Tensor"),
        ('1 - cos(x1, x2) where target is 1, max(0, cos(x1, x2) - margin) where target is -1, '
         "reduced. ``reduction`` is 'mean' (default), 'sum' or 'none'; the legacy "
         '``size_average``/``reduce`` warn and map to it.'), ""),
    'cosine_similarity': ('cosine_similarity(x1, x2, dim=1, eps=1e-8) -> Tensor',
        'x1·x2 / max(‖x1‖·‖x2‖, eps) along ``dim``, the inputs broadcast together.', ""),
    'cross_entropy': (
        ('cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, '
         "reduce=None, reduction='mean', label_smoothing=0.0) -> Tensor"),
        ('log_softmax over the class dim (1) followed by nll_loss for int64 class targets, or '
         '-sum(target * log_softmax) for class-probability targets (same shape, floating); '
         '``weight``, ``ignore_index`` and ``label_smoothing`` as in torch. ``reduction`` is '
         "'mean' (default), 'sum' or 'none'; the legacy ``size_average``/``reduce`` warn and "
         'map to it.'), ""),
    'dropout': ('dropout(input, p=0.5, training=True, inplace=False) -> Tensor', '', ''),
    'dropout1d': ('dropout1d(input, p=0.5, training=True, inplace=False) -> Tensor',
        ('Channel dropout for (N, C, L) or (C, L) input: whole channels are zeroed with '
         'probability ``p``, the rest scaled by 1/(1-p). With ``inplace=True`` the result is '
         "written into ``input`` (torch's in-place checks apply)."), ""),
    'dropout2d': ('dropout2d(input, p=0.5, training=True, inplace=False) -> Tensor',
        ('Channel dropout for (N, C, H, W) input: whole feature maps are zeroed with '
         'probability ``p``, the rest scaled by 1/(1-p). With ``inplace=True`` the result is '
         "written into ``input`` (torch's in-place checks apply)."), ""),
    'elu': ('elu(input, alpha=1.0, inplace=False) -> Tensor',
        ('x where x > 0, alpha * (exp(x) - 1) elsewhere. With ``inplace=True`` the result is '
         "written into ``input`` (torch's in-place checks apply)."), ""),
    'elu_': ('elu_(input, alpha=1.) -> Tensor', 'In-place F.elu.', ''),
    'embedding': (
        ('embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, '
         'scale_grad_by_freq=False, sparse=False) -> Tensor'),
        ('Looks up rows of ``weight`` by the integer indices in ``input``; the row '
         '``padding_idx`` gets no gradient. ``max_norm`` first renorms, in place, the rows '
         'looked up; ``scale_grad_by_freq=True`` divides each row\'s gradient by its index\'s '
         'count in ``input``. Differs from torch: ``sparse=True`` gives the gradient\'s values '
         'as a dense tensor.'), ""),
    'gaussian_nll_loss': (
        ("gaussian_nll_loss(input, target, var, full=False, eps=1e-06, reduction='mean') -> "
         'Tensor'),
        ('0.5·(log(max(var, eps)) + (input - target)²/max(var, eps)), plus 0.5·log(2π) when '
         "``full``. ``reduction`` is 'mean' (default), 'sum' or 'none'."), ""),
    'gelu': ("gelu(input, approximate='none') -> Tensor",
        ("x * Φ(x) with Φ the standard normal CDF; ``approximate='tanh'`` uses the tanh "
         'approximation.'), ""),
    'glu': ('glu(input, dim=-1) -> Tensor',
        ('Splits ``input`` in two halves a, b along ``dim`` and returns a * sigmoid(b); the '
         'size of ``dim`` must be even.'), ""),
    'group_norm': ('group_norm(input, num_groups, weight=None, bias=None, eps=1e-05) -> Tensor',
        ('Splits the channels (dim 1) into ``num_groups`` groups and normalises each group of '
         'each sample; then per-channel weight and bias.'), ""),
    'hardsigmoid': ('hardsigmoid(input, inplace=False) -> Tensor',
        ('relu6(x + 3) / 6. With ``inplace=True`` the result is written into ``input`` '
         "(torch's in-place checks apply)."), ""),
    'hardswish': ('hardswish(input, inplace=False) -> Tensor',
        ('x * relu6(x + 3) / 6. With ``inplace=True`` the result is written into ``input`` '
         "(torch's in-place checks apply)."), ""),
    'hardtanh': ('hardtanh(input, min_val=-1., max_val=1., inplace=False) -> Tensor',
        ('Clamps to [min_val, max_val]; the gradient passes strictly inside the range. With '
         "``inplace=True`` the result is written into ``input`` (torch's in-place checks "
         'apply).'), ""),
    'hardtanh_': ('hardtanh_(input, min_val=-1., max_val=1.) -> Tensor',
        'In-place F.hardtanh.', ""),
    'hinge_embedding_loss': (
        ('hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None, '
         "reduction='mean') -> Tensor"),
        ('x where target is 1, max(0, margin - x) where target is -1, reduced. ``reduction`` '
         "is 'mean' (default), 'sum' or 'none'; the legacy ``size_average``/``reduce`` warn "
         'and map to it.'), ""),
    'huber_loss': ("huber_loss(input, target, reduction='mean', delta=1.0, weight=None) -> Tensor",
        ('0.5·d² where |d| < delta, delta·(|d| - 0.5·delta) elsewhere (d = input - target), '
         "optionally times ``weight``, reduced. ``reduction`` is 'mean' (default), 'sum' or "
         "'none'."), ""),
    'instance_norm': (
        ('instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, '
         'use_input_stats=True, momentum=0.1, eps=1e-05) -> Tensor'),
        ('Normalises each channel of each sample separately over its spatial dims (optionally '
         'updating running statistics).'), ""),
    'interpolate': (
        ("interpolate(input, size=None, scale_factor=None, mode='nearest', align_corners=None,"
         ' recompute_scale_factor=None, antialias=False) -> Tensor'),
        "", ""),
    'kl_div': (
        ("kl_div(input, target, size_average=None, reduce=None, reduction='mean', "
         'log_target=False) -> Tensor'),
        ('target·(log(target) - input) with ``input`` in log space (``target`` too when '
         "``log_target``); 'batchmean' divides the sum by the batch size, 'mean' warns as "
         'torch.'), ""),
    'l1_loss': (
        ("l1_loss(input, target, size_average=None, reduce=None, reduction='mean', "
         'weight=None) -> Tensor'),
        ("|input - target|, reduced. A target of another shape broadcasts with torch's "
         "warning. ``reduction`` is 'mean' (default), 'sum' or 'none'; the legacy "
         '``size_average``/``reduce`` warn and map to it.'),
        "Differs from torch: torch's ``weight`` is not accepted here."),
    'layer_norm': (
        'layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05) -> Tensor',
        ('Normalises over the trailing ``normalized_shape`` dims: (x - mean) / sqrt(var + eps)'
         ' with the biased variance, then * weight + bias. Half dtypes compute in float32.'), ""),
    'leaky_relu': ('leaky_relu(input, negative_slope=0.01, inplace=False) -> Tensor',
        ('x where x > 0, negative_slope * x elsewhere. With ``inplace=True`` the result is '
         "written into ``input`` (torch's in-place checks apply)."), ""),
    'leaky_relu_': ('leaky_relu_(input, negative_slope=0.01) -> Tensor',
        'In-place F.leaky_relu.', ""),
    'linear': ('linear(input, weight, bias=None) -> Tensor', '', ''),
    'log_softmax': ('log_softmax(input, dim=None, _stacklevel=3, dtype=None) -> Tensor',
        ('x - logsumexp(x) along ``dim``; ``dtype`` casts first. Without ``dim`` an implicit '
         "dim is chosen with torch's deprecation warning."), ""),
    'logsigmoid': ('logsigmoid(input) -> Tensor', 'log(sigmoid(x)), computed stably.', ''),
    'margin_ranking_loss': (
        ('margin_ranking_loss(input1, input2, target, margin=0, size_average=None, '
         "reduce=None, reduction='mean') -> Tensor"),
        ("max(0, -target·(input1 - input2) + margin), reduced. ``reduction`` is 'mean' "
         "(default), 'sum' or 'none'; the legacy ``size_average``/``reduce`` warn and map to "
         'it.'), ""),
    'max_pool1d': (
        ('max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, '
         'return_indices=False)'),
        ('Maximum over sliding windows of the last dim (stride defaults to the kernel size); '
         '``return_indices`` also returns the flat positions of the maxima.'), ""),
    'max_pool2d': (
        ('max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, '
         'return_indices=False)'),
        ('Maximum over sliding windows of the last two dims (stride defaults to the kernel '
         'size); ``return_indices`` also returns the flat positions of the maxima.'), ""),
    'mish': ('mish(input, inplace=False) -> Tensor',
        ('x * tanh(softplus(x)). With ``inplace=True`` the result is written into ``input`` '
         "(torch's in-place checks apply)."), ""),
    'mse_loss': (
        ("mse_loss(input, target, size_average=None, reduce=None, reduction='mean', "
         'weight=None) -> Tensor'),
        ("(input - target)², reduced. A target of another shape broadcasts with torch's "
         "warning. ``reduction`` is 'mean' (default), 'sum' or 'none'; the legacy "
         '``size_average``/``reduce`` warn and map to it.'), ""),
    'multi_head_attention_forward': (
        ('multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads, '
         'in_proj_weight, in_proj_bias, bias_k, bias_v, add_zero_attn, dropout_p, '
         'out_proj_weight, out_proj_bias, training=True, key_padding_mask=None, '
         'need_weights=True, attn_mask=None, use_separate_proj_weight=False, '
         'q_proj_weight=None, k_proj_weight=None, v_proj_weight=None, static_k=None, '
         'static_v=None, average_attn_weights=True, is_causal=False) -> tuple[Tensor, Tensor |'
         ' None]'),
        "", ""),
    'multilabel_soft_margin_loss': (
        ('multilabel_soft_margin_loss(input, target, weight=None, size_average=None, '
         "reduce=None, reduction='mean') -> Tensor"),
        ('Binary cross-entropy of sigmoid(input) against the 0/1 ``target``, averaged over the'
         " classes (optionally weighted), reduced. ``reduction`` is 'mean' (default), 'sum' or"
         " 'none'; the legacy ``size_average``/``reduce`` warn and map to it."), ""),
    'nll_loss': (
        ('nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, '
         "reduce=None, reduction='mean') -> Tensor"),
        ('-input[n, target[n]] (times the class weight), averaged over the non-ignored targets'
         " by their weights for 'mean'; targets must be int64 (or uint8). ``reduction`` is "
         "'mean' (default), 'sum' or 'none'; the legacy ``size_average``/``reduce`` warn and "
         'map to it.'), ""),
    'normalize': ('normalize(input, p=2.0, dim=1, eps=1e-12, out=None) -> Tensor',
        'input / max(‖input‖_p, eps) along ``dim``.', ""),
    'one_hot': ('one_hot(tensor, num_classes=-1) -> LongTensor',
        ('An int64 tensor with a trailing dim of ``num_classes`` (max + 1 when -1) that is 1 '
         'at each index of the int64 ``tensor``.'), ""),
    'pad': ('pad(input, pad, mode="constant", value=None) -> Tensor',
        ('Pads the last dims by the (left, right, top, bottom, ...) sizes in ``pad`` (listed '
         "from the last dim backwards); mode 'constant' (with ``value``), 'reflect', "
         "'replicate' or 'circular'. Negative sizes crop."), ""),
    'pairwise_distance': ('pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False) -> Tensor',
        "", ""),
    'pixel_shuffle': ('pixel_shuffle(input, upscale_factor) -> Tensor', '', ''),
    'pixel_unshuffle': ('pixel_unshuffle(input, downscale_factor) -> Tensor', '', ''),
    'poisson_nll_loss': (
        ('poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, '
         "eps=1e-08, reduce=None, reduction='mean') -> Tensor"),
        ('exp(input) - target·input when ``log_input``, otherwise input - target·log(input + '
         "eps); ``full`` adds the Stirling term. ``reduction`` is 'mean' (default), 'sum' or "
         "'none'; the legacy ``size_average``/``reduce`` warn and map to it."), ""),
    'relu': ('relu(input, inplace=False) -> Tensor',
        ('max(x, 0), elementwise (gradient 0 at 0). With ``inplace=True`` the result is '
         "written into ``input`` (torch's in-place checks apply)."), ""),
    'relu6': ('relu6(input, inplace=False) -> Tensor',
        ('min(max(x, 0), 6), elementwise. With ``inplace=True`` the result is written into '
         "``input`` (torch's in-place checks apply)."), ""),
    'relu_': ('relu_(input) -> Tensor',
        'In-place F.relu: writes into ``input`` and returns it.', ""),
    'rms_norm': ('rms_norm(input, normalized_shape, weight=None, eps=None) -> Tensor', '', ''),
    'scaled_dot_product_attention': (
        ('scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, '
         'is_causal=False, scale=None, enable_gqa=False) -> Tensor'),
        "", ""),
    'selu': ('selu(input, inplace=False) -> Tensor',
        ("scale * elu(x, alpha) with torch's fixed constants (alpha ≈ 1.6733, scale ≈ 1.0507)."
         " With ``inplace=True`` the result is written into ``input`` (torch's in-place checks"
         ' apply).'), ""),
    'selu_': ('selu_(input) -> Tensor', 'In-place F.selu.', ''),
    'sigmoid': ('sigmoid(input) -> Tensor', 'The logistic function, as torch.sigmoid.', ''),
    'silu': ('silu(input, inplace=False) -> Tensor',
        ('x * sigmoid(x) (swish). With ``inplace=True`` the result is written into ``input`` '
         "(torch's in-place checks apply)."), ""),
    'smooth_l1_loss': (
        ("smooth_l1_loss(input, target, size_average=None, reduce=None, reduction='mean', "
         'beta=1.0) -> Tensor'),
        ('0.5·d²/beta where |d| < beta, |d| - 0.5·beta elsewhere (d = input - target), '
         "reduced. ``reduction`` is 'mean' (default), 'sum' or 'none'; the legacy "
         '``size_average``/``reduce`` warn and map to it.'), ""),
    'soft_margin_loss': (
        ("soft_margin_loss(input, target, size_average=None, reduce=None, reduction='mean') ->"
         ' Tensor'),
        ('log(1 + exp(-target·input)), averaged over the elements, reduced. ``reduction`` is '
         "'mean' (default), 'sum' or 'none'; the legacy ``size_average``/``reduce`` warn and "
         'map to it.'), ""),
    'softmax': ('softmax(input, dim=None, _stacklevel=3, dtype=None) -> Tensor',
        ('exp(x) / sum(exp(x)) along ``dim``, computed stably; ``dtype`` casts first. Without '
         "``dim`` an implicit dim is chosen with torch's deprecation warning."), ""),
    'softmin': ('softmin(input, dim=None, _stacklevel=3, dtype=None) -> Tensor',
        'softmax(-x) along ``dim``.', ""),
    'softplus': ('softplus(input, beta=1, threshold=20) -> Tensor',
        'log(1 + exp(beta * x)) / beta, switching to x itself where beta * x > threshold.', ""),
    'softsign': ('softsign(input) -> Tensor', 'x / (1 + |x|).', ''),
    'tanh': ('tanh(input) -> Tensor', 'Hyperbolic tangent, as torch.tanh.', ''),
    'tanhshrink': ('tanhshrink(input) -> Tensor', 'x - tanh(x).', ''),
    'hardshrink': ('hardshrink(input, lambd=0.5, *, out=None) -> Tensor',
        '``torch.hardshrink``: ``x`` outside ``[-lambd, lambd]``, else 0.', ''),
    'softshrink': ('softshrink(input, lambd=0.5) -> Tensor',
        ('``x - lambd`` where ``x > lambd``, ``x + lambd`` where ``x < -lambd``, else ``x * 0`` '
         '(a signed zero; NaN stays NaN); float16/bfloat16 computed in float32 and rounded once. '
         '``lambd`` must lie in ``[0, the dtype\'s largest value]`` (torch\'s RuntimeError '
         'naming the range); floating dtypes only. Gradient: 0 where ``-lambd <= x <= lambd``, '
         'else ``grad``.'), ''),
    'prelu': ('prelu(input, weight) -> Tensor',
        '``torch.prelu``: ``x`` where positive, else ``weight * x`` along the channel dim.', ''),
    'threshold': ('threshold(input, threshold, value, inplace=False) -> Tensor',
        ('x where x > threshold, ``value`` elsewhere (strict comparison). With '
         "``inplace=True`` the result is written into ``input`` (torch's in-place checks "
         'apply).'), ""),
    'threshold_': ('threshold_(input, threshold, value) -> Tensor', 'In-place F.threshold.', ''),
    'triplet_margin_loss': (
        ('triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-06, '
         "swap=False, size_average=None, reduce=None, reduction='mean') -> Tensor"),
        ('max(d(a, p) - d(a, n) + margin, 0) with the p-norm distance d (``swap`` uses the '
         "smaller of d(a, n), d(p, n)), reduced. ``reduction`` is 'mean' (default), 'sum' or "
         "'none'; the legacy ``size_average``/``reduce`` warn and map to it."), ""),
    'triplet_margin_with_distance_loss': (
        ('triplet_margin_with_distance_loss(anchor, positive, negative, *, '
         "distance_function=None, margin=1.0, swap=False, reduction='mean') -> Tensor"),
        "", ""),
    'unfold': ('unfold(input, kernel_size, dilation=1, padding=0, stride=1) -> Tensor', '', ''),
    'fold': ('fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1) -> Tensor',
        '', ''),
}


INIT = {  # torch.nn.init.<name>
    'calculate_gain': ('calculate_gain(nonlinearity, param=None) -> float', '', ''),
    'constant': ('constant(...)', '', ''),
    'constant_': ('constant_(tensor, val) -> Tensor', '', ''),
    'dirac': ('dirac(...)', '', ''),
    'dirac_': ('dirac_(tensor, groups=1) -> Tensor', '', ''),
    'eye': ('eye(...)', '', ''),
    'eye_': ('eye_(tensor) -> Tensor', '', ''),
    'kaiming_normal': ('kaiming_normal(...)', '', ''),
    'kaiming_normal_': (
        ("kaiming_normal_(tensor, a=0, mode='fan_in', nonlinearity='leaky_relu', "
         'generator=None) -> Tensor'),
        "", ""),
    'kaiming_uniform': ('kaiming_uniform(...)', '', ''),
    'kaiming_uniform_': (
        ("kaiming_uniform_(tensor, a=0, mode='fan_in', nonlinearity='leaky_relu', "
         'generator=None) -> Tensor'),
        "", ""),
    'normal': ('normal(...)', '', ''),
    'normal_': ('normal_(tensor, mean=0.0, std=1.0, generator=None) -> Tensor', '', ''),
    'ones_': ('ones_(tensor) -> Tensor', '', ''),
    'orthogonal': ('orthogonal(...)', '', ''),
    'orthogonal_': ('orthogonal_(tensor, gain=1, generator=None) -> Tensor', '', ''),
    'sparse': ('sparse(...)', '', ''),
    'sparse_': ('sparse_(tensor, sparsity, std=0.01, generator=None) -> Tensor', '', ''),
    'trunc_normal_': (
        'trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None) -> Tensor',
        "", ""),
    'uniform': ('uniform(...)', '', ''),
    'uniform_': ('uniform_(tensor, a=0.0, b=1.0, generator=None) -> Tensor', '', ''),
    'xavier_normal': ('xavier_normal(...)', '', ''),
    'xavier_normal_': ('xavier_normal_(tensor, gain=1.0, generator=None) -> Tensor', '', ''),
    'xavier_uniform': ('xavier_uniform(...)', '', ''),
    'xavier_uniform_': ('xavier_uniform_(tensor, gain=1.0, generator=None) -> Tensor', '', ''),
    'zeros_': ('zeros_(tensor) -> Tensor', '', ''),
}
