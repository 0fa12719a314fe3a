"""The toy in the comparison: a utility that shows which shared parameter and preprocessing arrived."""

import pandas as pd

from dp_core.compare.registry import BlockAdapter, MethodInfo, register


class ToyAdapter(BlockAdapter):
    key = "toy_mean"
    title = "Toy mean"
    tasks = ("regression", "binary", "multiclass")
    methods = (MethodInfo("toy_mean", "toy", "proved", "Laplace on a clipped mean", pure=True),)

    def prepare(self, ds, spec):
        return ds

    def block(self, state, point, seeds, spec):
        util = spec.span / 100 + (0.3 if spec.preprocess == "minmax" else 0.0)
        return pd.DataFrame({"method": "toy_mean", "trial": range(len(seeds)), "utility": util, "excess_risk": 0.0})


ADAPTER = register(ToyAdapter())
