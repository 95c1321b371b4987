"""Trainer callbacks (mirrors ``cerebras.modelzoo.trainer.callbacks``)."""
from .callback import (GLOBAL_CALLBACK_REGISTRY, Callback, CoreCallback, ValidationCallback,
                       register_global_callback)
from .loop import LoopCallback, TrainingLoop, ValidationLoop
from .run_schedule import RunSchedule
from .artifact_dir import ArtifactDirCallback
from .backend import BackendCallback
from .checkpoint import Checkpoint, CheckpointIndex, KeepNCheckpoints, LoadCheckpointStates
from .dataloader import DataLoaderCallback
from .early_exit import EarlyExit
from .flags import GlobalFlags, ScopedTrainFlags, ScopedValidateFlags
from .grad_accum import GradientAccumulationCallback
from .logging import Logging
from .loss import CheckLoss, LossAccumulationCallback
from .metadata import ModelZooParamsMetadata
from .metrics import ModelEvalMetrics
from .model import ModelCallback
from .model_stats import CountParams
from .norm import ComputeNorm
from .optimizer import LogOptimizerParamGroup, OptimizerCallback
from .plot import MetricsHistory
from .precision import MixedPrecision, Precision
from .profiler import DurationProfiler, Profiler, RateProfiler, RateTracker
from .reproducibility import Reproducibility
from .schedulers import SchedulersCallback
from .sparsity import AutoRestart, SparsityCallback

__all__ = ["Callback", "CoreCallback", "ValidationCallback", "GLOBAL_CALLBACK_REGISTRY",
           "register_global_callback", "LoopCallback", "TrainingLoop", "ValidationLoop",
           "RunSchedule", "ArtifactDirCallback", "BackendCallback", "Checkpoint",
           "CheckpointIndex", "KeepNCheckpoints", "LoadCheckpointStates", "DataLoaderCallback",
           "EarlyExit", "GlobalFlags", "ScopedTrainFlags", "ScopedValidateFlags",
           "GradientAccumulationCallback", "Logging", "CheckLoss", "LossAccumulationCallback",
           "ModelEvalMetrics", "ModelZooParamsMetadata", "ModelCallback", "CountParams",
           "ComputeNorm", "LogOptimizerParamGroup", "OptimizerCallback", "MetricsHistory",
           "MixedPrecision", "Precision", "DurationProfiler", "Profiler", "RateProfiler",
           "RateTracker", "Reproducibility", "SchedulersCallback", "AutoRestart",
           "SparsityCallback"]
