"""``fc_mnist``: a fully connected MNIST classifier and its data processor (Model Zoo's
``models/vision/fc_mnist``)."""
from ....registry import registry
from .data import MNISTDataProcessor, MNISTDataProcessorConfig
from .model import MNIST, MNISTModel, MNISTModelConfig

registry.register_model("fc_mnist", MNISTModel, MNISTModelConfig,
                        data_processors=[(MNISTDataProcessor, MNISTDataProcessorConfig)])

__all__ = ["MNIST", "MNISTModel", "MNISTModelConfig", "MNISTDataProcessor",
           "MNISTDataProcessorConfig"]
