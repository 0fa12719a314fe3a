"""The DP naive Bayes page: the generic shell, then the risk panel of its pure ε guarantee."""

from ui import share, state
from ui.risk_panel import risk_panel
from ui.shell import render

render("dp-naive-bayes")
risk_panel("pure", eps=float(state.get("eps")))  # Laplace on statistics, composed: pure ε-DP (package docstring)

share.page_share("pages/dp_naive_bayes.py", key="nb_share")
