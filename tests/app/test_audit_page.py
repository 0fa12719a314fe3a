"""AppTest tests of the "Privacy audit" page."""

import pytest
from _helpers import charts, metrics
from _helpers import open_page as _open_page

from dp_core.audit import MECHANISMS
from dp_core.data import DATASETS

PAGE = "pages/audit.py"


def open_page(app, **params):
    return _open_page(app, PAGE, **params)


LOWER = "Measured lower bound"


def text_of(at):
    parts = [x.value for x in at.markdown] + [x.value for x in at.info] + [x.value for x in at.error]
    return " ".join(parts + [x.value for x in at.caption])


def test_page_renders_with_claim_bound_histograms_and_convergence(app):
    at = open_page(app, audit_runs=20000)
    assert not at.exception
    assert at.title[0].value == "🔍 Privacy audit"
    assert "can never prove that a mechanism is private" in text_of(at)
    m = metrics(at)
    assert m["Claimed ε"] == "1" and m["Runs per dataset"] == "20,000"
    assert 0.0 <= float(m[LOWER]) <= 1.0
    figs = charts(at)
    assert len(figs) == 2
    hist, conv = figs
    assert {t["name"] for t in hist["data"]} == {"on D (20,000 runs)", "on D' (20,000 runs)"}
    assert any("threshold" in a.get("text", "") for a in hist["layout"].get("annotations", []))
    assert conv["layout"]["xaxis"]["type"] == "log"
    assert any("claimed ε" in a.get("text", "") for a in conv["layout"].get("annotations", []))
    assert "consistent with the claim" in text_of(at)


def test_query_parameter_preselects_the_mechanism(app):
    at = open_page(app, mechanism="laplace", audit_runs=10000, eps="2")
    assert not at.exception
    assert at.selectbox(key="mechanism").value == "laplace"
    assert at.select_slider(key="audit_runs").value == 10000
    assert metrics(at)["Claimed ε"] == "2"
    assert at.query_params["mechanism"] in (["laplace"], "laplace")


def test_unknown_mechanism_in_the_link_falls_back(app):
    at = open_page(app, mechanism="nonsense")
    assert not at.exception
    assert at.selectbox(key="mechanism").value == "gaussian"


def test_more_runs_change_the_bound(app):
    at = open_page(app, mechanism="laplace", audit_runs=1000)
    before = metrics(at)[LOWER]
    at.select_slider(key="audit_runs").set_value(100000).run()
    assert not at.exception
    after = metrics(at)
    assert after["Runs per dataset"] == "100,000" and after[LOWER] != before
    assert float(after[LOWER]) > float(before)


def test_switching_mechanism_updates_the_url(app):
    at = open_page(app, audit_runs=1000)
    at.selectbox(key="mechanism").set_value("laplace").run()
    assert not at.exception
    assert at.query_params["mechanism"] in (["laplace"], "laplace")
    assert at.query_params["audit_mode"] in (["standard"], "standard")
    assert metrics(at)["Runs per dataset"] == "100,000"  # each mechanism starts at its own default


@pytest.mark.parametrize("name", [n for n in MECHANISMS if n not in ("laplace", "gaussian")])
def test_every_mechanism_renders(app, name):
    runs = {"large-margin-gaussian": 200, "label-dp-bags": 500, "input-perturbation": 1000}.get(name, 1000)
    at = open_page(app, mechanism=name, **{"audit_runs": runs})
    assert not at.exception
    assert not at.error or "violation found" in text_of(at)
    assert metrics(at)["Runs per dataset"] == f"{runs:,}"
    assert len(charts(at)) == 2


def test_naive_llp_shows_a_violation(app):
    at = open_page(app, mechanism="label-dp-bags", audit_mode="naive-llp", audit_runs=1000, eps="2", k=64, m=100)
    assert not at.exception
    assert "violation found" in " ".join(e.value for e in at.error)
    assert float(metrics(at)[LOWER]) > 2.0
    assert "Hatched bars beyond the axis" in text_of(at)  # the noiseless bags, drawn as coded outcomes
    hist = charts(at)[0]
    assert any(t.get("name") == "on D': coded outcome" for t in hist["data"])


def test_large_margin_shared_noise_mode_shows_a_violation(app):
    at = open_page(app, mechanism="large-margin-gaussian", audit_mode="repaired-psd-off", audit_runs=500)
    assert not at.exception
    assert "violation found" in " ".join(e.value for e in at.error)
    assert "needs classification data" in text_of(at)  # census is a regression dataset


def test_bad_parameters_show_an_error_not_a_traceback(app):
    at = open_page(app, mechanism="gaussian", audit_mode="classic", eps="4")
    assert not at.exception
    assert any("classic" in e.value and "epsilon" in e.value for e in at.error)


@pytest.mark.parametrize("name", list(DATASETS))
def test_random_pair_on_each_demo_dataset(app, name):
    at = open_page(app, mechanism="laplace", audit_pair="random", audit_runs=2000, dataset=name)
    assert not at.exception
    assert not at.error
    assert any(name in c.value for c in at.caption)
    assert metrics(at)["Runs per dataset"] == "2,000"


def test_uploaded_csv(app):
    rows = "".join(f"{i % 7},{(i * 13) % 17},{((i * 5) % 11) / 11 - 0.5}\n" for i in range(400))
    content = ("a,b,target\n" + rows).encode()
    at = app.run()
    at.radio(key="w_source").set_value("upload").run()
    at.file_uploader(key="csv").set_value(("mine.csv", content, "text/csv")).run()
    assert not at.exception
    at.query_params["mechanism"] = "gaussian"
    at.query_params["audit_pair"] = "random"
    at.query_params["audit_runs"] = "2000"
    at.switch_page(PAGE).run()
    assert not at.exception and not at.error
    assert "mine" in text_of(at)
    before = charts(at)[0]
    at.select_slider(key="audit_runs").set_value(20000).run()
    assert not at.exception
    assert metrics(at)["Runs per dataset"] == "20,000" and charts(at)[0] != before
    # the label-DP audit on the uploaded data, with bags that fit its 320 training rows
    at.selectbox(key="mechanism").set_value("label-dp-bags").run()
    at.number_input(key="w_k").set_value(8).run()
    at.number_input(key="w_m").set_value(20).run()
    assert not at.exception
    assert "violation found" in " ".join(e.value for e in at.error)


def test_a_mechanism_page_link_selects_its_audit_later_in_the_session(app):
    at = open_page(app, mechanism="laplace", audit_runs=1000)
    assert at.selectbox(key="mechanism").value == "laplace"
    at.switch_page("pages/home.py").run()
    # what st.page_link("pages/audit.py", query_params={"mechanism": ..., "audit_mode": ...}) does
    at.query_params["mechanism"] = "l1-exponential"
    at.query_params["audit_mode"] = "tight"
    at.switch_page(PAGE).run()
    assert not at.exception
    assert at.selectbox(key="mechanism").value == "l1-exponential"
    assert at.selectbox(key="audit_mode").value == "tight"
    # the page's own URL updates are not mistaken for a new link
    at.selectbox(key="mechanism").set_value("gaussian").run()
    assert at.selectbox(key="mechanism").value == "gaussian"


def test_pair_seed_and_options_round_trip_through_the_url(app):
    at = open_page(app, mechanism="laplace", audit_pair_seed="7")
    assert not at.exception
    assert at.number_input(key="audit_pair_seed").value == 7
    v = at.query_params["audit_pair_seed"]
    assert str(v[0] if isinstance(v, list) else v) == "7"
    option_keys = [k for k in (n.key for n in at.number_input) if k and k.startswith("audit_laplace_")]
    for k in option_keys:
        assert k in at.query_params


# ------------------------------------------------------------------ the plain first screen (issue 13)
def first_screen_nodes(at):
    """The elements of the page outside its expert sections (expanders and tabs), in page order."""
    out = []

    def walk(node):
        for ch in node.children.values():
            if getattr(ch, "type", None) in ("expander", "tab_container", "tab"):
                continue
            out.append(ch)
            if hasattr(ch, "children"):
                walk(ch)

    walk(at.main)
    return out


def first_screen_text(nodes) -> list[str]:
    texts = []
    for n in nodes:
        for attr in ("label", "value"):
            v = getattr(n, attr, None)
            if isinstance(v, str) and v:
                texts.append(v)
    return texts


def test_first_screen_three_numbers_status_badge_one_chart_and_every_symbol_explained(app):
    from dp_core import glossary

    at = open_page(app, audit_runs=2000)
    assert not at.exception
    nodes = first_screen_nodes(at)
    kinds = [getattr(n, "type", None) for n in nodes]
    shown = [n.label for n in nodes if getattr(n, "type", None) == "metric"]
    assert shown == ["Claimed ε", LOWER, "Runs per dataset"]
    assert all(n.help for n in nodes if getattr(n, "type", None) == "metric")  # every number explained
    badges = [n.value for n in nodes if getattr(n, "type", None) == "markdown" and "-badge[" in n.value]
    assert badges == [":green-badge[:material/verified: Proved]"]  # gaussian, analytic: the stored row
    assert kinds.count("plotly_chart") == 1  # the histogram; the convergence chart is in an expert section
    assert {e.label for e in at.expander} >= {"How an audit works", "How the bound was computed"}
    unknown = {s for t in first_screen_text(nodes) for s in glossary.unknown_symbols(t)}
    assert unknown == set()


def test_the_verdict_merges_with_the_status_badge(app):
    """A refuted claim: the stored badge says 'Refuted' and the live audit says why, both on the first screen."""
    at = open_page(app, mechanism="label-dp-bags", audit_mode="naive-llp", audit_runs=1000, eps="2", k=64, m=100)
    assert not at.exception
    nodes = first_screen_nodes(at)
    badges = [n.value for n in nodes if getattr(n, "type", None) == "markdown" and "-badge[" in n.value]
    assert len(badges) == 1 and badges[0].startswith(":red-badge") and "Refuted" in badges[0]
    errors = [n.value for n in nodes if getattr(n, "type", None) == "error"]
    assert any("not a valid guarantee" in e and "violation found" in e for e in errors)


@pytest.mark.parametrize("name", list(MECHANISMS))
def test_every_widget_round_trips_through_the_url(app, name):
    """A link with a non-default value of every page widget opens with exactly those values, and writes them back."""
    mech = MECHANISMS[name]
    link = {
        "mechanism": name,
        "audit_mode": list(mech.modes)[-1],
        "audit_pair": list(mech.pairs)[-1],
        "audit_runs": 200,
        "audit_pair_seed": 11,
    }
    shared = {"k", "m", "rho"}  # label-DP's options are the shared widgets of the sidebar's kind
    for opt in mech.options:
        if opt.name in shared and name == "label-dp-bags":
            continue
        value = opt.default * 2 if opt.hi is None or opt.default * 2 <= opt.hi else (opt.default + opt.hi) / 2
        link[f"audit_{name}_{opt.name}"] = opt.kind(value)
    at = open_page(app, **link)
    assert not at.exception
    assert at.selectbox(key="mechanism").value == name
    assert at.selectbox(key="audit_mode").value == link["audit_mode"]
    assert at.selectbox(key="audit_pair").value == link["audit_pair"]
    assert at.select_slider(key="audit_runs").value == 200
    assert at.number_input(key="audit_pair_seed").value == 11
    for key, value in link.items():
        if key.startswith(f"audit_{name}_"):
            assert at.number_input(key=key).value == pytest.approx(value)
        q = at.query_params[key]
        q = q[0] if isinstance(q, list) else q
        assert q == (f"{value:.6g}" if isinstance(value, float) else str(value)), key
    # a change goes back into the URL and survives a rerun
    at.number_input(key="audit_pair_seed").set_value(12).run()
    at.run()
    assert at.number_input(key="audit_pair_seed").value == 12
    q = at.query_params["audit_pair_seed"]
    assert (q[0] if isinstance(q, list) else q) == "12"


def test_small_upload_runs_with_the_defaults(app):
    """An uploaded CSV of 100 rows: the data-based audits run at their defaults, or say plainly what to change."""
    rows = "".join(f"{i % 7},{(i * 13) % 17},{i % 2}\n" for i in range(100))
    at = app.run()
    at.radio(key="w_source").set_value("upload").run()
    at.file_uploader(key="csv").set_value(("small.csv", ("a,b,target\n" + rows).encode(), "text/csv")).run()
    assert not at.exception
    at.query_params["audit_pair"] = "random"
    at.query_params["audit_runs"] = "2000"
    at.switch_page(PAGE).run()
    assert not at.exception and not at.error
    assert metrics(at)["Runs per dataset"] == "2,000" and len(charts(at)) == 2
    for name in ("input-perturbation", "large-margin-gaussian"):
        at.selectbox(key="mechanism").set_value(name).run()
        assert not at.exception and metrics(at)["Claimed ε"] == "1", name
    # label-DP's default bags (k = 64, m = 100) do not fit 80 training rows: a plain message and a one-click fit
    at.selectbox(key="mechanism").set_value("label-dp-bags").run()
    assert not at.exception and not at.error
    assert any("do not fit these data" in w.value and "80 training rows" in w.value for w in at.warning)
    at.button(key="audit_use_bags").click().run()
    assert not at.exception
    k, m = at.session_state["p_k"], at.session_state["p_m"]
    assert k * m <= 80 and k >= 2 and m >= 2
    assert metrics(at)["Runs per dataset"] == "2,000" and len(charts(at)) == 2
