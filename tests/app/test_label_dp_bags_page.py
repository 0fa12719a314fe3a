"""AppTest tests of the "Label-DP by aggregation" page.

The expert sections below the first screen are lazy expanders (their content is computed only while open);
these tests open them all through their keys (``SECTIONS``), as a visitor's clicks on their titles do.
"""

import pytest
from _helpers import charts, metrics
from _helpers import open_page as _open_page

from dp_core.data import DATASETS

PAGE = "pages/label_dp_bags.py"


#: The lazy expert sections of the page.
SECTIONS = ("lb_x_accounting", "lb_x_delta_k", "lb_x_conditions", "lb_x_utility", "lb_x_bags")


def open_sections(at):
    """Open every lazy expert section of the session ``at`` (before its next run)."""
    for key in SECTIONS:
        at.session_state[key] = True
    return at


def open_page(app, **params):
    """The page with these link values and every expert section open."""
    return _open_page(open_sections(app), PAGE, defaults={"trials": "10"}, **params)


def test_expert_sections_compute_only_when_opened(app):
    at = _open_page(app, PAGE, defaults={"trials": "10"}, k=64, m=100, rho=0.1)
    assert not at.exception
    # closed: the titles are there, their content is not (one chart: the first screen's)
    assert {e.label.split(":")[0] for e in at.expander} >= {"Privacy accounting", "δ against the bag size k"}
    assert "δ as claimed by the paper" not in metrics(at)
    assert len(charts(at)) == 1
    at.session_state["lb_x_accounting"] = True
    at.run()
    assert not at.exception
    assert metrics(at)["δ as claimed by the paper"] == "≥ 1"
    assert len(charts(at)) == 3  # the failure terms and the ε–δ profile
    at.session_state["lb_x_delta_k"] = True
    at.run()
    names = " ".join(t.get("name", "") for t in charts(at)[-1]["data"])
    assert "as claimed by the paper" in names and "exact" in names


def test_page_renders_with_three_accountings(app):
    at = open_page(app, k=64, m=100, rho=0.1)
    assert not at.exception
    assert at.title[0].value == "🎒 Label-DP by aggregation"
    m = metrics(at)
    assert m["δ as claimed by the paper"] == "≥ 1"
    assert m["δ corrected (explicit)"] == "≥ 1"
    assert any(x.delta == "vacuous: no guarantee" for x in at.metric)
    assert 0 < float(m["δ exact (beyond the paper)"]) < 1
    text = " ".join(x.value for x in at.markdown) + " ".join(x.value for x in at.info)
    assert "no privacy guarantee at all" in text
    # the Monte-Carlo sweeps run behind their button (in the background on a server; here in the script)
    before = len(charts(at))
    at.button(key="lb_run").click().run()
    assert not at.exception
    figs = charts(at)
    assert len(figs) == before + 3  # against k, against m, the utility ratio
    assert len(figs) >= 6
    # the delta-vs-k figure has the three accountings
    names = " ".join(t.get("name", "") for f in figs for t in f["data"])
    assert "as claimed by the paper" in names and "corrected" in names and "exact" in names


def test_changing_k_changes_output(app):
    at = open_page(app, k=64, m=100, rho=0.1)
    before = metrics(at)["δ exact (beyond the paper)"]
    at.number_input(key="k").set_value(16).run()
    assert not at.exception
    after = metrics(at)["δ exact (beyond the paper)"]
    assert before != after
    assert at.query_params["k"] in (["16"], "16")


def test_query_params_restore_state(app):
    at = open_page(app, k=20, m=50, rho=0.3, lb_variant="wtd-lba")
    assert not at.exception
    assert at.number_input(key="k").value == 20
    assert at.number_input(key="m").value == 50
    assert at.number_input(key="rho").value == pytest.approx(0.3)
    assert at.radio(key="lb_variant").value == "wtd-lba"
    # wtd-LBA shows the data conditions and says they depend on the private labels
    assert any("depend on the private labels" in w.value for w in at.warning)
    assert "rank d'" in metrics(at)


def test_infeasible_setting_is_explained_and_fixable(app):
    at = open_page(app, k=512, m=1000)
    assert not at.exception
    assert any("Not feasible" in e.value for e in at.error)
    at.button(key="lb_fix").click().run()
    assert not at.exception
    assert not any("Not feasible" in e.value for e in at.error)
    assert at.number_input(key="k").value * at.number_input(key="m").value <= 16000


def test_rho_zero_is_flagged_as_not_private(app):
    at = open_page(app, k=32, m=50, rho=0.0)
    assert not at.exception
    assert any("not label-DP at all" in e.value for e in at.error)


FAST = ("diabetes", "iris")


@pytest.mark.parametrize(
    "name", [n if n in FAST else pytest.param(n, marks=pytest.mark.slow) for n in DATASETS if n != "census"]
)
def test_every_demo_dataset(app, name):
    at = open_page(app, dataset=name, k=4, m=20, rho=0.2)
    assert not at.exception, name
    if DATASETS[name].task == "multiclass":  # class codes are not amounts: refused in plain words
        assert [e.value for e in at.error] and "it does not fit these data" in at.error[0].value
        return
    # the only red line allowed is the flag of a fit far worse than the average, with "not usable" shown
    flagged = [e.value for e in at.error if e.value.startswith("Not a usable fit")]
    assert len(flagged) == len(at.error), [e.value for e in at.error]
    assert not flagged or metrics(at)["Test error (squared)"] == "not usable"
    m = metrics(at)
    assert "δ exact (beyond the paper)" in m
    if DATASETS[name].task != "regression":
        assert any("treated as a number" in c.value for c in at.caption)
        assert any("Brier score" in i.value for i in at.info)


def test_uploaded_csv(app):
    rows = "".join(f"{i % 7},{(i * 13) % 17},{(i * 5) % 11 + 0.5 * (i % 3)}\n" for i in range(400))
    content = ("a,b,target\n" + rows).encode()
    at = open_sections(app).run()
    at.radio(key="w_source").set_value("upload").run()
    at.file_uploader(key="csv").set_value(("mine.csv", content, "text/csv")).run()
    assert not at.exception
    at.query_params["trials"] = "10"
    at.switch_page(PAGE).run()
    assert not at.exception
    assert "upload" in at.caption[0].value or "mine.csv" in " ".join(c.value for c in at.caption)
    at.number_input(key="k").set_value(8).run()
    at.number_input(key="m").set_value(20).run()
    assert not at.exception
    assert not at.error
    assert "δ exact (beyond the paper)" in metrics(at)


def _qp(at, key):
    v = at.query_params[key]
    return str(v[0] if isinstance(v, list) else v)


def test_secondary_settings_round_trip_through_the_url(app):
    at = open_page(app, lb_public=1, lb_lo="0", lb_hi="0.5", lb_noise_std="2", lb_metric="excess_risk")
    assert not at.exception
    assert at.number_input(key="lb_noise_std").value == pytest.approx(2.0)
    assert at.number_input(key="lb_lo").value == pytest.approx(0.0)
    assert at.number_input(key="lb_hi").value == pytest.approx(0.5)
    assert at.radio(key="lb_metric").value == "excess_risk"
    at.number_input(key="lb_noise_std").set_value(3.0).run()
    assert not at.exception
    assert float(_qp(at, "lb_noise_std")) == pytest.approx(3.0)
    assert float(_qp(at, "lb_hi")) == pytest.approx(0.5)
    # the value survives a page switch
    at.switch_page("pages/home.py").run()
    at.switch_page(PAGE).run()
    assert at.number_input(key="lb_noise_std").value == pytest.approx(3.0)
