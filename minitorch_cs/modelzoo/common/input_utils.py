"""``cerebras.modelzoo.common.input_utils`` (Model Zoo 2.10): batching helpers for input
pipelines."""
from __future__ import annotations

import logging
import random
import warnings

import numpy as np

import minitorch_cs as cstorch
import minitorch_cs.distributed as dist
from minitorch_cs.torch.utils.data._utils.collate import default_collate

__all__ = ["bucketed_batch", "get_streaming_batch_size",
           "validate_streaming_and_micro_batch_size"]


def bucketed_batch(data_iterator, batch_size, buckets=None, element_length_fn=None,
                   collate_fn=None, drop_last=False, seed=None):
    """Batch samples from ``data_iterator`` so that samples of similar length share a batch.

    Without ``buckets`` this batches in order (the last short batch kept unless ``drop_last``).
    With a sorted list of positive int boundaries, a sample goes to bucket ``i`` when
    ``buckets[i-1] <= element_length_fn(sample) < buckets[i]`` (0 and infinity implied); a
    bucket is collated and yielded as soon as it holds ``batch_size`` samples. At the end,
    unless ``drop_last``, the leftovers of every bucket are shuffled together with
    ``random.Random(seed)`` and batched.

    Raises:
        ValueError: ``batch_size < 1``, unsorted/non-positive/non-int boundaries, bucketing
            without ``element_length_fn``, or ``buckets`` neither None nor a list.
    """
    if batch_size < 1:
        raise ValueError(f"Batch size must be at least 1. Got {batch_size}.")
    collate_fn = collate_fn or default_collate
    rng = random.Random(seed)

    def in_order(samples, keep_last):
        batch = []
        for s in samples:
            batch.append(s)
            if len(batch) == batch_size:
                yield collate_fn(batch)
                batch = []
        if keep_last and batch:
            yield collate_fn(batch)

    if buckets is None:
        yield from in_order(data_iterator, not drop_last)
        return
    if not isinstance(buckets, list):
        raise ValueError(f"buckets must be None or a list of boundaries. Got {buckets}.")
    if sorted(buckets) != buckets:
        raise ValueError(f"Bucket boundaries must be sorted. Got {buckets}.")
    if buckets[0] <= 0:
        raise ValueError(f"Bucket boundaries must be greater than zero. Got {buckets}.")
    if not isinstance(buckets[0], int):
        raise ValueError(f"Elements of `buckets` must be integers. Got {type(buckets[0])}.")
    if element_length_fn is None:
        raise ValueError("You must supply a length function when using bucketing.")
    contents = [[] for _ in range(len(buckets) + 1)]
    for sample in data_iterator:
        i = int(np.searchsorted(buckets, element_length_fn(sample), side="right"))
        contents[i].append(sample)
        if len(contents[i]) == batch_size:
            yield collate_fn(contents[i])
            contents[i] = []
    if not drop_last:
        rest = [s for bucket in contents for s in bucket]
        rng.shuffle(rest)
        yield from in_order(rest, True)


def get_streaming_batch_size(effective_batch_size: int, global_rank=None) -> int:
    """The batch size this task streams; on the user node (every task here) the effective batch
    size itself. Logs the sizes at INFO level.

    Raises:
        TypeError: ``effective_batch_size`` is not an int.
        ValueError: it is not positive.
    """
    size = dist.get_streaming_batch_size(effective_batch_size, global_rank=global_rank)
    msg = f"Effective batch size is {effective_batch_size}."
    if cstorch.use_cs() and dist.is_streamer():
        msg += f" Using batch size {size} for streaming."
    logging.info(msg)
    return size


def validate_streaming_and_micro_batch_size(batch_size: int, micro_batch_size,
                                            num_csx: int) -> None:
    """Check a global batch size against ``num_csx`` and a micro batch size setting.

    Warns (UserWarning) that ``"auto"`` searches micro batch sizes at compile time.

    Raises:
        ValueError: ``batch_size < num_csx``; a micro batch size that is not "auto", "explore",
            ``{"explore": {"min"/"max": ...}}``, None or an int in ``[1, batch_size]``.
    """
    if batch_size < num_csx:
        raise ValueError(f"Expected batch_size ({batch_size}) to be greater than or equal to "
                         f"num_csx ({num_csx}).")
    if micro_batch_size == "auto":
        warnings.warn(
            "Gradient accumulation will search for a well-performing micro batch size based on "
            "internal performance models, which can lead to an increased compile time. Also, "
            f"this search is limited to dividers of model global batch size {batch_size}.\n"
            "You can specify your own micro batch size to reduce compile time or have our "
            "`Automatic Batch Exploration` tool do a thorough exploration for a more optimal "
            "micro batch size by doing the following in your `config.yaml` file:\n"
            "1. Set the `micro_batch_size` option to your the desired value, if a preferred "
            "micro batch size is already known.\n"
            "2. Set the `micro_batch_size` option to `explore`. This will perform a longer, "
            "broad search for an optimal micro batch size to maximize the performance of your "
            "run, regardless of current global batch size.\n"
            "You can find more information on the `Automatic Batch Exploration` page on the "
            "Cerebras documentation site.")
    if micro_batch_size in ("explore", "auto", None):
        return
    if (isinstance(micro_batch_size, dict) and isinstance(micro_batch_size.get("explore"), dict)
            and not set(micro_batch_size["explore"]) - {"min", "max"}):
        return
    if not isinstance(micro_batch_size, int):
        raise ValueError(
            f'Invalid value "{micro_batch_size}" for "micro_batch_size". Expected one of:'
            '\n\t"auto": Automatically choose an optimal micro batch size.'
            '\n\t"explore": Search for an optimal micro batch size and return.'
            '\n\t{"explore": {"min": Optional[<positive_int>], "max": Optional[<positive_int>]}}:'
            ' Search for an optimal micro batch size within the min and max bounds and return.'
            "\n\t<positive_int>: Use this micro batch size."
            "\n\tNone: Disable micro batch tiling.")
    if micro_batch_size < 1 or micro_batch_size > batch_size:
        raise ValueError(f"Expected micro_batch_size ({micro_batch_size}) to be a positive"
                         f"integer less than or equal to the batch_size ({batch_size}).")
