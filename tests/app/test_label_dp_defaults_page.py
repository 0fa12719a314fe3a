"""AppTest: the Label-DP page starts from the Compare page's rule for k and m, at the sidebar's δ (issues 13, 23)."""

import pytest
from _helpers import metrics
from _helpers import open_page as _open_page

from dp_core.compare.engine import make_spec
from dp_core.data import DATASETS, load_dataset
from dp_core.mechanisms.label_dp_bags.compare import ADAPTER
from dp_core.mechanisms.label_dp_bags.defaults import auto_bag_setting

PAGE = "pages/label_dp_bags.py"


def open_page(app, **params):
    return _open_page(app, PAGE, defaults={"trials": "10"}, **params)


def _km(at):
    return at.number_input(key="k").value, at.number_input(key="m").value


def _compare_state(name: str, delta: float):
    """What the Compare page picks for label-DP with k = m = 0 ("from the data size") at ``delta``."""
    spec = make_spec(epsilons=(1.0,), delta=delta, n_trials=10, seed=0)  # k = m = 0: the ParamSpec defaults
    return ADAPTER.prepare(load_dataset(name), spec)


@pytest.mark.slow
@pytest.mark.parametrize("name", list(DATASETS))
def test_page_default_is_the_compare_rule_at_the_sidebar_delta(app, name):
    at = open_page(app, dataset=name, delta="1e-05")
    assert not at.exception
    st_ = _compare_state(name, 1e-5)
    assert st_.auto and _km(at) == (st_.k, st_.m)
    if DATASETS[name].task == "multiclass":  # class codes: refused on the first screen, in plain words
        assert any("it does not fit these data" in e.value for e in at.error)
        assert not at.metric
        return
    shown = metrics(at)
    assert "Privacy at δ = 1e-5" in shown  # the guarantee is stated at the sidebar's δ, not a δ of the page's own
    value = shown["Privacy at δ = 1e-5"]
    if st_.llp_epsilon is None:
        assert value == "no ε"
        assert any("No setting from the data size gives a guarantee at δ = 1e-5" in w.value for w in at.warning)
    else:
        from dp_core import display

        assert value == f"ε = {display.epsilon(st_.llp_epsilon)}"


def test_a_larger_sidebar_delta_moves_the_guarantee_not_the_bags(app):
    at = open_page(app, dataset="heavy_tailed", delta="0.001")
    assert not at.exception
    a = auto_bag_setting(4000, d=3, delta=1e-3, rho=0.1)
    assert _km(at) == (a.k, a.m)
    from dp_core import display

    assert metrics(at)["Privacy at δ = 0.001"] == f"ε = {display.epsilon(a.epsilon)}"
    # 1/n = 2.5e-4 for 4,000 training rows: the first screen says the sidebar's δ is weak
    assert any("is above 1/n" in w.value for w in at.warning)


def test_a_link_with_k_and_m_is_kept_and_the_fix_offers_the_rule(app):
    at = open_page(app, dataset="diabetes", k=64, m=100)
    assert not at.exception
    assert _km(at) == (64, 100)
    err = " ".join(e.value for e in at.error)
    a = auto_bag_setting(442 - round(0.2 * 442), d=11, delta=1e-5, rho=0.1)
    assert "Not feasible" in err and f"k = {a.k}, m = {a.m}" in err
    at.button(key="lb_fix").click().run()
    assert not at.exception
    assert _km(at) == (a.k, a.m)
    assert not any("Not feasible" in e.value for e in at.error)


def test_a_small_upload_gets_a_feasible_default(app):
    rows = "".join(f"{i % 7},{(i * 13) % 17},{(i * 5) % 11 + 0.5 * (i % 3)}\n" for i in range(100))
    at = app.run()
    at.radio(key="w_source").set_value("upload").run()
    at.file_uploader(key="csv").set_value(("small.csv", ("a,b,target\n" + rows).encode(), "text/csv")).run()
    at.query_params["trials"] = "10"
    at.switch_page(PAGE).run()
    assert not at.exception
    k, m = _km(at)
    assert k * m <= 80 and (k, m) == (80 // 7, 7)  # the rule: m = 2d + 1 bags (d = 3 with the constant)
    assert not any("Not feasible" in e.value for e in at.error)


def test_an_auto_link_from_the_compare_page_gets_the_same_setting(app):
    at = open_page(app, dataset="diabetes", k=0, m=0)
    assert not at.exception
    st_ = _compare_state("diabetes", 1e-5)
    assert _km(at) == (st_.k, st_.m)
