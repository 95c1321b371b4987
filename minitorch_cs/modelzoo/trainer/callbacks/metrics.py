"""``ModelEvalMetrics``: logs every ``cstorch.metrics.Metric`` of the model after validation."""
from __future__ import annotations

from minitorch_cs.metrics import Metric

from .callback import Callback

__all__ = ["ModelEvalMetrics"]


class ModelEvalMetrics(Callback):
    def on_validate_end(self, trainer, model, loop):
        if not trainer.backend.is_e2e_execution:
            return
        metrics = {}
        for m in model.modules():
            if isinstance(m, Metric):
                if m.num_updates == 0:
                    trainer.logger.warning(f"Skipping logging unused metric `{m.name}` To remove "
                                           f"this warning, either remove it from the model or "
                                           f"step the metric every step.")
                else:
                    metrics[m.name] = float(m)
                    m.reset()
        if metrics:
            trainer.logger.info("Evaluation metrics:")
            for name, value in metrics.items():
                trainer.logger.info(f"  - {name} = {value}")
            trainer.log_metrics(**metrics)
