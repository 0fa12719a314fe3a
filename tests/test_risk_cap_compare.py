"""A risk cap beside the utility target on the Compare page: declared once, turned into a target, drawn on the
negotiation chart at the ε the negotiation computed (issue 26, "both targets on one chart")."""

from __future__ import annotations

import math

import pytest

from dp_core.compare import make_spec, run_compare
from dp_core.compare.figures import negotiation_figure
from dp_core.data import load_dataset
from dp_core.figures import figure_problems
from dp_core.negotiate import negotiate
from dp_core.report import targets_from_params
from dp_core.risk.targets import RISK_METRICS, largest_epsilon
from ui.constants import RISK_CAPS, url_spec


def test_the_page_offers_exactly_the_engine_caps():
    assert set(RISK_CAPS) == {"none", *RISK_METRICS}
    assert url_spec("tcap").options == RISK_CAPS and url_spec("tcapv").hi == 1.0


def test_a_cap_joins_the_targets_only_beside_another_target():
    p = {"tmetric": "accuracy", "tvalue": 0.9, "tdelta": 0.0, "tcap": "tpr_at_fpr_0.01", "tcapv": 0.05}
    assert targets_from_params(p) == ["accuracy=0.9", "tpr_at_fpr_0.01<=0.05"]
    assert targets_from_params({**p, "tcap": "none"}) == ["accuracy=0.9"]
    assert targets_from_params({**p, "tmetric": "none"}) == []


@pytest.fixture(scope="module")
def answer():
    ds = load_dataset("iris")
    spec = make_spec(epsilons=[0.3, 1.0, 3.0], delta=1e-5, n_trials=2, seed=0)
    result = run_compare(ds, spec, mechanisms=["output_perturbation", "large_margin_gaussian"])
    ans = negotiate(ds, ["accuracy=0.5", "tpr_at_fpr_0.01<=0.05"], result=result)
    return result, ans


def test_the_chart_draws_the_cap_the_negotiation_computed(answer):
    result, ans = answer
    risk = ans["risk"]
    assert risk["epsilon_max_pure"] == pytest.approx(largest_epsilon("tpr_at_fpr_0.01", 0.05))
    assert risk["epsilon_max_pure"] == pytest.approx(math.log(5), rel=1e-6)  # TPR ≤ e^ε · FPR at FPR = 1 %
    fig = negotiation_figure(result, ans)
    lines = [s for s in fig.layout.shapes if s.type == "line" and s.x0 == s.x1]
    assert sorted(s.x0 for s in lines) == sorted(
        v for v in (risk["epsilon_max_pure"], risk["epsilon_max_approx"]) if 0 < v < math.inf
    )
    texts = [a.text for a in fig.layout.annotations]
    assert any(t.startswith("risk cap tpr_at_fpr_0.01") for t in texts), texts
    assert figure_problems(fig) == []


def test_a_refuted_method_never_counts_as_meeting_the_cap(answer):
    _, ans = answer
    refuted = {r["method"] for r in ans["methods"] if r["status"] == "refuted"}
    assert refuted  # iris: the printed and repaired large-margin modes are refuted
    assert not refuted & set(ans["risk"]["methods_within"])
    private = [r for r in ans["methods"] if r["status"] not in ("refuted", "none")]
    answered = sum(r["utility_within_risk"] is not None for r in private)
    assert f"of the {answered} private methods" in ans["risk"]["sentence"] or answered == 0
