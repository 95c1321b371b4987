"""``cerebras.modelzoo.data.common.restartable_dataloader`` (Model Zoo 2.10).

:class:`RestartableDataLoader` is a torch ``DataLoader`` over a map-style dataset whose batches
come from a ``cstorch.utils.data.DistributedSampler`` (the ``batch_sampler``); it implements the
cstorch restartable-loader protocol, so a cstorch DataLoader can save and restore its position:
the state is the number of samples streamed (``samples_streamed``, from
``cstorch.distributed.get_worker_state()`` at the checkpoint step, plus what earlier portions of
the run streamed), ``__version__: 1``, and the dataset's own ``state_dict()`` when it has one.
Loading hands ``samples_streamed`` to the sampler (``set_state``), which resumes from there.

Differs: a version-0 state (written by older Model Zoo releases) is checked against the
dataset's ``shuffle_seed`` only when the dataset has ``shuffle`` set (Model Zoo also checks its
HDF5 ``Mixture`` readers, which minitorch_cs does not provide).
"""
from __future__ import annotations

import logging

import minitorch_cs as cstorch
import minitorch_cs.torch as torch
from minitorch_cs.distributed import get_worker_state
from minitorch_cs.torch.utils.data import Dataset, IterableDataset

__all__ = ["RestartableDataLoader"]


class RestartableDataLoader(torch.utils.data.DataLoader):
    """A restartable DataLoader of a map-style dataset (see the module docstring).

    Raises:
        ValueError: ``dataset`` is not a map-style ``Dataset``, or the batch sampler is not a
            ``cstorch.utils.data.DistributedSampler``.
    """

    __version__ = 1

    def __init__(self, dataset, *args, **kwargs):
        if not isinstance(dataset, Dataset):
            raise ValueError(f'"{type(self)}" expects a "{Dataset}", but got {type(dataset)}.')
        if isinstance(dataset, IterableDataset):
            raise ValueError(f'"{type(self)}" expects "{type(dataset)}" to be a map style '
                             f"dataset, but got {IterableDataset}!.")
        super().__init__(dataset, *args, **kwargs)
        if not isinstance(self.batch_sampler, cstorch.utils.data.DistributedSampler):
            raise ValueError(f'"{type(self)}" expects a "{cstorch.utils.data.DistributedSampler}" '
                             f"batch_sampler, but got {type(self.batch_sampler)}.")
        self._previous_samples_streamed = 0

    def state_dict(self):
        """This worker's state at the checkpoint step."""
        worker_state = get_worker_state()
        return {"samples_streamed": worker_state.samples_streamed,
                "previous_samples_streamed": self._previous_samples_streamed}

    def load_state_dict(self, state_dict, strict: bool = True):
        """Resume from ``state_dict`` (as :meth:`aggregate_state_dict` made it).

        Raises:
            ValueError: not a dict, an unknown version, or a shuffle seed that differs.
            KeyError: with ``strict``, a missing key.
        """
        if not isinstance(state_dict, dict):
            raise ValueError(f'"state_dict" must be a dict, but got "{type(state_dict)}".')

        def missing(key):
            raise KeyError(f'Dataloader state_dict is missing key "{key}"')

        version = state_dict.get("__version__", 0)
        if version == 0:
            if "seed" in state_dict:
                if getattr(self.dataset, "shuffle", False) and (
                        state_dict["seed"] != getattr(self.dataset, "shuffle_seed", None)):
                    raise ValueError(
                        f"shuffle seed {getattr(self.dataset, 'shuffle_seed', None)} doesn't "
                        "match the seed used for the previous portion of the run "
                        f"{state_dict['seed']}")
            elif strict:
                missing("seed")
        elif version == 1:
            load = getattr(self.dataset, "load_state_dict", None)
            if load is not None:
                if "dataset" in state_dict:
                    load(state_dict["dataset"], strict=strict)
                elif strict:
                    missing("dataset")
            else:
                self._show_state_dict_warning()
        else:
            raise ValueError(f"Invalid state_dict version: {version}. Known versions are 0 "
                             "(None) and 1.")
        if "samples_streamed" in state_dict:
            self._previous_samples_streamed = state_dict["samples_streamed"]
            self.batch_sampler.set_state(state_dict["samples_streamed"])
        elif strict:
            missing("samples_streamed")

    def aggregate_state_dict(self, worker_states):
        """One state for the checkpoint: the samples streamed by every worker, plus before."""
        state = {"samples_streamed": worker_states[0]["previous_samples_streamed"]
                 + sum(sd["samples_streamed"] for sd in worker_states),
                 "__version__": self.__version__}
        dataset_state = getattr(self.dataset, "state_dict", lambda: None)()
        if dataset_state is not None:
            state["dataset"] = dataset_state
        else:
            self._show_state_dict_warning()
        return state

    def deaggregate_state_dict(self, aggregated_state_dict, strict: bool = True):
        return aggregated_state_dict

    def _show_state_dict_warning(self):
        logging.warning(
            "Dataset does not have the `state_dict()` method implemented.\n\n"
            "If the internal state of the dataset has changed between now and when training "
            "resumes you will not be notified! (e.g. if you change the dataset path or if the "
            "dataset is not deterministic)")
