"""What the shared tables hold for input perturbation and its baselines (see :mod:`dp_core.catalog`)."""

COLORS = {"input": "#D55E00", "objective": "#0072B2", "output": "#009E73", "dp_sgd": "#E69F00", "dp_gd": "#E69F00"}
LABELS = {
    "input": "Input perturbation",
    "objective": "Objective perturbation",
    "output": "Output perturbation",
    "dp_sgd": "DP-SGD",
    "dp_gd": "DP gradient descent",
}
AUDIT_ROWS = tuple(
    {"mechanism": "input-perturbation", "mode": mode, "claim": "paper", "expected": expected, "runs": runs}
    for mode, expected, runs in (
        ("COR2", "", 20_000),
        ("ALG1", "", 20_000),
        ("CORR", "", 20_000),
        ("LOCAL", "violation", 2_000),
    )
)
PRELOAD = (__package__, f"{__package__}.figures")

#: This page's symbols in the one glossary (:mod:`dp_core.glossary`): (symbol, ASCII name, plain meaning,
#: expert definition with its source, aliases...); the sources [FTS17], [PR10], [BMS], [WX] are listed there.
GLOSSARY_PAGE = "Input perturbation"
GLOSSARY = (
    (
        "ε_run",
        "epsilon_run",
        "The ε a mechanism is actually run with after a budget split (for input perturbation ε_run = α·ε).",
        "[FTS17] Algorithm 1 with the local/central knob α: every formula uses ε_run = αε.",
    ),
    (
        "ε_L",
        "epsilon_local",
        "How private one contributor's own noisy message is (local privacy).",
        "ε_L = 2c√n(λ/σ_u + ζ/σ_b), δ_L = 2δ [FTS17, Corollary 1]; exact level from Gaussian DP with "
        "μ = √(μ_q² + μ_p²) (ours).",
        "δ_L",
    ),
    (
        "ε_q",
        "epsilon_q",
        "The local ε of the quadratic part of a contributor's message.",
        "ε_q = 2cλ√n/σ_u [FTS17, proof of Corollary 1].",
    ),
    (
        "ε_p",
        "epsilon_p",
        "The local ε of the linear part of a contributor's message.",
        "ε_p = 2cζ√n/σ_b [FTS17, proof of Corollary 1].",
    ),
    (
        "‖w‖",
        "norm_w",
        "The size of the fitted model's weights.",
        "Euclidean norm of the parameter vector; the parameter set is the ball ‖w‖ ≤ η [FTS17, §2], [WX].",
        "‖ŵ‖",
        "ŵ",
    ),
    (
        "η",
        "eta",
        "The largest allowed size of the model's weights (input perturbation); on the ℓ1 page, a failure probability.",
        "Radius of the ball {w : ‖w‖ ≤ η} [FTS17, §2]; in the ℓ1 mechanism η is the failure "
        "probability of one proof event, η_total = 5η [WX, §4.2].",
    ),
    # ---------------------------------------------------------------- input perturbation
    (
        "α",
        "alpha",
        "Input perturbation: how the budget is split between the released model (central) and "
        "each contributor's message (local).",
        "ε_run = αε with α ∈ (0, 1] [FTS17, Table 1]; on the ℓ1 page α is "
        "a tail index; in the audit it is a significance level.",
    ),
    (
        "σ_b",
        "sigma_b",
        "How much noise each contributor adds to the linear part of her data (in total over everyone).",
        "σ_b² = ζ²(8 ln(2/δ′) + 4ε_run)/ε_run², the variance of b = Σ r_i [FTS17, Algorithm 1, Step 0].",
        "r_i",
        "std of r_i",
    ),
    (
        "σ_u",
        "sigma_u",
        "How much noise each contributor adds to the quadratic part of her data; it acts like extra regularisation.",
        "σ_u from Corollary 2 (COR2) or Algorithm 1 (ALG1) of [FTS17]; it tends to √(2λ/ε) as n grows.",
        "u_i",
        "std of u_i",
    ),
    (
        "Δ",
        "Delta",
        "The total amount of regularisation (ridge) the private fit uses.",
        "Input perturbation: Δ > 2λ/ε_run, Δ = max(Δ*, 2λ/ε_run) [FTS17, Theorem 1]; large-margin: the extra "
        "ridge of the corrected objective [PR10] with [CMS11, §4].",
    ),
    (
        "Δ*",
        "Delta_star",
        "The amount of regularisation that makes the utility bound smallest.",
        "Δ* = 4ζ√(d(8 ln(4/δ) + 4ε_run))/(ε_run η): equates the first two terms of the Theorem 2 bound "
        "[FTS17, Theorem 2].",
    ),
    (
        "Δ_in",
        "Delta_in",
        "The part of the regularisation the server adds on top of the contributors' noise.",
        "Δ_in = Δ − 2λ/ε_run [FTS17, Algorithm 1].",
    ),
    (
        "ζ",
        "zeta",
        "A bound on how steeply the loss can change with the weights.",
        "Lipschitz constant of the "
        "loss over the ball ‖w‖ ≤ η [FTS17, §2]; in the ℓ1 mechanism the covering radius of the net [WX].",
        "ζ_G",
    ),
    (
        "ζ̃",
        "zeta_tilde",
        "The enlarged ζ of the corrected (conservative) accounting.",
        "Ours: conditioning on the quadratic noise enlarges (λ, ζ) to (λ̃, ζ̃) (problem P2; "
        "docs/input_perturbation.md, conservative accounting).",
        "λ̃",
    ),
    (
        "λ",
        "lambda",
        "A smoothness bound of the loss (input perturbation) or the strength of the regulariser "
        "(large-margin classifier, ridge).",
        "[FTS17]: bound on the Hessian of the loss; [PR10]: trace-regulariser weight, "
        "eq. (6); output perturbation: ridge weight 1/√n.",
    ),
    (
        "λ_min",
        "lambda_min",
        "The smallest eigenvalue of a matrix.",
        "λ_min(M) + Δ_in ≥ 2λ/ε is the event the privacy proof needs [FTS17, Theorem 1 with KST12, Theorem 2].",
    ),
    (
        "γ",
        "gamma",
        "A small failure probability used inside the input-perturbation proof (γ = δ/2).",
        "γ = δ′ = δ/2 [FTS17, Algorithm 1]; on the label-DP page γ̂ is the measured per-example residual.",
        "γ̂",
    ),
    (
        "M",
        "M",
        "The random matrix the contributors' noise adds to the quadratic part.",
        "M is the noisy minus the raw Gram matrix of the quadratic parts [FTS17, proof of Theorem 1]; "
        "on the ℓ1 page the MCMC mode.",
    ),
    (
        "q̃",
        "q_tilde",
        "The noisy quadratic part a contributor sends.",
        "q̃_i = q_i + u_i [FTS17, Algorithm 1].",
        "‖q‖",
        "q_i",
    ),
    (
        "p̃",
        "p_tilde",
        "The noisy linear part a contributor sends.",
        "p̃_i = p_i − r_i [FTS17, Algorithm 1].",
        "‖p‖",
        "p_i",
    ),
    (
        "COR2",
        "COR2",
        "The σ_u formula of the paper's Corollary 2 (the default).",
        "[FTS17, Corollary 2] with γ = δ/2; ALG1 is Algorithm 1's formula, CORR our corrected one.",
        "ALG1",
        "CORR",
    ),
    (
        "ERM",
        "ERM",
        "Empirical risk minimisation: fitting a model by minimising its average loss.",
        "[CMS11, §2]; [FTS17, §2].",
    ),
    (
        "P1",
        "P1",
        "A problem found in a paper's proof, numbered as in docs/input_perturbation.md.",
        "P1: the regulariser depends on the private data; P2: Lemma 7 fails for general data [FTS17, Lemmas 1 and 7].",
        "P2",
    ),
)
