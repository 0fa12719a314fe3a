"""Output perturbation of a ridge / logistic fit: the textbook baseline of the comparison.

Its own folder (rather than the textbook one) because it is a learning mechanism with its own
formulas (:mod:`.baselines`: the sensitivity 2L/(nλ) of a λ-strongly convex ERM and its expected
excess risk) and its own comparison adapter (:mod:`.compare`); it has no command and no audit.

References
----------
K. Chaudhuri, C. Monteleoni and A. D. Sarwate, *Differentially Private Empirical Risk
Minimization*, JMLR 12, 2011, Algorithm 1 and Corollary 8.
"""

from ...plugin import Mechanism

PLUGIN = Mechanism(
    name="output-perturbation",
    title="Output perturbation (textbook baseline)",
    summary="Gaussian noise added to the non-private ridge / logistic solution.",
    hooks={"compare": f"{__name__}.compare:ADAPTER", "catalog": f"{__name__}.catalog"},
)

__all__ = ["PLUGIN"]
