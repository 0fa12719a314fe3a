"""DP-GD in the risk panel: ``T`` Gaussian steps of multiplier ``z`` are exactly μ-GDP, ``μ = √T / z`` (J. Dong,
A. Roth, W. Su, *Gaussian Differential Privacy*, 2022, Corollary 3.3); the claim's ε is the RDP accountant's."""

from ...risk.curves import gaussian_profile
from ...risk.guarantees import Guarantee


def setting(values: dict, *, eps, delta, ds) -> dict:
    from . import DPGDConfig

    return {"eps": float(eps), "delta": float(delta), "steps": DPGDConfig(**values).n_steps(round(0.8 * ds.n), eps)}


def guarantee(*, eps: float, delta: float, steps: int) -> Guarantee:
    from . import noise_multiplier

    z, key = noise_multiplier(float(eps), float(delta), int(steps)), "dp-gd:standard"
    prof, label = gaussian_profile(steps**0.5 / z), f"DP-GD, T = {steps} steps, noise multiplier z = {z:.4g}"
    return Guarantee("dp-gd", label, prof, eps, delta, "proved", {"steps": steps, "z": z}, audit_key=key)
