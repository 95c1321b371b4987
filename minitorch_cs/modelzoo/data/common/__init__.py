"""``cerebras.modelzoo.data.common``: ``restartable_dataloader.RestartableDataLoader``."""
