"""Risk caps as negotiation targets: parsing, the largest ε under a cap (closed forms), the negotiate JSON."""

import json
import math

import pytest
from _helpers import run_main

from dp_core.negotiate import parse_target
from dp_core.risk.targets import largest_epsilon, risk_of


@pytest.mark.parametrize("text", ["tpr_at_fpr_0.01<=0.05", "tpr_at_fpr_0.001=0.01", "mia_advantage<=0.1"])
def test_risk_targets_parse(text):
    t = parse_target(text)
    assert t.direction == "<=" and 0 < t.value <= 1


@pytest.mark.parametrize(
    "text", ["mia_advantage>=0.1", "mia_advantage<=0", "tpr_at_fpr_0.01<=1.5", "tpr_at_fpr_0.5<=0.1"]
)
def test_bad_risk_targets_are_refused(text):
    with pytest.raises(ValueError):
        parse_target(text)


@pytest.mark.parametrize("cap", [0.02, 0.05, 0.5])
def test_tpr_cap_closed_forms(cap):
    # pure ε-DP: TPR at FPR α is e^ε α (while below the curve's other side); (ε, δ): e^ε α + δ
    assert largest_epsilon("tpr_at_fpr_0.01", cap) == pytest.approx(math.log(cap / 0.01), rel=1e-9)
    assert largest_epsilon("tpr_at_fpr_0.01", cap, 1e-5) == pytest.approx(math.log((cap - 1e-5) / 0.01), rel=1e-9)


@pytest.mark.parametrize("cap", [0.05, 0.1, 0.6])
def test_advantage_cap_closed_form(cap):
    # pure ε-DP: the advantage is (e^ε − 1)/(e^ε + 1) = tanh(ε/2)
    e = largest_epsilon("mia_advantage", cap)
    assert e == pytest.approx(2 * math.atanh(cap), rel=1e-6)
    assert risk_of("mia_advantage", e) <= cap


def test_unreachable_and_unbounded_caps():
    assert largest_epsilon("tpr_at_fpr_0.01", 0.005) == 0.0  # even ε → 0 allows TPR = FPR = 1 %
    assert largest_epsilon("mia_advantage", 1.0) == math.inf


def test_one_risk_cap_at_most(capsys):
    code, out = run_main(
        capsys, "negotiate", "--dataset", "iris", "--target", "mia_advantage<=0.1", "--target", "tpr_at_fpr_0.01<=0.1"
    )
    assert code == 2 and "one risk cap" in out.err


def test_negotiate_with_a_risk_cap(capsys):
    args = ("negotiate", "--dataset", "iris", "--trials", "3", "--n-eps", "4", "--target", "accuracy=0.8")
    code, out = run_main(capsys, *args, "--target", "tpr_at_fpr_0.01<=0.05")
    assert code == 0, out.err
    a = json.loads(out.out)
    r = a["risk"]
    assert r["epsilon_max_pure"] == pytest.approx(math.log(5), rel=1e-9)
    assert r["epsilon_max_approx"] == pytest.approx(math.log((0.05 - 1e-5) / 0.01), rel=1e-9)
    for m in a["methods"]:
        e_max = r["epsilon_max_pure"] if m["pure"] else r["epsilon_max_approx"]
        assert m["epsilon_risk_max"] == e_max
        e = m.get("epsilon_measured")
        assert m["utility_within_risk"] == (None if e is None else e <= e_max)
    assert r["sentence"] in a["headline"]
    # without the cap, the same answer otherwise
    code, out = run_main(capsys, *args)
    b = json.loads(out.out)
    assert [m["epsilon_measured"] if "epsilon_measured" in m else None for m in b["methods"]] == [
        m.get("epsilon_measured") for m in a["methods"]
    ]
    assert "risk" not in b and a["headline"].startswith(b["headline"])


def test_risk_cap_alone(capsys):
    code, out = run_main(
        capsys, "negotiate", "--dataset", "iris", "--trials", "3", "--n-eps", "4", "--target", "mia_advantage<=0.1"
    )
    assert code == 0, out.err
    a = json.loads(out.out)
    assert a["risk"]["epsilon_max_pure"] == pytest.approx(2 * math.atanh(0.1), rel=1e-6)
    assert all(m["utility_within_risk"] is None for m in a["methods"])
