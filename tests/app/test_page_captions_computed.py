"""Captions of the mechanism pages agree with the tables and figures shown next to them (issue 23, part C)."""

from __future__ import annotations

import re

import pandas as pd
from _helpers import charts, open_page

from dp_core import display
from dp_core import reproduction_claims as rc
from dp_core.audit.table import STATUS_CLAIMED


def _captions(at) -> list[str]:
    return [c.value for c in at.caption]


def test_large_margin_tightness_caption_is_the_range_of_the_table_beside_it(app):
    at = open_page(app, "pages/large_margin_gaussian.py", defaults={"trials": "10"}, check=True)
    for key in ("lm_sec_sweeps",):
        at.session_state[key] = True
    at.run()
    at.button(key="lm_run").click().run()
    assert not at.exception
    (table,) = [df.value for df in at.dataframe if "bound ÷ measured" in df.value.columns]
    (caption,) = [c for c in _captions(at) if c.startswith("Bound tightness")]
    assert "13–24" not in caption  # the reference pilot's, not this run
    ratios = table.assign(r=table["bound ÷ measured"].str.rstrip("×").str.replace(",", "").astype(float))
    for mode, g in ratios.groupby("mode"):
        lo, hi = display.number(g["r"].min(), sig=2), display.number(g["r"].max(), sig=2)
        span = lo if lo == hi else f"{lo}–{hi}"
        assert f"{span} times the measured mean excess for {mode} ({len(g)} values of ε)" in caption
    (leak,) = [c for c in _captions(at) if c.startswith("P and P+ are not differentially private")]
    assert "flat, near-perfect" not in leak and re.search(r"without privacy \d", leak)


def test_input_perturbation_reproduction_caption_is_computed_from_the_run(app):
    from dp_core.mechanisms.input_perturbation.plan import reproduction_summary

    at = open_page(app, "pages/input_perturbation.py", defaults={"trials": "10"}, check=True, seed=3)
    at.session_state["ip_sec_repro"] = True
    at.run()
    at.button(key="ip_repro_btn").click().run()
    assert not at.exception
    (caption,) = [c for c in _captions(at) if c.startswith("Least squares, Input against Obj-Gauss")]
    summary: pd.DataFrame = reproduction_summary(3, 5)
    assert caption == rc.input_objective_overlap(summary)
    assert not any("nearly coincide and approach" in m.value and "paper says" not in m.value for m in at.markdown)


def test_label_dp_delta_k_caption_is_read_off_the_figure(app):
    import base64

    import numpy as np

    def values(v):
        if isinstance(v, dict):
            return np.frombuffer(base64.b64decode(v["bdata"]), dtype=np.dtype(v["dtype"])).astype(float)
        return np.asarray(v, dtype=float)

    at = open_page(app, "pages/label_dp_bags.py", defaults={"trials": "10"}, check=True, k=64, m=100, rho=0.1)
    at.session_state["lb_x_delta_k"] = True
    at.run()
    fig = [f for f in charts(at) if any("exact" in t.get("name", "") for t in f["data"])][-1]
    traces = {t["name"]: (values(t["x"]), values(t["y"])) for t in fig["data"]}
    eps = max(float(n.split(",")[0].removeprefix("ε = ")) for n in traces)
    (caption,) = [c for c in _captions(at) if c.startswith("At ε = ")]
    assert caption.startswith(f"At ε = {display.epsilon(eps)} (the largest plotted)")
    delta = 1e-5  # the sidebar's default δ
    x, y = traces[f"ε = {display.epsilon(eps)}, as claimed by the paper"]
    assert f"k ≥ {display.number(x[y <= delta].min(), sig=2)} ({STATUS_CLAIMED};" in caption
    x, y = traces[f"ε = {display.epsilon(eps)}, exact (beyond the paper)"]
    assert f"smallest δ at feasible k is {display.delta(y.min())} (k = {display.integer(x[np.argmin(y)])})" in caption
    assert "billions" not in caption


def test_label_dp_utility_caption_states_the_bags_the_paper_s_bound_needs(app):
    from dp_core import captions
    from dp_core.data import load_dataset
    from dp_core.mechanisms import label_dp_bags as lb

    at = open_page(app, "pages/label_dp_bags.py", defaults={"trials": "10"}, check=True, k=64, m=100, rho=0.1)
    at.session_state["lb_x_utility"] = True
    at.run()
    at.button(key="lb_run").click().run()
    assert not at.exception
    (caption,) = [c for c in _captions(at) if "Theorem 1.2" in c and c.startswith("At m = ")]
    assert "billions" not in caption
    data = lb.prepare_dataset(load_dataset("census"), label_range=(0.0, 1.0), b1=1.0, seed=0)
    need = lb.utility_requirement(data, k=64)["m_required_paper_c0"]
    assert captions.bags_needed_story(need, 100) in caption
