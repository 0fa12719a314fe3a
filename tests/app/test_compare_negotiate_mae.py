"""AppTest of the Negotiate view with a test-MAE target (regression): the metric is offered with its unit,
picking it starts from a value taken from the measured curves, the answer and the chart are in MAE, the
link carries the metric and reopening it gives the same numbers."""

import re

import pytest
from _helpers import charts
from _helpers import open_page as _open_page

from dp_core.compare import default_epsilons, make_spec, run_compare
from dp_core.data import load_dataset
from dp_core.negotiate import default_target_value

PAGE = "pages/compare.py"
MECH = "input_perturbation,output_perturbation"
FAST = {"trials": "10", "n_eps": "4", "mech": MECH}
MEASURED = "smallest ε (measured)"


def open_page(app, **query):
    return _open_page(app, PAGE, check=True, **query)


def qp(at, name):
    v = at.query_params[name]
    return v[0] if isinstance(v, list) else v


def headline(at):
    return [s.value for s in at.success if "smallest ε" in s.value or "needs about" in s.value]


def answer_table(at):
    return [d.value for d in at.dataframe if MEASURED in d.value.columns][0]


def expected_default():
    """The starting MAE value computed outside the app, from the same comparison."""
    spec = make_spec(epsilons=default_epsilons(0.05, 10.0, 4), delta=1e-5, n_trials=10, seed=0)
    res = run_compare(load_dataset("diabetes"), spec, mechanisms=MECH.split(","))
    return default_target_value(res, "mae"), res.reference_mae


def test_mae_target_from_the_curves_answer_chart_and_link(app):
    at = open_page(app, dataset="diabetes", cview="negotiate", **FAST)
    options = at.selectbox(key="tmetric").options
    assert any("MAE" in o and "disease progression" in o for o in options)  # offered, with the label's unit
    at.selectbox(key="tmetric").set_value("mae").run()
    assert not at.exception and not at.error
    value, ref = expected_default()
    shown = at.number_input(key="tvalue").value
    assert shown == pytest.approx(value) and shown > ref  # a reachable target above the non-private MAE
    assert qp(at, "tmetric") == "mae" and float(qp(at, "tvalue")) == pytest.approx(value)
    head = headline(at)
    assert head and re.search(r"test MAE ≤ [0-9.]+ on diabetes", head[0])
    # the negotiation chart is in MAE, with the target line
    title = "Test MAE (lower is better)"
    fig = [c for c in charts(at) if c["layout"].get("yaxis", {}).get("title", {}).get("text") == title]
    assert fig, "no MAE chart"
    assert any("Non-private" in (t.get("name") or "") for t in fig[0]["data"])
    assert any("target: test MAE ≤" in (a.get("text") or "") for a in fig[0]["layout"].get("annotations", []))
    table = answer_table(at)
    # a looser target never needs more budget
    at.number_input(key="tvalue").set_value(round(shown * 1.2, 6)).run()
    looser = answer_table(at)

    def eps(tab, row):
        v = tab[MEASURED].iloc[row]
        return float("inf") if v == "not reached" else float(v.replace(",", ""))

    for i in range(len(table)):
        if table[MEASURED].iloc[i] != "—":
            assert eps(looser, i) <= eps(table, i)
    # the link reopens the answer with identical numbers
    link = {k: qp(at, k) for k in ("dataset", "trials", "n_eps", "mech", "cview", "tmetric", "tvalue")}
    assert link["tmetric"] == "mae"
    again = open_page(app, **link)
    assert again.session_state["cview_tab"] == "🤝 Negotiate"
    assert again.selectbox(key="tmetric").value == "mae"
    assert headline(again) == headline(at)
    assert answer_table(again).equals(looser)


def test_switching_from_mae_back_to_r2_resets_the_value(app):
    at = open_page(app, dataset="diabetes", cview="negotiate", tmetric="mae", tvalue="60", **FAST)
    assert at.number_input(key="tvalue").value == 60.0  # the link's value, not the curves' default
    assert any("test MAE ≤ 60 on diabetes" in h for h in headline(at))
    at.selectbox(key="tmetric").set_value("r2").run()
    assert at.number_input(key="tvalue").value == 0.3  # R² starts from its own value, not from 60
    assert qp(at, "tmetric") == "r2"


def test_mae_is_not_offered_for_classification(app):
    at = open_page(app, dataset="breast_cancer", cview="negotiate", tmetric="mae", **FAST)
    assert not any("MAE" in str(o) for o in at.selectbox(key="tmetric").options)
    assert at.selectbox(key="tmetric").value == "accuracy" and at.number_input(key="tvalue").value == 0.9


def test_smallest_n_for_an_mae_target(app):
    at = open_page(app, dataset="diabetes", cview="negotiate", tmetric="mae", tvalue="60", tsolve="n", **FAST)
    assert not at.error
    head = headline(at)
    assert head and "Test MAE ≤ 60 on diabetes at ε = 1 needs about" in head[0]
    shown = re.search(r"needs about ([0-9,]+) rows", head[0]).group(1)
    tab = [d.value for d in at.dataframe if "smallest n" in d.value.columns][0]
    assert shown in set(tab["smallest n"])  # the sentence and the table agree
    assert set(tab["smallest n: from"]) <= {"measured"}  # no bound on the MAE
    lc = [c for c in charts(at) if "Learning curves" in (c["layout"].get("title", {}).get("text") or "")]
    assert lc and lc[0]["layout"]["yaxis"]["title"]["text"] == "Test MAE (lower is better)"
    assert lc[0]["layout"]["yaxis"]["type"] == "log"
