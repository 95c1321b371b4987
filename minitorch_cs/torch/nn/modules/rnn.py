"""``torch.nn.modules.rnn``: ``RNN``, ``LSTM``, ``GRU`` and their single-step cells.

Torch's equations, parameters (names, shapes, order) and init; composed of tensor ops, so autograd
comes for free. The input projection of every time step is one matmul over the whole sequence;
only the recurrence (``h @ W_hh^T`` and the gates) loops over time steps.

Equations (torch's, gate order as in the weight rows):
    RNN:  h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)          (or relu)
    LSTM: i, f, g, o = chunks of (x W_ih^T + b_ih + h W_hh^T + b_hh)
          c' = sigmoid(f) c + sigmoid(i) tanh(g);  h' = sigmoid(o) tanh(c')   (h' W_hr^T with
          ``proj_size``)
    GRU:  r, z, n_i = chunks of x W_ih^T + b_ih;  r_h, z_h, n_h = chunks of h W_hh^T + b_hh
          r = sigmoid(r + r_h), z = sigmoid(z + z_h), n = tanh(n_i + r n_h), h' = (1 - z) n + z h

Packed input: at step ``t`` only the first ``batch_sizes[t]`` rows advance; the others keep
their state, which is each sequence's last state (forward) or still the initial state (reverse
direction, which runs from each sequence's own end).
"""
from __future__ import annotations

import math
import numbers

from ... import _creation as C
from ..._fpe import warn_user
from ... import _functions as T
from .. import functional as F
from .. import init
from ..parameter import Parameter
from ..utils.rnn import PackedSequence
from .module import Module

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]


def _apply_permutation(tensor, permutation, dim: int = 1):
    return tensor.index_select(dim, permutation)


# ----- one time step ------------------------------------------------------------------------------
def _rnn_step(gi, h, w_hh, b_hh, relu):
    pre = gi + F.linear(h, w_hh, b_hh)
    return (T.relu(pre) if relu else T.tanh(pre)),


def _lstm_step(gi, h, c, w_hh, b_hh, w_hr):
    i, f, g, o = T.chunk(gi + F.linear(h, w_hh, b_hh), 4, -1)
    c = T.sigmoid(f) * c + T.sigmoid(i) * T.tanh(g)
    h = T.sigmoid(o) * T.tanh(c)
    if w_hr is not None:
        h = F.linear(h, w_hr)
    return h, c


def _gru_step(gi, h, w_hh, b_hh):
    r_i, z_i, n_i = T.chunk(gi, 3, -1)
    r_h, z_h, n_h = T.chunk(F.linear(h, w_hh, b_hh), 3, -1)
    r = T.sigmoid(r_i + r_h)
    z = T.sigmoid(z_i + z_h)
    n = T.tanh(n_i + r * n_h)
    return (1 - z) * n + z * h,


def _step(mode, gi, state, w):
    if mode == "LSTM":
        return _lstm_step(gi, state[0], state[1], w["w_hh"], w["b_hh"], w["w_hr"])
    if mode == "GRU":
        return _gru_step(gi, state[0], w["w_hh"], w["b_hh"])
    return _rnn_step(gi, state[0], w["w_hh"], w["b_hh"], mode == "RNN_RELU")


def _run_direction(mode, gi_steps, state, w, batch_sizes, reverse):
    """Run one direction of one layer. ``gi_steps[t]`` is the input projection of step t (only
    its first ``batch_sizes[t]`` rows for packed input); ``state`` the initial (h, [c])."""
    n_steps = len(gi_steps)
    outs = [None] * n_steps
    order = range(n_steps - 1, -1, -1) if reverse else range(n_steps)
    full = state[0].shape[0]
    for t in order:
        bs = full if batch_sizes is None else batch_sizes[t]
        if bs == full:
            state = _step(mode, gi_steps[t], state, w)
            outs[t] = state[0]
        else:  # packed: rows past bs keep their state
            new = _step(mode, gi_steps[t], tuple(s[:bs] for s in state), w)
            outs[t] = new[0]
            state = tuple(T.cat([a, s[bs:]]) for a, s in zip(new, state))
    return outs, state


class RNNBase(Module):
    """Shared constructor, parameters, checks and multi-layer loop of RNN, LSTM and GRU.

    Parameters per layer ``k`` and direction (suffix ``_reverse``): ``weight_ih_l{k}`` (G, in),
    ``weight_hh_l{k}`` (G, H_out), ``bias_ih_l{k}``, ``bias_hh_l{k}`` (G), ``weight_hr_l{k}``
    (proj_size, H) for an LSTM with projections; G = H, 4H or 3H. Init (torch's): every
    parameter ~ U(-1/sqrt(H), 1/sqrt(H)), in registration order.
    """

    __constants__ = ["mode", "input_size", "hidden_size", "num_layers", "bias", "batch_first",
                     "dropout", "bidirectional", "proj_size"]

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1,
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, proj_size: int = 0, device=None,
                 dtype=None) -> None:
        kw = {"device": device, "dtype": dtype}
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        num_directions = 2 if bidirectional else 1
        if not isinstance(dropout, numbers.Number) or not 0 <= dropout <= 1 or \
                isinstance(dropout, bool):
            raise ValueError("dropout should be a number in range [0, 1] representing the "
                             "probability of an element being zeroed")
        if dropout > 0 and num_layers == 1:
            warn_user("dropout option adds dropout after all but last recurrent layer, so "
                      "non-zero dropout expects num_layers greater than 1, but got "
                      f"dropout={dropout} and num_layers={num_layers}")
        if not isinstance(bias, bool):
            raise TypeError(f"bias should be of type bool, got: {type(bias).__name__}")
        if not isinstance(batch_first, bool):
            raise TypeError(f"batch_first should be of type bool, got: "
                            f"{type(batch_first).__name__}")
        if not isinstance(input_size, int):
            raise TypeError(f"input_size should be of type int, got: {type(input_size).__name__}")
        if input_size <= 0:
            raise ValueError("input_size must be greater than zero")
        if not isinstance(hidden_size, int):
            raise TypeError(f"hidden_size should be of type int, got: "
                            f"{type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable "
                             "projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        gates = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}
        if mode not in gates:
            raise ValueError("Unrecognized RNN mode: " + mode)
        gate_size = gates[mode] * hidden_size
        self._flat_weights_names = []
        self._all_weights = []
        real_hidden = proj_size if proj_size > 0 else hidden_size
        for layer in range(num_layers):
            for direction in range(num_directions):
                layer_in = input_size if layer == 0 else real_hidden * num_directions
                suffix = "_reverse" if direction == 1 else ""
                params = [(f"weight_ih_l{layer}{suffix}", (gate_size, layer_in)),
                          (f"weight_hh_l{layer}{suffix}", (gate_size, real_hidden))]
                if bias:
                    params += [(f"bias_ih_l{layer}{suffix}", (gate_size,)),
                               (f"bias_hh_l{layer}{suffix}", (gate_size,))]
                if proj_size > 0:
                    params += [(f"weight_hr_l{layer}{suffix}", (proj_size, hidden_size))]
                for name, shape in params:
                    setattr(self, name, Parameter(C.empty(shape, **kw)))
                names = [n for n, _ in params]
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    @property
    def _flat_weights(self):
        return [getattr(self, n, None) for n in self._flat_weights_names]

    @property
    def all_weights(self):
        return [[getattr(self, w) for w in ws] for ws in self._all_weights]

    def flatten_parameters(self) -> None:
        """A no-op off CUDA (as in torch)."""

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def check_input(self, input, batch_sizes) -> None:
        w0 = self._flat_weights[0]
        if input.dtype != w0.dtype:
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype "
                             f"({w0.dtype}). Convert input: input.to({w0.dtype}), or convert "
                             f"model: model.to({input.dtype})")
        expected = 2 if batch_sizes is not None else 3
        if input.dim() != expected:
            raise RuntimeError(f"input must have {expected} dimensions, got {input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {input.size(-1)}")

    def get_expected_hidden_size(self, input, batch_sizes):
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        num_directions = 2 if self.bidirectional else 1
        h = self.proj_size if self.proj_size > 0 else self.hidden_size
        return (self.num_layers * num_directions, mini_batch, h)

    def check_hidden_size(self, hx, expected_hidden_size,
                          msg: str = "Expected hidden size {}, got {}") -> None:
        if tuple(hx.size()) != tuple(expected_hidden_size):
            raise RuntimeError(msg.format(expected_hidden_size, list(hx.size())))

    def check_forward_args(self, input, hidden, batch_sizes) -> None:
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def permute_hidden(self, hx, permutation):
        if permutation is None:
            return hx
        return _apply_permutation(hx, permutation)

    def extra_repr(self) -> str:
        s = "{input_size}, {hidden_size}"
        if self.proj_size != 0:
            s += ", proj_size={proj_size}"
        if self.num_layers != 1:
            s += ", num_layers={num_layers}"
        if self.bias is not True:
            s += ", bias={bias}"
        if self.batch_first is not False:
            s += ", batch_first={batch_first}"
        if self.dropout != 0:
            s += ", dropout={dropout}"
        if self.bidirectional is not False:
            s += ", bidirectional={bidirectional}"
        return s.format(**self.__dict__)

    # -- the recurrence --------------------------------------------------------------------------
    def _layer_weights(self, layer, direction):
        sfx = "_reverse" if direction == 1 else ""
        get = lambda n: getattr(self, f"{n}_l{layer}{sfx}", None)  # noqa: E731
        return {"w_ih": get("weight_ih"), "w_hh": get("weight_hh"), "b_ih": get("bias_ih"),
                "b_hh": get("bias_hh"), "w_hr": get("weight_hr")}

    def _run(self, x, states, batch_sizes):
        """``x``: (T, B, F) time-major, or packed data (N, F) with ``batch_sizes``; ``states``:
        tuple of (layers*dirs, B, *) initial states. Returns (output, final states)."""
        num_dirs = 2 if self.bidirectional else 1
        finals = [[] for _ in states]
        if batch_sizes is not None:
            offsets = [0]
            for b in batch_sizes[:-1]:
                offsets.append(offsets[-1] + b)
        for layer in range(self.num_layers):
            if layer > 0 and self.dropout > 0 and self.training:
                x = F.dropout(x, self.dropout, True)
            dir_outs = []
            for d in range(num_dirs):
                w = self._layer_weights(layer, d)
                gi = F.linear(x, w["w_ih"], w["b_ih"])  # every step's input projection at once
                if batch_sizes is None:
                    gi_steps = list(gi.unbind(0))
                else:
                    gi_steps = [gi.narrow(0, o, b) for o, b in zip(offsets, batch_sizes)]
                k = layer * num_dirs + d
                init_state = tuple(s[k] for s in states)
                outs, last = _run_direction(self.mode, gi_steps, init_state, w, batch_sizes,
                                            reverse=d == 1)
                for f, s in zip(finals, last):
                    f.append(s)
                dir_outs.append(T.stack(outs) if batch_sizes is None else T.cat(outs))
            x = dir_outs[0] if num_dirs == 1 else T.cat(dir_outs, -1)
        return x, tuple(T.stack(f) for f in finals)


class RNN(RNNBase):
    """Elman RNN: ``h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)`` (``nonlinearity="relu"``:
    relu). ``forward(input, hx=None)`` -> (output, h_n)."""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' or "
                             "'relu'.")
        super().__init__(mode, *args, **kwargs)

    def forward(self, input, hx=None):
        return _forward_single_state(self, input, hx, "RNN")


class GRU(RNNBase):
    """Gated recurrent unit (torch's equations, gates r, z, n). ``forward(input, hx=None)`` ->
    (output, h_n)."""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input, hx=None):
        return _forward_single_state(self, input, hx, "GRU")


def _forward_single_state(self, input, hx, name):
    num_directions = 2 if self.bidirectional else 1
    orig_input = input
    if isinstance(orig_input, PackedSequence):
        input, batch_sizes, sorted_indices, unsorted_indices = input
        batch_sizes = [int(b) for b in batch_sizes.tolist()]
        max_batch_size = batch_sizes[0]
        if hx is None:
            hx = C.zeros(self.num_layers * num_directions, max_batch_size, self.hidden_size,
                         dtype=input.dtype, device=input.device)
        else:
            hx = self.permute_hidden(hx, sorted_indices)
    else:
        batch_sizes = None
        if input.dim() not in (2, 3):
            raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.dim()}D "
                             f"{'tensor ' if name == 'RNN' else ''}instead")
        is_batched = input.dim() == 3
        batch_dim = 0 if self.batch_first else 1
        if not is_batched:
            input = input.unsqueeze(batch_dim)
            if hx is not None:
                if hx.dim() != 2:
                    raise RuntimeError(f"For unbatched 2-D input, hx should also be 2-D but got "
                                       f"{hx.dim()}-D tensor")
                hx = hx.unsqueeze(1)
        elif hx is not None and hx.dim() != 3:
            raise RuntimeError(f"For batched 3-D input, hx should also be 3-D but got "
                               f"{hx.dim()}-D tensor")
        max_batch_size = input.size(0) if self.batch_first else input.size(1)
        sorted_indices = unsorted_indices = None
        if hx is None:
            hx = C.zeros(self.num_layers * num_directions, max_batch_size, self.hidden_size,
                         dtype=input.dtype, device=input.device)
    self.check_forward_args(input, hx, batch_sizes)
    x = input.transpose(0, 1) if (batch_sizes is None and self.batch_first) else input
    output, (hidden,) = self._run(x, (hx,), batch_sizes)
    if isinstance(orig_input, PackedSequence):
        packed = PackedSequence(output, orig_input.batch_sizes, sorted_indices,
                                unsorted_indices)
        return packed, self.permute_hidden(hidden, unsorted_indices)
    if self.batch_first:
        output = output.transpose(0, 1)
    if not is_batched:
        output = output.squeeze(batch_dim)
        hidden = hidden.squeeze(1)
    return output, self.permute_hidden(hidden, unsorted_indices)


class LSTM(RNNBase):
    """Long short-term memory (torch's equations, gates i, f, g, o; optional ``proj_size``).
    ``forward(input, hx=None)`` with ``hx = (h_0, c_0)`` -> (output, (h_n, c_n))."""

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)

    def get_expected_cell_size(self, input, batch_sizes):
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        num_directions = 2 if self.bidirectional else 1
        return (self.num_layers * num_directions, mini_batch, self.hidden_size)

    def check_forward_args(self, input, hidden, batch_sizes) -> None:
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden[0], self.get_expected_hidden_size(input, batch_sizes),
                               "Expected hidden[0] size {}, got {}")
        self.check_hidden_size(hidden[1], self.get_expected_cell_size(input, batch_sizes),
                               "Expected hidden[1] size {}, got {}")

    def permute_hidden(self, hx, permutation):
        if permutation is None:
            return hx
        return _apply_permutation(hx[0], permutation), _apply_permutation(hx[1], permutation)

    def forward(self, input, hx=None):
        orig_input = input
        batch_sizes = None
        num_directions = 2 if self.bidirectional else 1
        real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
        if isinstance(orig_input, PackedSequence):
            input, batch_sizes, sorted_indices, unsorted_indices = input
            batch_sizes = [int(b) for b in batch_sizes.tolist()]
            max_batch_size = batch_sizes[0]
            if hx is None:
                hx = (C.zeros(self.num_layers * num_directions, max_batch_size, real_hidden,
                              dtype=input.dtype, device=input.device),
                      C.zeros(self.num_layers * num_directions, max_batch_size,
                              self.hidden_size, dtype=input.dtype, device=input.device))
            else:
                hx = self.permute_hidden(hx, sorted_indices)
        else:
            if input.dim() not in (2, 3):
                raise ValueError(f"LSTM: Expected input to be 2D or 3D, got {input.dim()}D "
                                 "instead")
            is_batched = input.dim() == 3
            batch_dim = 0 if self.batch_first else 1
            if not is_batched:
                input = input.unsqueeze(batch_dim)
            max_batch_size = input.size(0) if self.batch_first else input.size(1)
            sorted_indices = unsorted_indices = None
            if hx is None:
                hx = (C.zeros(self.num_layers * num_directions, max_batch_size, real_hidden,
                              dtype=input.dtype, device=input.device),
                      C.zeros(self.num_layers * num_directions, max_batch_size,
                              self.hidden_size, dtype=input.dtype, device=input.device))
            else:
                if is_batched:
                    if hx[0].dim() != 3 or hx[1].dim() != 3:
                        raise RuntimeError("For batched 3-D input, hx and cx should also be 3-D "
                                           f"but got ({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")
                else:
                    if hx[0].dim() != 2 or hx[1].dim() != 2:
                        raise RuntimeError("For unbatched 2-D input, hx and cx should also be "
                                           f"2-D but got ({hx[0].dim()}-D, {hx[1].dim()}-D) "
                                           "tensors")
                    hx = (hx[0].unsqueeze(1), hx[1].unsqueeze(1))
        self.check_forward_args(input, hx, batch_sizes)
        x = input.transpose(0, 1) if (batch_sizes is None and self.batch_first) else input
        output, hidden = self._run(x, tuple(hx), batch_sizes)
        if isinstance(orig_input, PackedSequence):
            packed = PackedSequence(output, orig_input.batch_sizes, sorted_indices,
                                    unsorted_indices)
            return packed, self.permute_hidden(hidden, unsorted_indices)
        if self.batch_first:
            output = output.transpose(0, 1)
        if not is_batched:
            output = output.squeeze(batch_dim)
            hidden = (hidden[0].squeeze(1), hidden[1].squeeze(1))
        return output, self.permute_hidden(hidden, unsorted_indices)


# ----- cells --------------------------------------------------------------------------------------
class RNNCellBase(Module):
    """Parameters of the cells: ``weight_ih`` (G, input_size), ``weight_hh`` (G, hidden_size),
    ``bias_ih``, ``bias_hh`` (G). Init (torch's): all ~ U(-1/sqrt(H), 1/sqrt(H))."""

    __constants__ = ["input_size", "hidden_size", "bias"]

    def __init__(self, input_size: int, hidden_size: int, bias: bool, num_chunks: int,
                 device=None, dtype=None) -> None:
        kw = {"device": device, "dtype": dtype}
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(C.empty((num_chunks * hidden_size, input_size), **kw))
        self.weight_hh = Parameter(C.empty((num_chunks * hidden_size, hidden_size), **kw))
        if bias:
            self.bias_ih = Parameter(C.empty(num_chunks * hidden_size, **kw))
            self.bias_hh = Parameter(C.empty(num_chunks * hidden_size, **kw))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self) -> str:
        s = "{input_size}, {hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            s += ", bias={bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            s += ", nonlinearity={nonlinearity}"
        return s.format(**self.__dict__)

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _one_state(self, input, hx, name):
        """RNNCell's and GRUCell's argument rule: 1-D or 2-D input and state, an unbatched call
        seen as a batch of one, a zero state when none is given. Returns
        ``(input, hx, is_batched)``."""
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D "
                             "instead")
        if hx is not None and hx.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected hidden to be 1D or 2D, got {hx.dim()}D instead")
        is_batched = input.dim() == 2
        if not is_batched:
            input = input.unsqueeze(0)
        if hx is None:
            hx = C.zeros(input.size(0), self.hidden_size, dtype=input.dtype, device=input.device)
        elif not is_batched:
            hx = hx.unsqueeze(0)
        return input, hx, is_batched

    def _check(self, input, hx, i=0):
        """torch's cell checks (input size, batch and hidden sizes)."""
        if input.size(1) != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.size(1)} expected "
                               f"{self.input_size}")
        if input.size(0) != hx.size(0):
            raise RuntimeError(f"Input batch size {input.size(0)} doesn't match hidden{i} batch "
                               f"size {hx.size(0)}")
        if hx.size(1) != self.hidden_size:
            raise RuntimeError(f"hidden{i} has inconsistent hidden_size: got {hx.size(1)}, "
                               f"expected {self.hidden_size}")


class RNNCell(RNNCellBase):
    """One step of :class:`RNN`: ``forward(input, hx=None)`` -> h'."""

    __constants__ = ["input_size", "hidden_size", "bias", "nonlinearity"]

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 nonlinearity: str = "tanh", device=None, dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device,
                         dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        input, hx, is_batched = self._one_state(input, hx, "RNNCell")
        if self.nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        self._check(input, hx)
        gi = F.linear(input, self.weight_ih, self.bias_ih)
        (ret,) = _rnn_step(gi, hx, self.weight_hh, self.bias_hh, self.nonlinearity == "relu")
        return ret if is_batched else ret.squeeze(0)


class LSTMCell(RNNCellBase):
    """One step of :class:`LSTM`: ``forward(input, hx=None)`` with ``hx = (h, c)`` -> (h', c')."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None,
                 dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device,
                         dtype=dtype)

    def forward(self, input, hx=None):
        if input.dim() not in (1, 2):
            raise ValueError(f"LSTMCell: Expected input to be 1D or 2D, got {input.dim()}D "
                             "instead")
        if hx is not None:
            if not isinstance(hx, (tuple, list)):
                raise TypeError("lstm_cell(): argument 'hx' (position 2) must be tuple of "
                                f"Tensors, not {type(hx).__name__}")
            for idx, value in enumerate(hx):
                if value.dim() not in (1, 2):
                    raise ValueError(f"LSTMCell: Expected hx[{idx}] to be 1D or 2D, got "
                                     f"{value.dim()}D instead")
        is_batched = input.dim() == 2
        if not is_batched:
            input = input.unsqueeze(0)
        if hx is None:
            zeros = C.zeros(input.size(0), self.hidden_size, dtype=input.dtype, device=input.device)
            hx = (zeros, zeros)
        elif not is_batched:
            hx = (hx[0].unsqueeze(0), hx[1].unsqueeze(0))
        self._check(input, hx[0], 0)
        self._check(input, hx[1], 1)
        gi = F.linear(input, self.weight_ih, self.bias_ih)
        h, c = _lstm_step(gi, hx[0], hx[1], self.weight_hh, self.bias_hh, None)
        return (h, c) if is_batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    """One step of :class:`GRU`: ``forward(input, hx=None)`` -> h'."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None,
                 dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device,
                         dtype=dtype)

    def forward(self, input, hx=None):
        input, hx, is_batched = self._one_state(input, hx, "GRUCell")
        self._check(input, hx)
        gi = F.linear(input, self.weight_ih, self.bias_ih)
        (ret,) = _gru_step(gi, hx, self.weight_hh, self.bias_hh)
        return ret if is_batched else ret.squeeze(0)
