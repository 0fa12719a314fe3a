"""What the shared tables hold for heavy-tailed ℓ1 regression (see :mod:`dp_core.catalog`)."""

COLORS = {"em_l1": "#D55E00", "em_clipped": "#56B4E9"}
LABELS = {"em_l1": "Exponential mechanism (truncated l1)", "em_clipped": "EM on clipped data"}
AUDIT_ROWS = tuple(
    {"mechanism": "l1-exponential", "mode": mode, "claim": claim, "expected": expected, "runs": 100_000}
    for mode, claim, expected in (
        ("paper_box", "paper", "violation"),
        ("tight", "proof", "consistent"),
        ("paper_proof", "proof", "consistent"),
    )
)
PRELOAD = (__package__, f"{__package__}.figures")

#: This page's symbols in the one glossary (:mod:`dp_core.glossary`): (symbol, ASCII name, plain meaning,
#: expert definition with its source, aliases...); the sources [FTS17], [PR10], [BMS], [WX] are listed there.
GLOSSARY_PAGE = "Heavy-tailed ℓ1 regression"
GLOSSARY = (
    (
        "η_total",
        "eta_total",
        "The probability that the utility bound of the ℓ1 mechanism fails.",
        "η_total = 5η, the union of the five events of the utility proof [WX, §4.2].",
    ),
    (
        "θ",
        "theta",
        "ℓ1 page: the moment order of the heavy tails (1 < θ ≤ 2); label-DP: an accuracy parameter.",
        "[WX, Assumptions A3-A4]: E‖x‖^θ ≤ τ^θ; the sensitivity of S is log θ.",
    ),
    # ---------------------------------------------------------------- heavy-tailed l1
    (
        "ι",
        "iota",
        "How far the loss is truncated: residuals beyond 1/ι stop counting.",
        "Truncation scale of ψ_θ(ι|y − ⟨x, w⟩|) [WX, §2.1]; ι* minimises the explicit bound.",
        "ι*",
        "1/ι",
    ),
    ("ψ", "psi", "The truncated loss that caps the influence of outliers.", "ψ_θ [WX, §2.1].", "ψ_θ"),
    ("τ", "tau", "A public bound on the moments of the features.", "E‖x‖^θ ≤ τ^θ [WX, Assumptions A1-A4]."),
    ("σ_θ", "sigma_theta", "A public bound on the moments of the noise.", "[WX, Theorem 2]."),
    (
        "A1",
        "A1",
        "One of four assumptions on how heavy the feature tails are.",
        "A1/A2: second moment of ‖x‖ or of each coordinate; A3/A4: θ-th moment [WX, Theorems 1-2].",
        "A2",
        "A3",
        "A4",
    ),
    (
        "ν",
        "nu",
        "The tail index of a feature distribution (smaller ν, heavier tails).",
        "Student-t degrees of freedom / Pareto index of the synthetic designs (ours).",
    ),
    (
        "c",
        "c",
        "A multiplier (ι = c·ι*), or the Gaussian-mechanism constant.",
        "[FTS17, Corollary 1]: c > √(2 ln(1.25/δ)).",
        "C_x",
        "C_y",
    ),
    ("q", "q", "A quantile or a quadratic feature map.", "[FTS17]: q(x, y) ∈ R^d, the quadratic part."),
    (
        "R",
        "R",
        "The radius of the parameter set of the ℓ1 mechanism.",
        "Parameter set {‖w‖ ≤ R}, diameter 2R [WX].",
        "R_z",
    ),
    (
        "MCMC",
        "MCMC",
        "A random-walk sampler used when the exact grid is too large; approximate, so its guarantee is not proved.",
        "Markov chain Monte Carlo; here MALA (Metropolis-adjusted Langevin).",
        "MALA",
    ),
    ("LAD", "LAD", "Least absolute deviations: the non-private median regression.", "argmin Σ|y − ⟨x, w⟩|."),
    (
        "MAE",
        "MAE",
        "Mean absolute error: the average size of a prediction's miss, in the target's units (smaller is better).",
        "MAE(w) = the mean of |y − ⟨x, w⟩| over the held-out rows: the ℓ1 loss the mechanism minimises [WX, §1]. "
        "Also a negotiation target on Compare (regression, in the target's original units), answered from the "
        "measured curves only: no mechanism here has a bound on it.",
    ),
    (
        "EM",
        "EM",
        "The exponential mechanism: pick an answer at random, better answers more likely.",
        "[DR14, §3.4]; here on the truncated ℓ1 loss [WX, Algorithm 1].",
    ),
    (
        "N2",
        "N2",
        "The name of a synthetic noise family (Student-t).",
        "Noise designs N1-N4 of dp_core.data.make_heavy_tailed (ours; docs/l1_exponential.md).",
        "N1",
        "N3",
        "N4",
    ),
    (
        "GD",
        "GD",
        "Gradient descent: fitting a model by many small downhill steps; DP-GD clips and noises every step.",
        "Noisy (clipped) gradient descent, a baseline of the heavy-tailed page (not from the paper).",
    ),
)
