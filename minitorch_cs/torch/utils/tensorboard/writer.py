"""``SummaryWriter`` with torch's signature on top of ``tensorboardX`` (real event files).

tensorboardX accepts torch tensors by importing torch; ours are converted to numpy before they
reach it, and its optional ``import torch`` is blocked while it is first imported, so writing
summaries never loads PyTorch.

Differs from torch (SPEC "tensorboard"): ``add_graph`` raises ``NotImplementedError`` (it needs
``torch.jit``); ``add_scalar``'s ``new_style``/``double_precision`` are accepted and ignored (the
value is written as a ``simple_value``, the classic scalar TensorBoard reads).
"""
from __future__ import annotations

import itertools
import os
import socket
import sys
import time
from datetime import datetime

import numpy as np

from ..._tensor import Tensor

__all__ = ["SummaryWriter", "import_tensorboardx"]


def import_tensorboardx():
    """Import ``tensorboardX`` without letting it import torch (it does so only optionally)."""
    if "tensorboardX" in sys.modules:
        return sys.modules["tensorboardX"]
    blocked = "torch" not in sys.modules
    if blocked:
        sys.modules["torch"] = None  # makes ``import torch`` raise ImportError, which it catches
    try:
        import tensorboardX
    except ImportError as e:
        raise ImportError("SummaryWriter needs the 'tensorboardX' package: pip install "
                          f"tensorboardX ({e})") from e
    finally:
        if blocked and sys.modules.get("torch", 0) is None:
            del sys.modules["torch"]
    return tensorboardX


_tbx = import_tensorboardx()


def _np(value):
    """Our tensors (nested in lists/tuples/dicts too) as numpy arrays; everything else as is."""
    if isinstance(value, Tensor):
        t = value.detach()
        if t.dtype.is_floating_point and t.dtype.itemsize < 4:
            t = t.float()  # bfloat16/float16: numpy-friendly for histograms and images
        return np.asarray(t.numpy())
    if isinstance(value, dict):
        return {k: _np(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)) and any(isinstance(v, Tensor) for v in value):
        return type(value)(_np(v) for v in value)
    return value


def _step(step):
    return int(step.item()) if isinstance(step, Tensor) else step


_uid = itertools.count()


def _unique_suffix(suffix: str) -> str:
    return f".{os.getpid()}.{next(_uid)}{suffix}"


_TF_DTYPES = {"float32": 1, "float64": 2, "int32": 3, "uint8": 4, "int16": 5, "int8": 6,
              "int64": 9, "bool": 10, "float16": 19}


class SummaryWriter(_tbx.SummaryWriter):
    """Write scalars, histograms, images, text, ... as TensorBoard event files in ``log_dir``.

    Args:
        log_dir: Directory of the event file; default ``runs/<Mon01_12-00-00>_<host><comment>``.
        comment: Suffix of the default ``log_dir``.
        purge_step: Events at or after this step in earlier files are hidden by TensorBoard.
        max_queue: Pending events before a write forces a flush.
        flush_secs: Seconds between automatic flushes.
        filename_suffix: Suffix of the event file name.
    """

    def __init__(self, log_dir=None, comment="", purge_step=None, max_queue=10, flush_secs=120,
                 filename_suffix=""):
        if not log_dir:
            log_dir = os.path.join("runs", datetime.now().strftime("%b%d_%H-%M-%S") + "_"
                                   + socket.gethostname() + comment)
        self.log_dir = str(log_dir)
        self._user_suffix = filename_suffix
        # torch names event files ``events.out.tfevents.<time>.<host>.<pid>.<n><suffix>``; the pid
        # and a process-wide counter keep two writers started in the same second apart
        # (tensorboardX alone would give them one name, and the second would truncate the first).
        super().__init__(logdir=self.log_dir, purge_step=purge_step, max_queue=max_queue,
                         flush_secs=flush_secs, filename_suffix=_unique_suffix(filename_suffix))

    def get_logdir(self) -> str:
        return self.log_dir

    def add_scalar(self, tag, scalar_value, global_step=None, walltime=None, new_style=False,
                   double_precision=False):
        super().add_scalar(tag, _np(scalar_value), _step(global_step), walltime)

    def add_scalars(self, main_tag, tag_scalar_dict, global_step=None, walltime=None):
        """One run per key, in ``<log_dir>/<main_tag>_<key>`` as torch names them
        (tensorboardX would use ``<log_dir>/<main_tag>/<key>``)."""
        walltime = time.time() if walltime is None else walltime
        fw_logdir = self._get_file_writer().get_logdir()
        for tag, value in tag_scalar_dict.items():
            fw_tag = fw_logdir + "/" + main_tag.replace("/", "_") + "_" + tag
            fw = self.all_writers.get(fw_tag)
            if fw is None:
                fw = self.all_writers[fw_tag] = _tbx.writer.FileWriter(
                    fw_tag, self._max_queue, self._flush_secs,
                    _unique_suffix(self._user_suffix))
            fw.add_summary(_tbx.summary.scalar(main_tag, _np(value)), _step(global_step),
                           walltime)

    def add_histogram(self, tag, values, global_step=None, bins="tensorflow", walltime=None,
                      max_bins=None):
        super().add_histogram(tag, _np(values), _step(global_step), bins, walltime, max_bins)

    def add_image(self, tag, img_tensor, global_step=None, walltime=None, dataformats="CHW"):
        super().add_image(tag, _np(img_tensor), _step(global_step), walltime, dataformats)

    def add_images(self, tag, img_tensor, global_step=None, walltime=None, dataformats="NCHW"):
        super().add_images(tag, _np(img_tensor), _step(global_step), walltime, dataformats)

    def add_text(self, tag, text_string, global_step=None, walltime=None):
        super().add_text(tag, text_string, _step(global_step), walltime)

    def add_pr_curve(self, tag, labels, predictions, global_step=None, num_thresholds=127,
                     weights=None, walltime=None):
        super().add_pr_curve(tag, _np(labels), _np(predictions), _step(global_step),
                             num_thresholds, _np(weights), walltime)

    def add_embedding(self, mat, metadata=None, label_img=None, global_step=None, tag="default",
                      metadata_header=None):
        super().add_embedding(_np(mat), metadata, _np(label_img), _step(global_step), tag,
                              metadata_header)

    def add_hparams(self, hparam_dict, metric_dict, hparam_domain_discrete=None, run_name=None,
                    global_step=None):
        metric_dict = {k: (float(v) if isinstance(v, Tensor) else v)
                       for k, v in metric_dict.items()}
        super().add_hparams(hparam_dict, metric_dict, hparam_domain_discrete, run_name,
                            _step(global_step))

    def add_tensor(self, tag, tensor, global_step=None, walltime=None):
        """A tensor summary (TensorProto with raw ``tensor_content``, plugin ``"tensor"``)."""
        from tensorboardX.proto.summary_pb2 import Summary, SummaryMetadata
        from tensorboardX.proto.tensor_pb2 import TensorProto
        from tensorboardX.proto.tensor_shape_pb2 import TensorShapeProto
        arr = np.ascontiguousarray(_np(tensor))
        if arr.dtype.name not in _TF_DTYPES:
            raise TypeError(f"add_tensor: unsupported dtype {arr.dtype}")
        proto = TensorProto(dtype=_TF_DTYPES[arr.dtype.name],
                            tensor_shape=TensorShapeProto(
                                dim=[TensorShapeProto.Dim(size=d) for d in arr.shape]),
                            tensor_content=arr.astype(arr.dtype.newbyteorder("<")).tobytes())
        meta = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="tensor"))
        summary = Summary(value=[Summary.Value(tag=tag, metadata=meta, tensor=proto)])
        self._get_file_writer().add_summary(summary, _step(global_step), walltime)

    def add_graph(self, model, input_to_model=None, verbose=False, use_strict_trace=True):
        raise NotImplementedError("SummaryWriter.add_graph needs torch.jit to trace the model; "
                                  "it is not available in minitorch_cs")
