"""What the shared tables hold for the large-margin Gaussian classifier (see :mod:`dp_core.catalog`)."""

COLORS = {"printed": "#CC79A7", "repaired": "#E69F00", "corrected": "#009E73", "lmg_printed": "#CC79A7",
    "lmg_repaired": "#E69F00", "lmg_corrected": "#332288"}  # fmt: skip
LABELS = {"printed": "P: as printed (not differentially private as printed)",
    "repaired": "P+: repaired (not differentially private as printed)", "corrected": "R: corrected",
    "lmg_printed": "Large-margin P: as printed", "lmg_repaired": "Large-margin P+: repaired",
    "lmg_corrected": "Large-margin R: corrected"}  # fmt: skip
AUDIT_ROWS = tuple(
    {"mechanism": "large-margin-gaussian", "mode": mode, "claim": claim, "expected": expected, "runs": runs}
    for mode, claim, expected, runs in (("printed", "paper", "violation", 2_000),
    ("repaired", "paper", "violation", 1_000), ("repaired-psd-off", "paper", "violation", 1_000),
    ("corrected", "proof", "consistent", 1_000)))  # fmt: skip
PRELOAD = (__package__, f"{__package__}.figures")
#: The workers' fork server loads this folder once (its solvers are the slowest import).
WORKER_PRELOAD = (__package__,)

#: This page's symbols in the one glossary (:mod:`dp_core.glossary`): (symbol, ASCII name, plain meaning,
#: expert definition with its source, aliases...); the sources [FTS17], [PR10], [BMS], [WX] are listed there.
GLOSSARY_PAGE = "Large-margin Gaussian classifier"
GLOSSARY = (
    (
        "ε′",
        "epsilon_prime",
        "The total ε the large-margin paper claims after adding the Jacobian term k.",
        "ε′ = ε + k with k = ln(1 + 2α/(nλ) + α²/(n²λ²)) [PR10, Theorem 5.1].",
    ),
    # ---------------------------------------------------------------- large-margin classifier
    (
        "Φ",
        "Phi",
        "The matrix that describes one class's ellipse in the large-margin classifier.",
        "Φ_c ⪰ 0, the (d+1)×(d+1) parameter of class c; prediction argmin_c zᵀΦ_c z [PR10, eq. (4)].",
        "Φ_c",
        "Φ*",
        "Φ*_c",
        "Φ_0",
        "Φᵖ",
        "ΔΦ",
        "Ψ_c",
        "μ_c",
    ),
    (
        "‖Φ*‖_F",
        "frobenius_norm",
        "The size of the non-private solution, which enters the utility bound.",
        "Frobenius norm of Φ* [PR10, Theorem 5.2].",
        "‖Φ_c‖_F",
    ),
    (
        "C",
        "C",
        "The number of classes.",
        "C ≥ 2 classes; C5.3 refers to Corollary 5.3 of [PR10].",
        "C5.3",
    ),
    (
        "μ",
        "mu",
        "Large-margin: how strongly the corrected objective is made strictly convex; input "
        "perturbation: the Gaussian-DP level.",
        "μ/2 Σ‖Φ_c‖_F² (our repair of [PR10, Lemma 2]); Gaussian DP μ = √(μ_q² + μ_p²) (ours).",
        "μ_eff",
        "μ_q",
        "μ_p",
    ),
    (
        "h",
        "h",
        "The width of the smoothed hinge loss of the large-margin classifier.",
        "Huberised hinge ℓ_h with |ℓ_h′| ≤ 1, ℓ_h″ ≤ 1/(2h) [PR10, §3].",
    ),
    (
        "β",
        "beta",
        "The rate of the noise distribution (larger β, less noise).",
        "Large-margin: noise density ∝ exp(−β‖b‖_F), β = (ε spent on the noise)/(2G) (ours, [CMS11]); ℓ1: β = κnι, the "
        "inverse temperature on the truncated loss [WX].",
    ),
    (
        "‖N‖",
        "noise_norm",
        "The size of one draw of the noise matrix.",
        "‖b‖ ~ Gamma((d+1)², 2/ε) [PR10, Lemma 4]; E‖N‖ its mean.",
        "‖b‖",
        "‖b‖_F",
        "N",
    ),
    (
        "G",
        "G",
        "A bound on the gradient of the loss.",
        "Gradient bound of the per-example loss [CMS11, Theorem 6].",
    ),
    (
        "κ",
        "kappa",
        "Large-margin: a bound on the loss's curvature; ℓ1: the inverse temperature of the sampler.",
        "κ = C R_z⁴/(2h) [PR10] corrected; ℓ1 density ∝ exp(−κ S(w)) [WX, Algorithm 1].",
    ),
    (
        "r_J",
        "r_J",
        "How many Jacobian terms the corrected large-margin accounting counts.",
        "Jacobian count of the change of variables in objective perturbation [CMS11, Theorem 9].",
    ),
    (
        "z",
        "z",
        "A point with a constant 1 appended, scaled into the unit ball.",
        "z = (x, 1)/√2 [PR10, §2].",
    ),
    (
        "t",
        "t",
        "A step along a direction (or a trial index).",
        "Used in the unboundedness argument Φ_c + t·vvᵀ.",
    ),
    (
        "v",
        "v",
        "A direction (vector) in the space of matrices.",
        "Eigen-direction with vᵀ(nλI_Φ + sym(b))v < 0 [PR10, objective (9)].",
    ),
    (
        "PSD",
        "PSD",
        "Positive semidefinite: a matrix that describes a proper ellipse.",
        "Φ ⪰ 0; the constrained extension of objective perturbation [KST12].",
    ),
    (
        "Tier U",
        "tier_u",
        "Bounds are shown in tiers, from as printed to usable; Tier U marks the usable ones.",
        "Ours: tiers of the utility bounds of [PR10, Theorems 5.2-5.3].",
        "Tier A",
        "Tier B",
    ),
    (
        "Tier C",
        "tier_c",
        "The corrected utility bounds: valid for the large-margin mechanism that is actually run.",
        "Ours: the repaired statements of [PR10, Theorems 5.2-5.3] for the corrected mechanism.",
    ),
    (
        "k_P",
        "k_printed",
        "The Jacobian term the large-margin paper adds to ε, as printed.",
        "k_P = ln(1 + 2α/(nλ) + α²/(n²λ²)) with α = 1/(2h) [PR10, Theorem 5.1].",
    ),
    (
        "ε_noise",
        "epsilon_noise",
        "The part of the privacy budget left for the noise once the Jacobian term is paid.",
        "ε_noise = ε − k (target semantics, the budget split of [CMS11, Algorithm 2]); the noise rate is "
        "β = ε_noise/(2G).",
    ),
    (
        "L̃",
        "true_risk",
        "The expected loss of a classifier on new data from the same source (its true risk).",
        "L̃(Φ) = E[ℓ_h(Φ; z, y)] over the data distribution [PR10, Theorem 5.3].",
    ),
)
