"""dp_core.figures.use_white_template: the same figure JSON as the validated template assignment."""

import json

import plotly.graph_objects as go

from dp_core import figures


def _figure() -> go.Figure:
    return go.Figure(go.Scatter(x=[1.0, 2.0, 3.0], y=[0.5, 0.25, 0.125], name="m"))


def test_fast_template_gives_the_same_figure_as_the_validated_one():
    fast = _figure()
    figures.use_white_template(fast)
    fast.update_layout(title="t", height=300)
    slow = _figure().update_layout(template="plotly_white", title="t", height=300)
    assert json.loads(fast.to_json()) == json.loads(slow.to_json())
    assert fast.layout.template.layout.plot_bgcolor == "white"


def test_apply_layout_keeps_the_white_template_and_still_validates_later_updates():
    fig = figures.apply_layout(_figure(), title="t", x_title="x", y_title="y", log_x=True)
    spec = json.loads(fig.to_json())
    assert spec["layout"]["template"]["layout"]["plot_bgcolor"] == "white"
    assert spec["layout"]["xaxis"]["type"] == "log" and spec["layout"]["yaxis"]["title"]["text"] == "y"
    try:  # validation is back on for the caller's own updates
        fig.update_layout(height="tall")
    except ValueError as exc:
        assert "height" in str(exc)
    else:
        raise AssertionError("an invalid height was accepted: validation stayed off")
