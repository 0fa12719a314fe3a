"""Label RR in the risk panel: the claim is pure ε-label-DP, whose privacy profile binary randomized response
attains (the worst case of ε-DP, as :func:`dp_core.risk.guarantees.pure` states); neighbours replace one label."""

from ...risk.curves import pure_profile
from ...risk.guarantees import Guarantee


def setting(values: dict, *, eps, delta, ds) -> dict:
    return {"eps": float(eps)}


def guarantee(*, eps: float) -> Guarantee:
    label, key = f"Label randomized response, ε = {eps:g} (replace one label)", "label-rr:with-prior"
    return Guarantee("label-rr", label, pure_profile(eps), eps, 0.0, "proved", {"eps": eps}, audit_key=key)
