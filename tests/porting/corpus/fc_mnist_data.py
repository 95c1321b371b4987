"""MNIST data processors in the style of Model Zoo's fc_mnist (``models/vision/fc_mnist/data.py``),
with a driver that streams them through cstorch executors and resumes a restartable loader from
a checkpoint."""
import argparse
import json
import os
from typing import Literal, Optional

import torch
from pydantic import Field, model_validator
from torchvision import datasets, transforms

import cerebras.pytorch as cstorch
import cerebras.pytorch.distributed as dist
from cerebras.modelzoo.common.input_utils import get_streaming_batch_size
from cerebras.modelzoo.common.pytorch_utils import SampleGenerator
from cerebras.modelzoo.config import DataConfig


class MNISTDataProcessorConfig(DataConfig):
    data_processor: Literal["MNISTDataProcessor"]
    split: Optional[Literal["train", "val"]] = None
    batch_size: int = ...
    shuffle: bool = True
    drop_last: bool = Field(True, validation_alias="drop_last_batch")
    num_workers: int = 0
    use_fake_data: bool = False
    fake_data_seed: Optional[int] = None
    data_dir: str = "./"

    @model_validator(mode="after")
    def validate_train(self):
        if self.split is None and not self.use_fake_data:
            raise ValueError("split must be provided when use_fake_data is False")
        return self


class MNISTDataProcessor:
    def __init__(self, config: MNISTDataProcessorConfig):
        if isinstance(config, dict):
            config = MNISTDataProcessorConfig(**config)
        self.config = config
        self.batch_size = get_streaming_batch_size(config.batch_size)
        self.shuffle = config.shuffle
        self.dtype = cstorch.amp.get_floating_point_dtype()

    def create_dataloader(self):
        label_dtype = torch.int32 if cstorch.use_cs() else torch.int64
        if self.config.use_fake_data:
            num_streamers = dist.num_streamers() if dist.is_streamer() else 1
            torch.manual_seed(self.config.fake_data_seed or 0)
            data = (torch.rand(self.batch_size, 1, 28, 28, dtype=self.dtype),
                    torch.randint(0, 10, size=(self.batch_size,), dtype=label_dtype))
            return SampleGenerator(data=data,
                                   sample_count=60000 // self.batch_size // num_streamers)
        dataset = datasets.MNIST(
            self.config.data_dir,
            train=(self.config.split == "train"),
            download=dist.is_master_ordinal(),
            transform=transforms.Compose([
                transforms.ToTensor(),
                transforms.Normalize((0.1307,), (0.3081,)),
                transforms.Lambda(lambda x: torch.as_tensor(x, dtype=self.dtype)),
            ]),
            target_transform=transforms.Lambda(lambda x: torch.as_tensor(x, dtype=label_dtype)),
        )
        sampler = None
        if cstorch.use_cs() and dist.num_streamers() > 1 and dist.is_streamer():
            sampler = torch.utils.data.distributed.DistributedSampler(
                dataset, num_replicas=dist.num_streamers(), rank=dist.get_streaming_rank(),
                shuffle=self.shuffle)
        return torch.utils.data.DataLoader(
            dataset, batch_size=self.batch_size, sampler=sampler,
            drop_last=self.config.drop_last, shuffle=False if sampler else self.shuffle,
            num_workers=self.config.num_workers)


class MNISTMapDataProcessorConfig(MNISTDataProcessorConfig):
    data_processor: Literal["MNISTMapDataProcessor"]
    nan_index: Optional[int] = None


class MnistMapFakeDataset(torch.utils.data.Dataset):
    def __init__(self, batch_size, sample_count, input_dtype, shuffle=True, nan_sample_index=None):
        self.sample_count = sample_count
        self.sampler = cstorch.utils.data.DistributedSampler(
            self, batch_size=batch_size, shuffle=shuffle, seed=0 if shuffle else None)
        self.input_dtype = input_dtype
        self.target_dtype = torch.int32 if cstorch.use_cs() else torch.int64
        self.nan_sample_index = nan_sample_index

    def __len__(self):
        return self.sample_count

    def __getitem__(self, idx):
        value = torch.nan if idx == self.nan_sample_index else float(idx)
        return [torch.full((1, 28, 28), value, dtype=self.input_dtype),
                torch.tensor(idx % 10, dtype=self.target_dtype)]


class MNISTMapDataProcessor:
    def __init__(self, config: MNISTMapDataProcessorConfig):
        if isinstance(config, dict):
            config = MNISTMapDataProcessorConfig(**config)
        self.config = config
        self.batch_size = get_streaming_batch_size(config.batch_size)
        self.dtype = cstorch.amp.get_floating_point_dtype()

    def create_dataloader(self):
        from cerebras.modelzoo.data.common.restartable_dataloader import RestartableDataLoader
        ds = MnistMapFakeDataset(self.batch_size, 100, self.dtype, self.config.shuffle,
                                 self.config.nan_index)
        return RestartableDataLoader(ds, batch_sampler=ds.sampler)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data_dir", required=True)
    parser.add_argument("--model_dir", required=True)
    parser.add_argument("--backend", default="CPU")
    args = parser.parse_args()
    os.makedirs(args.model_dir, exist_ok=True)
    backend = cstorch.backend(args.backend, artifact_dir=os.path.join(args.model_dir, "logs"))
    out = {}

    fake = MNISTDataProcessor({"data_processor": "MNISTDataProcessor", "batch_size": 8,
                               "use_fake_data": True, "fake_data_seed": 1})
    shapes = []
    for inputs, labels in cstorch.utils.data.DataExecutor(
            cstorch.utils.data.DataLoader(fake.create_dataloader), num_steps=2):
        shapes.append([list(inputs.shape), str(inputs.dtype), str(labels.dtype)])
    out["fake"] = {"len": len(fake.create_dataloader()), "batches": shapes}

    real = MNISTDataProcessor({"data_processor": "MNISTDataProcessor", "batch_size": 10,
                               "split": "val", "shuffle": False, "data_dir": args.data_dir,
                               "num_workers": 2})
    labels_seen = []
    for _, labels in cstorch.utils.data.DataExecutor(
            cstorch.utils.data.DataLoader(real.create_dataloader)):
        labels_seen.extend(int(v) for v in labels.tolist())
    out["val_labels"] = labels_seen

    config = {"data_processor": "MNISTMapDataProcessor", "batch_size": 10, "split": "train"}
    loader = cstorch.utils.data.DataLoader(MNISTMapDataProcessor(config).create_dataloader)
    saved = []

    @cstorch.checkpoint_closure
    def save(step):
        path = os.path.join(args.model_dir, f"dataloader_{step}.mdl")
        cstorch.save({"dataloader": loader.state_dict()}, path)
        saved.append(path)

    first = []
    executor = cstorch.utils.data.DataExecutor(loader, num_steps=4, checkpoint_steps=3)
    for step, (inputs, _) in enumerate(executor, start=1):
        first.append(inputs[:, 0, 0, 0].tolist())
        save(step)

    resumed = cstorch.utils.data.DataLoader(MNISTMapDataProcessor(config).create_dataloader)
    resumed.load_state_dict(cstorch.load(saved[0])["dataloader"])
    after = [inputs[:, 0, 0, 0].tolist() for inputs, _ in
             cstorch.utils.data.DataExecutor(resumed, num_steps=2)]
    out["map"] = {"first": first, "checkpoints": [os.path.basename(p) for p in saved],
                  "resumed": after}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
