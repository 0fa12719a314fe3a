"""Label RR in the comparison, the label-DP baseline beside the label-DP bags (Ghazi et al. 2021; 2023)."""

import numpy as np
import pandas as pd

from ... import status as vocab
from ...compare.registry import BlockAdapter, MethodInfo, register
from ...fit_checks import FitState as RRState
from .fit import nonprivate_metrics, prepare_rr_data, trial_metrics


class LabelRRAdapter(BlockAdapter):
    key = "label_rr"
    title = "Label randomized response (Ghazi et al.)"
    page = "pages/label_rr.py"
    tasks = ("regression", "binary", "multiclass")
    trial_cap = 1000
    summary = "Each training label randomized once (pure ε-label-DP), then a non-private fit on those labels."
    methods = (
        MethodInfo(
            "label_rr",
            "Label RR (RR-on-bins / RR-with-prior)",
            vocab.PROVED,
            "Pure ε-label-DP: every label randomized once by ε-randomized response over a prior-optimised "
            "output set [Ghazi et al. 2021, Alg. 2 and Thm 4; Ghazi et al. 2023, Alg. 1 and Thm 3].",
            pure=True,
            label_dp=True,
        ),
    )

    def prepare(self, ds, spec) -> RRState:
        from . import LabelRRConfig

        cfg = LabelRRConfig(**{k: v for k, v in spec.params if k in LabelRRConfig.__dataclass_fields__})
        return RRState(prepare_rr_data(ds, test_fraction=spec.test_fraction, seed=spec.seed), cfg)

    def block(self, state: RRState, point, seeds, spec) -> pd.DataFrame:
        eps = float(point["epsilon"])
        util, mae = trial_metrics(state.data, state.cfg, eps, [np.random.default_rng(s) for s in seeds])
        base = self.nonprivate_utility(state)
        cols = {"method": "label_rr", "trial": np.arange(len(seeds)), "utility": util, "excess_risk": base - util}
        return pd.DataFrame(cols | ({"mae": mae} if state.data.task == "regression" else {}))

    def nonprivate_utility(self, state: RRState) -> float:
        return nonprivate_metrics(state.data)[0]

    def nonprivate_mae(self, state: RRState) -> float:
        return nonprivate_metrics(state.data)[1]

    def notes(self, state: RRState) -> tuple[str, ...]:
        c, reg = state.cfg, state.data.task == "regression"
        how = f"RR-on-bins, {c.bins} grid points" if reg else f"two-stage RR-with-prior, stage 1 = {c.stage:g}"
        return state.data.notes + (f"{how}; excess risk = non-private test utility minus this fit's.",)

    def leaks(self, state: RRState) -> tuple[str, ...]:
        return state.data.leaks


ADAPTER = register(LabelRRAdapter())
