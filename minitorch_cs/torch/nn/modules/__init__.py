"""``torch.nn.modules``: the Module base class and every layer, container and loss."""

from .activation import (CELU, ELU, GELU, GLU, SELU, Hardsigmoid, Hardswish, Hardtanh, LeakyReLU,
                         LogSigmoid, LogSoftmax, Mish, ReLU, ReLU6, Sigmoid, SiLU, Softmax,
                         Softmin, Softplus, Softsign, Tanh, Tanhshrink, Threshold,
                         MultiheadAttention, Hardshrink, Softshrink, PReLU, RReLU)
from .container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d
from .distance import CosineSimilarity, PairwiseDistance
from .dropout import Dropout, Dropout1d, Dropout2d
from .flatten import Flatten, Unflatten
from .fold import Fold, Unfold
from .linear import Bilinear, Identity, Linear
from .loss import (BCELoss, BCEWithLogitsLoss, CosineEmbeddingLoss, CrossEntropyLoss,
                   GaussianNLLLoss, HingeEmbeddingLoss, HuberLoss, KLDivLoss, L1Loss,
                   MarginRankingLoss, MSELoss, MultiLabelMarginLoss, MultiLabelSoftMarginLoss,
                   MultiMarginLoss, NLLLoss, PoissonNLLLoss,
                   SmoothL1Loss, SoftMarginLoss, TripletMarginLoss,
                   TripletMarginWithDistanceLoss)
from .module import Module
from .normalization import (BatchNorm1d, BatchNorm2d, GroupNorm, InstanceNorm1d, InstanceNorm2d,
                            InstanceNorm3d, LayerNorm, LocalResponseNorm, RMSNorm)
from .padding import (CircularPad1d, CircularPad2d, ConstantPad1d, ConstantPad2d, ReflectionPad1d,
                      ReflectionPad2d, ReplicationPad1d, ReplicationPad2d, ZeroPad1d, ZeroPad2d)
from .pooling import (AdaptiveAvgPool1d, AdaptiveAvgPool2d, AdaptiveAvgPool3d, AdaptiveMaxPool1d,
                      AdaptiveMaxPool2d, AdaptiveMaxPool3d, AvgPool1d, AvgPool2d, AvgPool3d,
                      MaxPool1d, MaxPool2d, MaxPool3d)
from .pixelshuffle import PixelShuffle, PixelUnshuffle
from .rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell, RNNCellBase
from .sparse import Embedding, EmbeddingBag
from .transformer import (Transformer, TransformerDecoder, TransformerDecoderLayer,
                          TransformerEncoder, TransformerEncoderLayer)
from .upsampling import Upsample, UpsamplingBilinear2d, UpsamplingNearest2d

__all__ = [
    "Module", "Identity", "Linear", "Bilinear", "Conv1d", "Conv2d", "MaxPool1d", "MaxPool2d",
    "AvgPool1d", "AvgPool2d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveMaxPool1d",
    "AdaptiveMaxPool2d", "ReLU", "ReLU6",
    "LeakyReLU", "RReLU", "GELU", "SiLU", "Mish", "ELU", "SELU", "CELU", "Softplus", "Hardtanh",
    "Hardsigmoid", "Hardswish", "Sigmoid", "Tanh", "LogSigmoid", "Softsign", "Tanhshrink",
    "Threshold", "Hardshrink", "Softshrink", "PReLU", "Fold", "Unfold", "GLU", "Softmax", "Softmin", "LogSoftmax", "Dropout", "Dropout1d", "Dropout2d",
    "LayerNorm", "LocalResponseNorm", "GroupNorm", "BatchNorm1d", "BatchNorm2d", "InstanceNorm1d", "InstanceNorm2d",
    "InstanceNorm3d", "Embedding", "EmbeddingBag", "Flatten", "Unflatten",
    "Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict", "L1Loss", "MSELoss",
    "CrossEntropyLoss", "NLLLoss", "BCELoss", "BCEWithLogitsLoss", "KLDivLoss", "SmoothL1Loss",
    "HuberLoss", "PoissonNLLLoss", "GaussianNLLLoss", "HingeEmbeddingLoss", "MarginRankingLoss",
    "SoftMarginLoss", "CosineEmbeddingLoss", "TripletMarginLoss", "TripletMarginWithDistanceLoss",
    "MultiLabelSoftMarginLoss", "MultiLabelMarginLoss", "MultiMarginLoss",
    "PairwiseDistance", "CosineSimilarity", "ConstantPad1d", "ConstantPad2d", "ZeroPad1d",
    "ZeroPad2d", "ReflectionPad1d", "ReflectionPad2d", "ReplicationPad1d", "ReplicationPad2d",
    "CircularPad1d", "CircularPad2d",
    "MultiheadAttention", "ConvTranspose1d", "ConvTranspose2d", "RMSNorm", "PixelShuffle",
    "PixelUnshuffle", "Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d", "RNNBase", "RNN",
    "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell", "Transformer",
    "TransformerEncoder", "TransformerDecoder", "TransformerEncoderLayer",
    "TransformerDecoderLayer",
    "Conv3d", "MaxPool3d", "AvgPool3d", "AdaptiveAvgPool3d", "AdaptiveMaxPool3d",
]
