"""``gpt2``: a GPT-2 language model and a data processor over ``uint16`` token files (Model Zoo's
``models/nlp/gpt2``, for the configuration fields listed in ``GPT2ModelConfig``)."""
from ....registry import registry
from .data import GptTokenFileDataProcessor, GptTokenFileDataProcessorConfig
from .model import Gpt2Model, GPT2LMHeadModel, GPT2ModelConfig

registry.register_model("gpt2", Gpt2Model, GPT2ModelConfig,
                        data_processors=[(GptTokenFileDataProcessor,
                                          GptTokenFileDataProcessorConfig)])

__all__ = ["Gpt2Model", "GPT2LMHeadModel", "GPT2ModelConfig", "GptTokenFileDataProcessor",
           "GptTokenFileDataProcessorConfig"]
