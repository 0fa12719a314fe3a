"""AppTest: the Label-DP page starts from bag sizes that fit the data (issue 13 item 5)."""

from _helpers import open_page as _open_page

from dp_core.mechanisms.label_dp_bags import suggest_bag_params, utility_min_bags

PAGE = "pages/label_dp_bags.py"


def open_page(app, **params):
    return _open_page(app, PAGE, defaults={"trials": "10"}, **params)


def _km(at):
    return at.number_input(key="k").value, at.number_input(key="m").value


def test_without_k_and_m_in_the_link_the_defaults_fit_the_data(app):
    at = open_page(app, dataset="diabetes")
    assert not at.exception
    assert not any("Not feasible" in e.value for e in at.error)
    n_train = 442 - round(0.2 * 442)
    s = suggest_bag_params(n_train, epsilon=1.0, d=11, min_bags=utility_min_bags(11))
    assert _km(at) == (s.k, s.m)
    assert any("Default from the data size" in c.value for c in at.caption)


def test_a_link_with_k_and_m_is_kept_and_the_fix_offers_the_suggestion(app):
    at = open_page(app, dataset="diabetes", k=64, m=100)
    assert not at.exception
    assert _km(at) == (64, 100)
    err = " ".join(e.value for e in at.error)
    assert "Not feasible" in err and "k = 2" in err
    at.button(key="lb_fix").click().run()
    assert not at.exception
    k, m = _km(at)
    assert k * m <= 442 - round(0.2 * 442)
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
    assert k * m <= 80
    assert not any("Not feasible" in e.value for e in at.error)


def test_an_auto_link_from_the_compare_page_gets_the_suggested_setting(app):
    # k = 0, m = 0 ("auto", the Compare page's default) in a link: this page picks its own fitting setting
    at = open_page(app, dataset="diabetes", k=0, m=0)
    assert not at.exception
    n_train = 442 - round(0.2 * 442)
    s = suggest_bag_params(n_train, epsilon=1.0, d=11, min_bags=utility_min_bags(11))
    assert _km(at) == (s.k, s.m)
