"""``cstorch.metrics``: streaming metrics whose state lives on the device."""
from .accuracy import AccuracyMetric
from .mean import MeanMetric
from .metric import Metric, get_all_metrics
from .perplexity import PerplexityMetric

__all__ = ["Metric", "get_all_metrics", "AccuracyMetric", "MeanMetric", "PerplexityMetric"]
