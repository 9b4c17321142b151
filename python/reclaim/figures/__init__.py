"""Figures as papers draw them: the model's prediction for a plotted configuration
(:mod:`reclaim.figures.prediction`), used by the report's sweep figures and the reproductions'.

The style (names, colours, sizes, files) is :mod:`reclaim.style`.
"""

from reclaim.figures.prediction import Prediction, predict

__all__ = ["Prediction", "predict"]
