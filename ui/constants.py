"""Widget limits and defaults, in one place (dp_core's validation stays the authority)."""

from __future__ import annotations

EPS_MIN, EPS_MAX, EPS_DEFAULT = 0.01, 10.0, 1.0
# Log-spaced, readable values for the epsilon slider: 0.01 ... 10.
EPS_OPTIONS = tuple(
    sorted({round(m * 10.0**e, 6) for e in (-2, -1, 0) for m in (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8)} | {10.0})
)
DELTA_OPTIONS = tuple(sorted({round(m * 10.0**e, 14) for e in range(-12, 0) for m in (1, 2, 5)} | {0.5}))
DELTA_DEFAULT = 1e-5
SEED_DEFAULT = 0
TRIAL_OPTIONS = (10, 20, 50, 100, 200, 500, 1000)
TRIALS_DEFAULT = 100

# Label-DP bag parameters (shared so they survive page switches and live in the URL).
K_MIN, K_MAX, K_DEFAULT = 1, 4096, 64
M_MIN, M_MAX, M_DEFAULT = 1, 100_000, 100
RHO_MIN, RHO_MAX, RHO_DEFAULT = 0.0, 1.0, 0.1

DEFAULT_DATASET = "census"

#: Shared parameters mirrored in the URL: name -> (type, default).
SHARED_PARAMS = {
    "eps": (float, EPS_DEFAULT),
    "delta": (float, DELTA_DEFAULT),
    "seed": (int, SEED_DEFAULT),
    "trials": (int, TRIALS_DEFAULT),
    "k": (int, K_DEFAULT),
    "m": (int, M_DEFAULT),
    "rho": (float, RHO_DEFAULT),
    "dataset": (str, DEFAULT_DATASET),
}
