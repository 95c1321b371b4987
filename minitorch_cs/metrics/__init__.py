"""``cstorch.metrics``: streaming metrics whose state lives on the device."""
from .accuracy import AccuracyMetric
from .at_k import PrecisionAtKMetric, RecallAtKMetric
from .auc import AUCMetric
from .confusion import DiceCoefficientMetric, FBetaScoreMetric, MeanIOUMetric
from .mean import MeanMetric
from .metric import Metric, get_all_metrics
from .per_class import MeanPerClassAccuracyMetric
from .perplexity import PerplexityMetric

__all__ = ["Metric", "get_all_metrics", "AccuracyMetric", "AUCMetric", "DiceCoefficientMetric",
           "FBetaScoreMetric", "MeanMetric", "MeanIOUMetric", "MeanPerClassAccuracyMetric",
           "PerplexityMetric", "PrecisionAtKMetric", "RecallAtKMetric"]
