"""The ``gpt2`` model: Model Zoo's GPT-2 language model for the configuration fields it supports.

The architecture is Model Zoo's ``GPT2LMHeadModel``: word and learned position embeddings
(optional embedding norm, ``embeddings_scale``, dropout), ``num_hidden_layers`` pre-norm decoder
blocks of causal self-attention and a feed-forward network, a final norm, and an LM head tied to
the word embeddings (``share_embedding_weights``). The blocks are ``nn.TransformerEncoderLayer``
with ``norm_first=True`` and a causal mask (``is_causal=True``). Init follows Model Zoo's defaults: truncated normal
(std ``initializer_range``, cut at two standard deviations) for embeddings and kernels, the
attention and feed-forward output kernels scaled by ``1/sqrt(2 * num_hidden_layers)``, zero
biases, unit norm weights.

``Gpt2Model.forward(data)`` takes Model Zoo's batch dict (``input_ids``, ``attention_mask``,
``labels``, all int32; ``attention_mask`` is a loss mask, as in Model Zoo) and returns the loss
of ``GPTLMHeadModelLoss``: per-token cross entropy times the mask, summed, divided by the number
of unmasked tokens (``loss_scaling: num_tokens``) or by the batch size times ``loss_weight``
(``batch_size``). In eval mode it updates ``eval/accuracy`` and ``eval/lm_perplexity``.

Differs from Model Zoo: only the fields of ``GPT2ModelConfig`` below exist (any other key is
refused with its name); the state-dict names are ours (``transformer_decoder.layers.<i>.self_attn.
in_proj_weight``, ...), not Model Zoo's layer names.
"""
from __future__ import annotations

import math
from typing import Literal, Optional

from pydantic import Field

from minitorch_cs import torch
from minitorch_cs.metrics import AccuracyMetric, PerplexityMetric
from minitorch_cs.torch import nn
from minitorch_cs.torch.nn import functional as F

from ....config import ModelConfig

__all__ = ["GPT2ModelConfig", "GPT2LMHeadModel", "Gpt2Model", "gpt_lm_loss"]

_ACTIVATIONS = {
    "gelu": F.gelu,
    "relu": F.relu,
    "silu": F.silu,
    "gelu_new": lambda x: F.gelu(x, approximate="tanh"),
    "tanh": torch.tanh,
    "sigmoid": torch.sigmoid,
}


class GPT2ModelConfig(ModelConfig):
    name: Literal["gpt2"]
    """Name of the model."""

    # Embedding
    vocab_size: int = Field(50257, ge=1, le=512000)
    """The size of the vocabulary used in the model. Max supported value - 512000."""

    max_position_embeddings: int = Field(1024, gt=0)
    """The maximum sequence length that the model can handle."""

    embd_pdrop: Optional[float] = Field(None, ge=0, le=1, alias="embedding_dropout_rate")
    """The dropout probability for the embeddings (None: ``dropout_rate``)."""

    position_embedding_type: Literal["learned"] = "learned"
    """The type of position embedding (only ``learned`` is supported here)."""

    position_embedding_offset: int = 0
    """Position offset for learned embeddings."""

    hidden_size: int = Field(768, ge=0)
    """The size of the transformer hidden layers."""

    share_embedding_weights: bool = True
    """Whether to share the embedding weights between the input and output embedding."""

    embedding_layer_norm: bool = False
    """Whether to apply a norm to the embeddings."""

    # Decoder
    num_hidden_layers: int = 12
    """Number of hidden layers in the Transformer decoder."""

    dropout_rate: float = Field(0.1, ge=0, le=1)
    """The dropout probability for all fully connected layers."""

    norm_type: Literal["layernorm", "rmsnorm"] = "layernorm"
    """The type of normalization."""

    layer_norm_epsilon: float = 1e-5
    """The epsilon value used in the normalization layers."""

    # Decoder - attention
    num_heads: int = Field(12, gt=0)
    """The number of attention heads in the model."""

    attention_type: Literal["scaled_dot_product"] = "scaled_dot_product"
    """QK^T / sqrt(d) attention (``dot_product`` is not supported here)."""

    attention_module: Literal["aiayn_attention"] = "aiayn_attention"
    """Multi-head attention (multi-query attention is not supported here)."""

    use_projection_bias_in_attention: bool = True
    """Whether to include bias in the attention layer for Q/K/V projections."""

    use_ffn_bias_in_attention: bool = True
    """Whether to include bias in the attention output projection."""

    attention_dropout_rate: Optional[float] = Field(0.1, ge=0, le=1)
    """Dropout rate for attention weights (None: ``dropout_rate``)."""

    attention_softmax_fp32: bool = True
    """Whether to use fp32 precision for attention softmax (every softmax is fp32 here)."""

    # Decoder - feed-forward
    filter_size: int = Field(3072, gt=0)
    """Dimensionality of the feed-forward layer in the Transformer block."""

    nonlinearity: Literal["gelu", "relu", "silu", "gelu_new", "tanh", "sigmoid"] = "gelu"
    """The activation function of the feed-forward network."""

    use_ffn_bias: bool = True
    """Whether to use bias in the feedforward network (FFN)."""

    # Output, init, loss
    use_bias_in_output: bool = False
    """Whether to use bias in the final output layer."""

    initializer_range: float = 0.02
    """The standard deviation of the truncated normal initializer."""

    embeddings_scale: Optional[float] = 1.0
    """Scales the embedding hidden states."""

    loss_scaling: Literal["batch_size", "num_tokens"] = "num_tokens"
    """Divide the summed token loss by the number of loss tokens or by the batch size."""

    loss_weight: float = 1.0
    """Extra factor of the loss when ``loss_scaling`` is ``batch_size``."""

    compute_eval_metrics: bool = True
    """Computes perplexity & accuracy metrics in addition to loss."""

    def post_init(self, context):
        if self.embd_pdrop is None:
            self.embd_pdrop = self.dropout_rate
        if self.attention_dropout_rate is None:
            self.attention_dropout_rate = self.dropout_rate


def _trunc_normal_(t, std):
    nn.init.trunc_normal_(t, mean=0.0, std=std, a=-2 * std, b=2 * std)


class _Embeddings(nn.Module):
    """Word embeddings plus learned position embeddings."""

    def __init__(self, vocab_size, hidden_size, max_position_embeddings, offset):
        super().__init__()
        self.word_embeddings = nn.Embedding(vocab_size, hidden_size)
        self.position_embeddings = nn.Embedding(max_position_embeddings, hidden_size)
        self.offset = offset

    def forward(self, input_ids):
        positions = torch.arange(self.offset, self.offset + input_ids.shape[1],
                                 device=input_ids.device)
        return self.word_embeddings(input_ids) + self.position_embeddings(positions)


class _Decoder(nn.Module):
    """``nn.TransformerEncoder``'s layout (``layers.<i>``, ``norm``) with causal self-attention,
    built from separately constructed layers (every layer is initialised afterwards anyway)."""

    def __init__(self, layers, norm):
        super().__init__()
        self.layers = nn.ModuleList(layers)
        self.norm = norm

    def forward(self, x, mask):
        for layer in self.layers:
            x = layer(x, src_mask=mask, is_causal=True)
        return self.norm(x)


class GPT2LMHeadModel(nn.Module):
    """Embeddings, pre-norm causal decoder blocks, final norm, LM head: ``forward(input_ids)``
    returns logits (batch, sequence, vocab_size)."""

    def __init__(self, config: GPT2ModelConfig):
        super().__init__()
        c = config
        if c.hidden_size % c.num_heads:
            raise ValueError(f"hidden_size ({c.hidden_size}) must be divisible by num_heads "
                             f"({c.num_heads})")
        self.share_embedding_weights = c.share_embedding_weights
        self.embeddings_scale = 1.0 if c.embeddings_scale is None else c.embeddings_scale
        self.embedding_layer = _Embeddings(c.vocab_size, c.hidden_size,
                                           c.max_position_embeddings,
                                           c.position_embedding_offset)
        norm = (lambda: nn.RMSNorm(c.hidden_size, eps=c.layer_norm_epsilon)) \
            if c.norm_type == "rmsnorm" else \
            (lambda: nn.LayerNorm(c.hidden_size, eps=c.layer_norm_epsilon))
        if c.embedding_layer_norm:
            self.embedding_ln_f = norm()
        self.drop_embd = nn.Dropout(c.embd_pdrop)
        self.transformer_decoder = _Decoder([self._layer(c, norm)
                                             for _ in range(c.num_hidden_layers)], norm())
        self.lm_head = nn.Linear(c.hidden_size, c.vocab_size, bias=c.use_bias_in_output)
        self._reset_parameters(c)
        if self.share_embedding_weights:
            self.lm_head.weight = self.embedding_layer.word_embeddings.weight

    @staticmethod
    def _layer(c, norm):
        layer = nn.TransformerEncoderLayer(c.hidden_size, c.num_heads, c.filter_size,
                                           c.dropout_rate, _ACTIVATIONS[c.nonlinearity],
                                           c.layer_norm_epsilon, batch_first=True,
                                           norm_first=True)
        layer.self_attn.dropout = c.attention_dropout_rate
        if c.norm_type == "rmsnorm":
            layer.norm1, layer.norm2 = norm(), norm()
        if not c.use_projection_bias_in_attention:
            layer.self_attn.register_parameter("in_proj_bias", None)
        if not c.use_ffn_bias_in_attention:
            layer.self_attn.out_proj.register_parameter("bias", None)
        if not c.use_ffn_bias:
            layer.linear1.register_parameter("bias", None)
            layer.linear2.register_parameter("bias", None)
        return layer

    def _reset_parameters(self, c):
        std = c.initializer_range
        out_std = std / math.sqrt(2 * c.num_hidden_layers)
        _trunc_normal_(self.embedding_layer.word_embeddings.weight, std)
        _trunc_normal_(self.embedding_layer.position_embeddings.weight, std)
        for layer in self.transformer_decoder.layers:
            _trunc_normal_(layer.self_attn.in_proj_weight, std)
            _trunc_normal_(layer.self_attn.out_proj.weight, out_std)
            _trunc_normal_(layer.linear1.weight, std)
            _trunc_normal_(layer.linear2.weight, out_std)
            for b in (layer.self_attn.in_proj_bias, layer.self_attn.out_proj.bias,
                      layer.linear1.bias, layer.linear2.bias):
                if b is not None:
                    nn.init.zeros_(b)
        if not self.share_embedding_weights:
            nn.init.normal_(self.lm_head.weight, mean=0.0, std=std)
        if self.lm_head.bias is not None:
            nn.init.zeros_(self.lm_head.bias)

    def forward(self, input_ids):
        h = self.embedding_layer(input_ids)
        if hasattr(self, "embedding_ln_f"):
            h = self.embedding_ln_f(h)
        if self.embeddings_scale != 1.0:
            h = h * self.embeddings_scale
        h = self.drop_embd(h)
        mask = nn.Transformer.generate_square_subsequent_mask(input_ids.shape[1], dtype=h.dtype)
        h = self.transformer_decoder(h, mask)
        return self.lm_head(h)


def gpt_lm_loss(logits, labels, attention_mask, loss_scaling="num_tokens", loss_weight=1.0):
    """Model Zoo's ``GPTLMHeadModelLoss``: masked per-token cross entropy, summed, divided by the
    number of loss tokens (``num_tokens``) or by the batch size times ``loss_weight``."""
    vocab = logits.shape[-1]
    loss = F.cross_entropy(logits.reshape(-1, vocab), labels.reshape(-1).long(),
                           reduction="none")
    loss = loss * attention_mask.reshape(-1).to(logits.dtype)
    if loss_scaling == "num_tokens":
        return loss.sum() / attention_mask.to(torch.float32).sum()
    return loss.sum() / labels.shape[0] * loss_weight


class Gpt2Model(nn.Module):
    """``GPT2LMHeadModel`` plus Model Zoo's loss and eval metrics; takes a ``GPT2ModelConfig``
    or a dict of its fields."""

    def __init__(self, config: GPT2ModelConfig):
        if isinstance(config, dict):
            config = GPT2ModelConfig(**config.get("model", config))
        super().__init__()
        self.loss_scaling = config.loss_scaling
        self.loss_weight = config.loss_weight
        if self.loss_weight != 1.0 and self.loss_scaling == "num_tokens":
            import logging
            logging.getLogger(__name__).warning(
                f"loss_weight cannot be {self.loss_weight} for num_tokens loss_scaling. Setting "
                "loss_weight to 1.0.")
            self.loss_weight = 1.0
        self.compute_eval_metrics = config.compute_eval_metrics
        if self.compute_eval_metrics:
            self.perplexity_metric = PerplexityMetric(name="eval/lm_perplexity")
            self.accuracy_metric = AccuracyMetric(name="eval/accuracy")
        self.vocab_size = config.vocab_size
        self.model = GPT2LMHeadModel(config)

    def forward(self, data):
        for key in ("input_ids", "attention_mask", "labels"):
            if key not in data:
                raise AssertionError("GPT-2 model expects these data fields: input_ids, "
                                     "attention_mask, labels")
            if data[key].dtype != torch.int32:
                raise AssertionError("The dtype for all inputs should be torch.int32")
        logits = self.model(data["input_ids"])
        loss = gpt_lm_loss(logits, data["labels"], data["attention_mask"], self.loss_scaling,
                           self.loss_weight)
        if not self.model.training and self.compute_eval_metrics:
            labels = data["labels"].clone()
            weights = data["attention_mask"].to(logits.dtype).clone()
            self.accuracy_metric(labels=labels, predictions=logits.argmax(-1).int(),
                                 weights=weights)
            if self.loss_scaling == "num_tokens":
                unscaled = loss * torch.sum(weights, dtype=torch.float32)
            else:
                unscaled = loss * torch.tensor(labels.shape[0] / self.loss_weight,
                                               dtype=torch.float32)
            self.perplexity_metric(labels=labels, loss=unscaled, weights=weights)
        return loss
