"""``cstorch.utils.data``: the factory DataLoader, DataExecutor, schedules and step counting."""
from .data_executor import DataExecutor, RunContext, current_executor
from .dataloader import DataLoader, RestartableDataLoader
from .utils import Schedule, compute_num_steps, infer_batch_size

__all__ = ["DataLoader", "RestartableDataLoader", "DataExecutor", "RunContext", "current_executor",
           "Schedule", "compute_num_steps", "infer_batch_size", "SyntheticDataset",
           "DistributedSampler"]


def __getattr__(name):
    # These need minitorch_cs.torch.utils.data, imported on first use.
    if name == "SyntheticDataset":
        from .dataset import SyntheticDataset
        return SyntheticDataset
    if name == "DistributedSampler":
        from .sampler import DistributedSampler  # cstorch's own sampler, not torch's
        return DistributedSampler
    raise AttributeError(name)
