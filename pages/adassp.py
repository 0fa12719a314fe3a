"""The AdaSSP page: the generic shell, then the risk panel of its three Gaussian releases at (ε/3, δ/3)."""

from ui import share, state
from ui.risk_panel import risk_panel
from ui.shell import render

render("adassp")
eps, delta = float(state.get("eps")), float(state.get("delta"))
risk_panel("gaussian", eps=eps / 3, delta=delta / 3, compose_k=3)  # each release μ = Δ/σ (package docstring)

share.page_share("pages/adassp.py", key="adassp_share")
