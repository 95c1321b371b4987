"""``torch.nn.functional``'s attention: ``scaled_dot_product_attention`` and
``multi_head_attention_forward`` with torch 2.13's mask and shape rules."""
from __future__ import annotations

import math

import numpy as np

from .. import _dtype as D
from .. import _functions as T
from .._autograd import also_checked, torch_named
from .._dispatch import apply
from .._ops import nn as N
from .._fpe import warn_user
from .._tensor import Tensor
from ._functional_base import _scalar_like, dropout, linear, pad, softmax


__all__ = [
    "scaled_dot_product_attention", "multi_head_attention_forward",
]


# ----- attention ----------------------------------------------------------------------------------
def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None, enable_gqa=False):
    """softmax(q k^T * scale + bias) v (torch 2.13's rule, our composition of it).

    ``scale`` defaults to 1/sqrt(E); ``is_causal`` masks with the top-left aligned lower triangle
    of an (L, S) matrix; a bool ``attn_mask`` keeps True positions, a float one (float32 or the
    query's dtype) is added; both may be given. ``enable_gqa`` repeats each key/value head for
    ``Hq // Hkv`` query heads. A row that masks every key gives zeros (torch's safe softmax),
    with zero gradients. ``dropout_p`` drops attention weights (always: the caller passes 0
    outside training).
    """
    if not (query._dtype is key._dtype is value._dtype):
        raise RuntimeError("Expected query, key, and value to have the same dtype, but got "
                           f"query.dtype: {D.cpp_name(query._dtype)} key.dtype: {D.cpp_name(key._dtype)} and "
                           f"value.dtype: {D.cpp_name(value._dtype)} instead.")
    if attn_mask is not None and attn_mask._dtype not in (D.bool, D.float32, query._dtype):
        raise RuntimeError("Expected attn_mask dtype to be bool or float or to match query "
                           f"dtype, but got attn_mask.dtype: {D.cpp_name(attn_mask._dtype)} and  "
                           f"query.dtype: {D.cpp_name(query._dtype)} instead.")
    if not query._dtype.is_floating_point:
        # torch's math path: a bool mask becomes a -inf/0 mask in the query's dtype (an integer
        # dtype cannot hold -inf), the scaled scores are float, and the final matmul with the
        # integer or bool values refuses to mix dtypes
        if attn_mask is not None and attn_mask._dtype is D.bool and query._dtype is not D.bool:
            raise RuntimeError("value cannot be converted to type "
                               f"{D._C_INT[query._dtype.name]} without overflow")
        raise RuntimeError(f"expected scalar type Float but found {D.scalar_name(query._dtype)}")
    if query._dtype in (D.float16, D.bfloat16):
        # torch's math path upcasts half inputs to float32 and rounds the result once
        if attn_mask is not None and attn_mask._dtype is not D.bool:
            attn_mask = attn_mask.float()
        return _flash_named(scaled_dot_product_attention(
            query.float(), key.float(), value.float(), attn_mask, dropout_p, is_causal, scale,
            enable_gqa).to(query._dtype), query, key, value, attn_mask, dropout_p)
    if enable_gqa:
        hq, hk, hv = query.shape[-3], key.shape[-3], value.shape[-3]
        if hq % hk or hq % hv:
            raise RuntimeError("Number of heads in key and value must divide the number of heads "
                               "in ")
        if hk != hq:
            key = T.repeat_interleave(key, hq // hk, dim=-3)
        if hv != hq:
            value = T.repeat_interleave(value, hq // hv, dim=-3)
    # (an empty head dim: every score is an empty sum, 0, as in torch, which scales the
    # empty operands rather than the zeros by 1/sqrt(0))
    s = scale if scale is not None else 1.0 / math.sqrt(query.shape[-1]) if query.shape[-1] \
        else 1.0
    # torch's math path scales both operands by sqrt(scale) before their product (so its node
    # saves the scaled copies, not the query and key themselves)
    root = math.sqrt(s) if s >= 0 else math.sqrt(-s)
    scores = T.matmul(query * (root if s >= 0 else -root), key.transpose(-2, -1) * root)
    L, S = query.shape[-2], key.shape[-2]
    if is_causal:
        keep = Tensor._wrap(np.tril(np.ones((L, S), bool)))
        scores = T.where(keep, scores, _scalar_like(float("-inf"), scores._dtype))
    if attn_mask is not None:
        if attn_mask._dtype is D.bool:
            scores = T.where(attn_mask, scores, _scalar_like(float("-inf"), scores._dtype))
        else:
            scores = scores + attn_mask
    # torch's safe softmax: a row whose scores are all -inf (every key masked, or -inf from the
    # values themselves) gives zeros, not NaN; its backward is softmax's with that result
    attn = apply(N.SafeSoftmax, scores, dim=scores.ndim - 1)
    if dropout_p > 0:
        attn = dropout(attn, dropout_p)
    return _flash_named(T.matmul(attn, value), query, key, value, attn_mask, dropout_p)


def _flash_named(out, query, key, value, attn_mask, dropout_p):
    """``out`` named as torch 2.13's CPU dispatch names it: 4-D non-empty inputs without
    dropout and without a mask that requires grad take its fused flash-attention kernel
    (``ScaledDotProductFlashAttentionForCpuBackward0``); the rest its math path, whose last op
    is ours too. Only the name follows the fused kernel, not its blockwise arithmetic."""
    if query.ndim == 4 and dropout_p == 0 and query.numel() and key.numel() and \
            value.numel() and (attn_mask is None or not attn_mask.requires_grad):
        torch_named(out, "ScaledDotProductFlashAttentionForCpuBackward0", query, key, value)
        also_checked(out, query, key, value)  # (the fused kernel's node saves all three)
    return out


def _none_or_dtype(input):
    if input is None:
        return None
    if isinstance(input, Tensor):
        return input.dtype
    raise RuntimeError("input to _none_or_dtype() must be None or torch.Tensor")


def _canonical_mask(mask, mask_name, other_type, other_name, target_type, check_other=True):
    """A bool mask becomes a float mask of ``target_type`` (-inf where True, 0 elsewhere);
    float masks pass through; other dtypes raise. Mixed mask dtypes warn (deprecated in torch)."""
    if mask is None:
        return None
    is_float = mask._dtype.is_floating_point
    if mask._dtype is not D.bool and not is_float:
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask._dtype is not other_type:
        warn_user(f"Support for mismatched {mask_name} and {other_name} is deprecated. Use same "
                  "type for both instead.")
    if not is_float:
        mask = T.where(mask, _scalar_like(float("-inf"), target_type),
                       _scalar_like(0.0, target_type))
    return mask


def _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads):
    if query.ndim == 3:
        if key.ndim != 3 or value.ndim != 3:
            raise AssertionError("For batched (3-D) `query`, expected `key` and `value` to be 3-D "
                                 f"but found {key.ndim}-D and {value.ndim}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.ndim != 2:
            raise AssertionError("For batched (3-D) `query`, expected `key_padding_mask` to be "
                                 f"`None` or 2-D but found {key_padding_mask.ndim}-D tensor "
                                 "instead")
        if attn_mask is not None and attn_mask.ndim not in (2, 3):
            raise AssertionError("For batched (3-D) `query`, expected `attn_mask` to be `None`, "
                                 f"2-D or 3-D but found {attn_mask.ndim}-D tensor instead")
        return True
    if query.ndim == 2:
        if key.ndim != 2 or value.ndim != 2:
            raise AssertionError("For unbatched (2-D) `query`, expected `key` and `value` to be "
                                 f"2-D but found {key.ndim}-D and {value.ndim}-D tensors "
                                 "respectively")
        if key_padding_mask is not None and key_padding_mask.ndim != 1:
            raise AssertionError("For unbatched (2-D) `query`, expected `key_padding_mask` to be "
                                 f"`None` or 1-D but found {key_padding_mask.ndim}-D tensor "
                                 "instead")
        if attn_mask is not None:
            if attn_mask.ndim not in (2, 3):
                raise AssertionError("For unbatched (2-D) `query`, expected `attn_mask` to be "
                                     f"`None`, 2-D or 3-D but found {attn_mask.ndim}-D tensor "
                                     "instead")
            if attn_mask.ndim == 3:
                expected = (num_heads, query.shape[0], key.shape[0])
                if tuple(attn_mask.shape) != expected:
                    raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got "
                                         f"{attn_mask.shape}")
        return False
    raise AssertionError("query should be unbatched 2D or batched 3D tensor but received "
                         f"{query.ndim}-D query tensor")


def _in_projection_packed(q, k, v, w, b=None):
    E = q.shape[-1]
    if k is v:
        if q is k:  # self-attention: one projection, split into q, k, v
            proj = linear(q, w, b).unflatten(-1, (3, E))
            return proj.select(-2, 0), proj.select(-2, 1), proj.select(-2, 2)
        w_q, w_kv = T.split(w, [E, 2 * E])
        b_q, b_kv = (None, None) if b is None else T.split(b, [E, 2 * E])
        kv = linear(k, w_kv, b_kv).unflatten(-1, (2, E))
        return linear(q, w_q, b_q), kv.select(-2, 0), kv.select(-2, 1)
    w_q, w_k, w_v = T.chunk(w, 3)
    b_q, b_k, b_v = (None, None, None) if b is None else T.chunk(b, 3)
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def _in_projection(q, k, v, w_q, w_k, w_v, b_q=None, b_k=None, b_v=None):
    Eq, Ek, Ev = q.shape[-1], k.shape[-1], v.shape[-1]
    for name, w, shape in (("query", w_q, (Eq, Eq)), ("key", w_k, (Eq, Ek)),
                           ("value", w_v, (Eq, Ev))):
        if tuple(w.shape) != shape:
            raise AssertionError(f"expecting {name} weights shape of {shape}, but got {w.shape}")
    for name, b in (("query", b_q), ("key", b_k), ("value", b_v)):
        if b is not None and tuple(b.shape) != (Eq,):
            raise AssertionError(f"expecting {name} bias shape of {(Eq,)}, but got {b.shape}")
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads, in_proj_weight,
                                 in_proj_bias, bias_k, bias_v, add_zero_attn, dropout_p,
                                 out_proj_weight, out_proj_bias, training=True,
                                 key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None,
                                 k_proj_weight=None, v_proj_weight=None, static_k=None,
                                 static_v=None, average_attn_weights=True, is_causal=False):
    """torch's multi-head attention on (L, N, E) query and (S, N, E_k/E_v) key/value (or
    unbatched (L, E)): in-projection, optional bias_k/bias_v and zero-attention rows, masks merged
    into one additive float mask, per-head scaled dot-product attention, out-projection.

    With ``need_weights`` the weights are computed explicitly (q scaled by 1/sqrt(head_dim),
    plain softmax: a row that masks every key is NaN, as in torch) and returned per head or
    averaged; without, :func:`scaled_dot_product_attention` runs (and ``is_causal`` may replace the
    mask, as in torch).
    """
    is_batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask",
                                       _none_or_dtype(attn_mask), "attn_mask", query._dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the "
                           "Transformer module method `generate_square_subsequent_mask` to "
                           "create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None  # the hint replaces the mask (sdpa's is_causal below)
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query._dtype,
                                    check_other=False)
        if key_padding_mask is not None:
            is_causal = False
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but "
                             f"got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if tuple(key.shape[:2]) != tuple(value.shape[:2]):
            raise AssertionError(f"key's sequence and batch dims {key.shape[:2]} do not match "
                                 f"value's {value.shape[:2]}")
        for n, w in (("q", q_proj_weight), ("k", k_proj_weight), ("v", v_proj_weight)):
            if w is None:
                raise AssertionError(f"use_separate_proj_weight is True but {n}_proj_weight is "
                                     "None")
        b_q, b_k, b_v = (None, None, None) if in_proj_bias is None else T.chunk(in_proj_bias, 3)
        q, k, v = _in_projection(query, key, value, q_proj_weight, k_proj_weight, v_proj_weight,
                                 b_q, b_k, b_v)
    else:
        if tuple(key.shape) != tuple(value.shape):
            raise AssertionError(f"key shape {key.shape} does not match value shape "
                                 f"{value.shape}")
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        q, k, v = _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    if attn_mask is not None:
        if attn_mask.ndim == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but "
                                   f"should be {(tgt_len, src_len)}.")
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask.ndim == 3:
            if tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
                raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but "
                                   f"should be {(bsz * num_heads, tgt_len, src_len)}.")
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.ndim} is not supported")
    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
        k = T.cat([k, bias_k.repeat(1, bsz, 1)])
        v = T.cat([v, bias_v.repeat(1, bsz, 1)])
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    elif bias_k is not None:
        raise AssertionError("bias_k is set but bias_v is None")
    elif bias_v is not None:
        raise AssertionError("bias_v is set but bias_k is None")
    q = q.reshape(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    if static_k is None:
        k = k.reshape(k.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    else:
        if static_k.shape[0] != bsz * num_heads:
            raise AssertionError(f"expecting static_k.size(0) of {bsz * num_heads}, but got "
                                 f"{static_k.shape[0]}")
        if static_k.shape[2] != head_dim:
            raise AssertionError(f"expecting static_k.size(2) of {head_dim}, but got "
                                 f"{static_k.shape[2]}")
        k = static_k
    if static_v is None:
        v = v.reshape(v.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    else:
        if static_v.shape[0] != bsz * num_heads:
            raise AssertionError(f"expecting static_v.size(0) of {bsz * num_heads}, but got "
                                 f"{static_v.shape[0]}")
        if static_v.shape[2] != head_dim:
            raise AssertionError(f"expecting static_v.size(2) of {head_dim}, but got "
                                 f"{static_v.shape[2]}")
        v = static_v
    if add_zero_attn:
        zeros = Tensor._wrap(np.zeros((bsz * num_heads, 1, head_dim), k._dtype.np))
        k = T.cat([k, zeros], dim=1)
        v = T.cat([v, zeros.to(v._dtype)], dim=1)
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    src_len = k.shape[1]
    if key_padding_mask is not None:
        if key_padding_mask.shape[0] != bsz:
            raise AssertionError(f"Expected key_padded_mask.shape[0] to be {bsz}, but got "
                                 f"{key_padding_mask.shape[0]}")
        if key_padding_mask.shape[1] != src_len:
            raise AssertionError(f"Expected key_padded_mask.shape[1] to be {src_len}, but got "
                                 f"{key_padding_mask.shape[1]}")
        key_padding_mask = key_padding_mask.reshape(bsz, 1, 1, src_len).expand(
            -1, num_heads, -1, -1).reshape(bsz * num_heads, 1, src_len)
        attn_mask = key_padding_mask if attn_mask is None else attn_mask + key_padding_mask
    if not training:
        dropout_p = 0.0
    if need_weights:
        E = q.shape[-1]
        q_scaled = q * math.sqrt(1.0 / float(E))
        scores = T.bmm(q_scaled, k.transpose(-2, -1))
        if attn_mask is not None:
            scores = attn_mask + scores
        weights = softmax(scores, dim=-1)
        if dropout_p > 0.0:
            weights = dropout(weights, p=dropout_p)
        out = T.bmm(weights, v)
        out = out.transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        out = linear(out, out_proj_weight, out_proj_bias)
        out = out.reshape(tgt_len, bsz, out.shape[1])
        weights = weights.reshape(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(dim=1)
        if not is_batched:
            out, weights = out.squeeze(1), weights.squeeze(0)
        return out, weights
    if attn_mask is not None:
        if attn_mask.shape[0] == 1 and attn_mask.ndim == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.reshape(bsz, num_heads, -1, src_len)
    q = q.reshape(bsz, num_heads, tgt_len, head_dim)
    k = k.reshape(bsz, num_heads, src_len, head_dim)
    v = v.reshape(bsz, num_heads, src_len, head_dim)
    out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    out = out.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    out = linear(out, out_proj_weight, out_proj_bias)
    out = out.reshape(tgt_len, bsz, out.shape[1])
    if not is_batched:
        out = out.squeeze(1)
    return out, None
