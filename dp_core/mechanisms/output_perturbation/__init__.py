"""Output perturbation of a ridge / logistic fit: the textbook baseline of the comparison.

Its own folder: a learning mechanism with its own formulas (:mod:`.baselines`) and comparison adapter
(:mod:`.compare`); no command, no audit. Chaudhuri, Monteleoni and Sarwate (JMLR 2011), Alg. 1, Cor. 8.
"""

from ...plugin import Mechanism

PLUGIN = Mechanism(
    name="output-perturbation",
    title="Output perturbation (textbook baseline)",
    summary="Gaussian noise added to the non-private ridge / logistic solution.",
    package=__name__,
)

__all__ = ["PLUGIN"]
