"""One glossary of every symbol and abbreviation the app and the CLI show to people.

Each entry of :data:`GLOSSARY` gives the symbol as it is shown (``ε``, ``σ_b``, ``Δ*``, ``LBA``), an
ASCII name (what the CLI accepts, e.g. ``epsilon``, ``sigma_b``), a plain one-sentence meaning for a
newcomer, the expert definition with the paper and equation it comes from, and the page where it
matters most. The app's tooltips (:func:`tooltip`), the CLI's ``glossary`` command and the help of
the shared ``--eps``/``--delta`` options are all generated from this one table.

:func:`symbols_in` finds the symbol-like tokens of a text (Greek letters with their subscripts,
hats and stars, subscripted Latin letters, single letters used in a formula, abbreviations in
capitals, assumption and tier names); a test checks that every token a page shows has an entry.

References (cited by authors, title and equation)
-------------------------------------------------
* [DR14] C. Dwork and A. Roth, *The Algorithmic Foundations of Differential Privacy*, 2014.
* [BW18] B. Balle and Y.-X. Wang, *Improving the Gaussian Mechanism for Differential Privacy:
  Analytical Calibration and Optimal Denoising*, ICML 2018.
* [FTS17] K. Fukuchi, Q. K. Tran and J. Sakuma, *Differentially Private Empirical Risk Minimization
  with Input Perturbation*, Discovery Science 2017.
* [PR10] M. A. Pathak and B. Raj, *Large Margin Multiclass Gaussian Classification with
  Differential Privacy*, PSDML 2010.
* [BMS] R. Brahmbhatt et al., *Label Differential Privacy via Aggregation*.
* [WX] D. Wang and J. Xu, *On Sparse Linear Regression in the Local Differential Privacy Model* /
  heavy-tailed ℓ1 regression with the exponential mechanism on a truncated loss.
* [KST12] D. Kifer, A. Smith and A. Thakurta, *Private Convex Empirical Risk Minimization and
  High-dimensional Regression*, COLT 2012.
* [CMS11] K. Chaudhuri, C. Monteleoni and A. Sarwate, *Differentially Private Empirical Risk
  Minimization*, JMLR 2011.
* [JUO20] M. Jagielski, J. Ullman and A. Oprea, *Auditing Differentially Private Machine Learning*,
  NeurIPS 2020.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from . import status as _status

__all__ = ["GLOSSARY", "Entry", "as_dicts", "as_markdown", "lookup", "symbols_in", "tooltip", "unknown_symbols"]


@dataclass(frozen=True, slots=True)
class Entry:
    """One glossary entry.

    Attributes
    ----------
    symbol : str
        As shown on the pages (``"σ_b"``).
    name : str
        ASCII name (``"sigma_b"``), accepted by :func:`lookup` and the CLI.
    plain : str
        One sentence for a newcomer.
    expert : str
        The precise definition and where it comes from (paper, equation or theorem).
    page : str
        The page where it matters most (a title of ``ui/pages.py``; ``""`` for general terms).
    aliases : tuple of str
        Other spellings shown on the pages (``"ε_run"`` for the ε a mechanism runs at, ...).
    """

    symbol: str
    name: str
    plain: str
    expert: str
    page: str = ""
    aliases: tuple[str, ...] = ()


_HOME, _IP, _LM, _LB, _L1, _CMP, _AUD, _TOUR = (
    "Home",
    "Input perturbation",
    "Large-margin Gaussian classifier",
    "Label-DP by aggregation",
    "Heavy-tailed ℓ1 regression",
    "Compare and negotiate",
    "Privacy audit",
    "Start here",
)


def _e(symbol, name, plain, expert, page="", *aliases):
    return Entry(symbol, name, plain, expert, page, tuple(aliases))


GLOSSARY: tuple[Entry, ...] = (
    # ---------------------------------------------------------------- the privacy budget
    _e(
        "ε",
        "epsilon",
        "The privacy budget: smaller ε means stronger privacy and more noise; whatever is learned "
        "about one person can change by a factor of at most e^ε.",
        "A mechanism M is (ε, δ)-differentially private if P[M(D) ∈ S] ≤ e^ε P[M(D′) ∈ S] + δ for all neighbouring "
        "D, D′ and all events S [DR14, Definition 2.4].",
        _HOME,
        "eps",
        "e^ε",
    ),
    _e(
        "δ",
        "delta",
        "The small probability that the ε promise may fail; keep it far below 1/n.",
        "The additive slack of (ε, δ)-differential privacy [DR14, Definition 2.4]; δ ≥ 1/n would allow publishing "
        "one whole record.",
        _HOME,
        "δ′",
    ),
    _e(
        "ε_run",
        "epsilon_run",
        "The ε a mechanism is actually run with after a budget split (for input perturbation ε_run = α·ε).",
        "[FTS17] Algorithm 1 with the local/central knob α: every formula uses ε_run = αε.",
        _IP,
    ),
    _e(
        "ε′",
        "epsilon_prime",
        "The total ε the large-margin paper claims after adding the Jacobian term k.",
        "ε′ = ε + k with k = ln(1 + 2α/(nλ) + α²/(n²λ²)) [PR10, Theorem 5.1].",
        _LM,
    ),
    _e(
        "ε_L",
        "epsilon_local",
        "How private one contributor's own noisy message is (local privacy).",
        "ε_L = 2c√n(λ/σ_u + ζ/σ_b), δ_L = 2δ [FTS17, Corollary 1]; exact level from Gaussian DP with "
        "μ = √(μ_q² + μ_p²) (ours).",
        _IP,
        "δ_L",
    ),
    _e(
        "ε_q",
        "epsilon_q",
        "The local ε of the quadratic part of a contributor's message.",
        "ε_q = 2cλ√n/σ_u [FTS17, proof of Corollary 1].",
        _IP,
    ),
    _e(
        "ε_p",
        "epsilon_p",
        "The local ε of the linear part of a contributor's message.",
        "ε_p = 2cζ√n/σ_b [FTS17, proof of Corollary 1].",
        _IP,
    ),
    _e(
        "e",
        "euler",
        "Euler's number 2.718…; e^ε is the largest factor by which odds can change.",
        "Base of the natural logarithm in the definition of (ε, δ)-DP [DR14, Definition 2.4].",
        _HOME,
    ),
    _e(
        "DP",
        "differential_privacy",
        "Differential privacy: a promise that the result barely depends on any one person's record.",
        "(ε, δ)-differential privacy [DR14, Definition 2.4]; label-DP protects the labels "
        "only, local DP protects each contributor's message.",
        _HOME,
        "label-DP",
        "GDP",
    ),
    _e(
        "σ",
        "sigma",
        "The standard deviation of the Gaussian noise added to a result.",
        "Gaussian mechanism: σ from the analytic calibration [BW18, Theorem 8] or the classic "
        "σ = Δ₂√(2 ln(1.25/δ))/ε, valid for ε ≤ 1 [DR14, Theorem A.1].",
        _HOME,
    ),
    _e(
        "b",
        "laplace_scale",
        "The scale of Laplace noise (its standard deviation is √2·b); also the noise "
        "matrix or vector added to an objective.",
        "Laplace mechanism b = Δ₁/ε [DR14, Theorem 3.6]; in objective "
        "perturbation b is the random linear term [CMS11, Algorithm 2], [PR10, eq. (9)].",
        _HOME,
    ),
    _e(
        "Δ₁",
        "sensitivity",
        "How much one person can change the result before noise is added.",
        "ℓ1 or ℓ2 sensitivity: the largest change of f between neighbouring datasets [DR14, Definition 3.1].",
        _TOUR,
        "Δ₂",
        "Δu",
        "Δ_u",
    ),
    _e(
        "D",
        "dataset",
        "The dataset; D and D′ are two neighbouring datasets that differ in one person's record.",
        "Neighbouring datasets (replace-one or add/remove) in the definition of DP [DR14, §2.3].",
        _AUD,
        "D′",
        "p_D",
        "Φ*_D",
    ),
    _e(
        "n",
        "n",
        "The number of rows (people) in the data.",
        "Training-set size, public [FTS17, §2]; all bounds are stated in n.",
        _HOME,
    ),
    _e(
        "d",
        "d",
        "The number of features (columns used to predict).",
        "Dimension of the feature vector x (and of the parameter w).",
        _HOME,
    ),
    _e("x", "x", "One person's features.", "Feature vector x ∈ R^d, usually scaled so that ‖x‖ ≤ 1.", _HOME),
    _e("y", "y", "One person's label (what is predicted).", "Label y, bounded |y| ≤ 1 or |y| ≤ B1.", _HOME),
    _e(
        "‖x‖",
        "norm_x",
        "The length of a row of features; mechanisms need it bounded, usually ‖x‖ ≤ 1.",
        "Euclidean norm ‖x‖₂; the bound must be public, not read from the data [DR14, §3.3].",
        _HOME,
    ),
    _e(
        "‖w‖",
        "norm_w",
        "The size of the fitted model's weights.",
        "Euclidean norm of the parameter vector; the parameter set is the ball ‖w‖ ≤ η [FTS17, §2], [WX].",
        _IP,
        "‖ŵ‖",
        "ŵ",
    ),
    _e(
        "η",
        "eta",
        "The largest allowed size of the model's weights (input perturbation); on the ℓ1 page, a failure probability.",
        "Radius of the ball {w : ‖w‖ ≤ η} [FTS17, §2]; in the ℓ1 mechanism η is the failure "
        "probability of one proof event, η_total = 5η [WX, §4.2].",
        _IP,
    ),
    _e(
        "η_total",
        "eta_total",
        "The probability that the utility bound of the ℓ1 mechanism fails.",
        "η_total = 5η, the union of the five events of the utility proof [WX, §4.2].",
        _L1,
    ),
    # ---------------------------------------------------------------- input perturbation
    _e(
        "α",
        "alpha",
        "Input perturbation: how the budget is split between the released model (central) and "
        "each contributor's message (local).",
        "ε_run = αε with α ∈ (0, 1] [FTS17, Table 1]; on the ℓ1 page α is "
        "a tail index; in the audit it is a significance level.",
        _IP,
    ),
    _e(
        "σ_b",
        "sigma_b",
        "How much noise each contributor adds to the linear part of her data (in total over everyone).",
        "σ_b² = ζ²(8 ln(2/δ′) + 4ε_run)/ε_run², the variance of b = Σ r_i [FTS17, Algorithm 1, Step 0].",
        _IP,
        "r_i",
        "std of r_i",
    ),
    _e(
        "σ_u",
        "sigma_u",
        "How much noise each contributor adds to the quadratic part of her data; it acts like extra regularisation.",
        "σ_u from Corollary 2 (COR2) or Algorithm 1 (ALG1) of [FTS17]; it tends to √(2λ/ε) as n grows.",
        _IP,
        "u_i",
        "std of u_i",
    ),
    _e(
        "Δ",
        "Delta",
        "The total amount of regularisation (ridge) the private fit uses.",
        "Input perturbation: Δ > 2λ/ε_run, Δ = max(Δ*, 2λ/ε_run) [FTS17, Theorem 1]; large-margin: the extra "
        "ridge of the corrected objective [PR10] with [CMS11, §4].",
        _IP,
    ),
    _e(
        "Δ*",
        "Delta_star",
        "The amount of regularisation that makes the utility bound smallest.",
        "Δ* = 4ζ√(d(8 ln(4/δ) + 4ε_run))/(ε_run η): equates the first two terms of the Theorem 2 bound "
        "[FTS17, Theorem 2].",
        _IP,
    ),
    _e(
        "Δ_in",
        "Delta_in",
        "The part of the regularisation the server adds on top of the contributors' noise.",
        "Δ_in = Δ − 2λ/ε_run [FTS17, Algorithm 1].",
        _IP,
    ),
    _e(
        "ζ",
        "zeta",
        "A bound on how steeply the loss can change with the weights.",
        "Lipschitz constant of the "
        "loss over the ball ‖w‖ ≤ η [FTS17, §2]; in the ℓ1 mechanism the covering radius of the net [WX].",
        _IP,
        "ζ_G",
    ),
    _e(
        "ζ̃",
        "zeta_tilde",
        "The enlarged ζ of the corrected (conservative) accounting.",
        "Ours: conditioning on the quadratic noise enlarges (λ, ζ) to (λ̃, ζ̃) (specification P2).",
        _IP,
        "λ̃",
    ),
    _e(
        "λ",
        "lambda",
        "A smoothness bound of the loss (input perturbation) or the strength of the regulariser "
        "(large-margin classifier, ridge).",
        "[FTS17]: bound on the Hessian of the loss; [PR10]: trace-regulariser weight, "
        "eq. (6); output perturbation: ridge weight 1/√n.",
        _IP,
    ),
    _e(
        "λ_min",
        "lambda_min",
        "The smallest eigenvalue of a matrix.",
        "λ_min(M) + Δ_in ≥ 2λ/ε is the event the privacy proof needs [FTS17, Theorem 1 with KST12, Theorem 2].",
        _IP,
    ),
    _e(
        "γ",
        "gamma",
        "A small failure probability used inside the input-perturbation proof (γ = δ/2).",
        "γ = δ′ = δ/2 [FTS17, Algorithm 1]; on the label-DP page γ̂ is the measured per-example residual.",
        _IP,
        "γ̂",
    ),
    _e(
        "M",
        "M",
        "The random matrix the contributors' noise adds to the quadratic part.",
        "M is the noisy minus the raw Gram matrix of the quadratic parts [FTS17, proof of Theorem 1]; "
        "on the ℓ1 page the MCMC mode.",
        _IP,
    ),
    _e(
        "q̃",
        "q_tilde",
        "The noisy quadratic part a contributor sends.",
        "q̃_i = q_i + u_i [FTS17, Algorithm 1].",
        _IP,
        "‖q‖",
        "q_i",
    ),
    _e(
        "p̃",
        "p_tilde",
        "The noisy linear part a contributor sends.",
        "p̃_i = p_i − r_i [FTS17, Algorithm 1].",
        _IP,
        "‖p‖",
        "p_i",
    ),
    _e(
        "COR2",
        "COR2",
        "The σ_u formula of the paper's Corollary 2 (the default).",
        "[FTS17, Corollary 2] with γ = δ/2; ALG1 is Algorithm 1's formula, CORR our corrected one.",
        _IP,
        "ALG1",
        "CORR",
    ),
    _e(
        "LOCAL",
        "LOCAL",
        "The audit mode that tests one contributor's local privacy claim.",
        "Audits ε_L of [FTS17, Corollary 1] on one contributor's message.",
        _AUD,
    ),
    _e(
        "ERM",
        "ERM",
        "Empirical risk minimisation: fitting a model by minimising its average loss.",
        "[CMS11, §2]; [FTS17, §2].",
        _IP,
    ),
    _e(
        "P1",
        "P1",
        "A problem found in a paper's proof, numbered as in the project's specification.",
        "P1: the regulariser depends on the private data; P2: Lemma 7 fails for general data [FTS17, Lemmas 1 and 7].",
        _IP,
        "P2",
    ),
    # ---------------------------------------------------------------- large-margin classifier
    _e(
        "Φ",
        "Phi",
        "The matrix that describes one class's ellipse in the large-margin classifier.",
        "Φ_c ⪰ 0, the (d+1)×(d+1) parameter of class c; prediction argmin_c zᵀΦ_c z [PR10, eq. (4)].",
        _LM,
        "Φ_c",
        "Φ*",
        "Φ*_c",
        "Φ_0",
        "Φᵖ",
        "ΔΦ",
        "Ψ_c",
        "μ_c",
    ),
    _e(
        "‖Φ*‖_F",
        "frobenius_norm",
        "The size of the non-private solution, which enters the utility bound.",
        "Frobenius norm of Φ* [PR10, Theorem 5.2].",
        _LM,
        "‖Φ_c‖_F",
    ),
    _e("C", "C", "The number of classes.", "C ≥ 2 classes; C5.3 refers to Corollary 5.3 of [PR10].", _LM, "C5.3"),
    _e(
        "k",
        "k",
        "Label-DP: how many examples go into one bag; large-margin: the Jacobian term of the claimed ε "
        "or a projection dimension.",
        "[BMS]: bag size, m·k ≤ n; [PR10, Theorem 5.1]: k = ln(1 + 2α/(nλ) + α²/(n²λ²)).",
        _LB,
    ),
    _e(
        "k_R",
        "k_R",
        "The smallest bag size k that reaches the requested δ.",
        "Solved from the δ(k) accounting of [BMS] (ours: exact accounting of noisy-wtd-LLP).",
        _LB,
    ),
    _e(
        "μ",
        "mu",
        "Large-margin: how strongly the corrected objective is made strictly convex; input "
        "perturbation: the Gaussian-DP level.",
        "μ/2 Σ‖Φ_c‖_F² (our repair of [PR10, Lemma 2]); Gaussian DP μ = √(μ_q² + μ_p²) (ours).",
        _LM,
        "μ_eff",
        "μ_q",
        "μ_p",
    ),
    _e(
        "h",
        "h",
        "The width of the smoothed hinge loss of the large-margin classifier.",
        "Huberised hinge ℓ_h with |ℓ_h′| ≤ 1, ℓ_h″ ≤ 1/(2h) [PR10, §3].",
        _LM,
    ),
    _e(
        "β",
        "beta",
        "The rate of the noise distribution (larger β, less noise).",
        "Large-margin: noise density ∝ exp(−β‖b‖_F), β = (ε spent on the noise)/(2G) (ours, [CMS11]); ℓ1: β = κnι, the "
        "inverse temperature on the truncated loss [WX].",
        _LM,
    ),
    _e(
        "‖N‖",
        "noise_norm",
        "The size of one draw of the noise matrix.",
        "‖b‖ ~ Gamma((d+1)², 2/ε) [PR10, Lemma 4]; E‖N‖ its mean.",
        _LM,
        "‖b‖",
        "‖b‖_F",
        "N",
    ),
    _e(
        "G",
        "G",
        "A bound on the gradient of the loss.",
        "Gradient bound of the per-example loss [CMS11, Theorem 6].",
        _LM,
    ),
    _e(
        "κ",
        "kappa",
        "Large-margin: a bound on the loss's curvature; ℓ1: the inverse temperature of the sampler.",
        "κ = C R_z⁴/(2h) [PR10] corrected; ℓ1 density ∝ exp(−κ S(w)) [WX, Algorithm 1].",
        _LM,
    ),
    _e(
        "ρ",
        "rho",
        "Label-DP: the share of labels that get extra noise; large-margin: a bound in the utility bound.",
        "[BMS, noisy-wtd-LLP]: ρ = |N|/n labels receive N(0, 1) noise.",
        _LB,
        "ρs²",
    ),
    _e(
        "r_J",
        "r_J",
        "How many Jacobian terms the corrected large-margin accounting counts.",
        "Jacobian count of the change of variables in objective perturbation [CMS11, Theorem 9].",
        _LM,
    ),
    _e("z", "z", "A point with a constant 1 appended, scaled into the unit ball.", "z = (x, 1)/√2 [PR10, §2].", _LM),
    _e(
        "t", "t", "A step along a direction (or a trial index).", "Used in the unboundedness argument Φ_c + t·vvᵀ.", _LM
    ),
    _e(
        "v",
        "v",
        "A direction (vector) in the space of matrices.",
        "Eigen-direction with vᵀ(nλI_Φ + sym(b))v < 0 [PR10, objective (9)].",
        _LM,
    ),
    _e(
        "PSD",
        "PSD",
        "Positive semidefinite: a matrix that describes a proper ellipse.",
        "Φ ⪰ 0; the constrained extension of objective perturbation [KST12].",
        _LM,
    ),
    _e(
        "Tier U",
        "tier_u",
        "Bounds are shown in tiers, from as printed to usable; Tier U marks the usable ones.",
        "Ours: tiers of the utility bounds of [PR10, Theorems 5.2-5.3].",
        _LM,
        "Tier A",
        "Tier B",
    ),
    _e(
        "Tier C",
        "tier_c",
        "The corrected utility bounds: valid for the large-margin mechanism that is actually run.",
        "Ours: the repaired statements of [PR10, Theorems 5.2-5.3] for the corrected mechanism.",
        _LM,
    ),
    _e(
        "k_P",
        "k_printed",
        "The Jacobian term the large-margin paper adds to ε, as printed.",
        "k_P = ln(1 + 2α/(nλ) + α²/(n²λ²)) with α = 1/(2h) [PR10, Theorem 5.1].",
        _LM,
    ),
    _e(
        "ε_noise",
        "epsilon_noise",
        "The part of the privacy budget left for the noise once the Jacobian term is paid.",
        "ε_noise = ε − k (target semantics, the budget split of [CMS11, Algorithm 2]); the noise rate is "
        "β = ε_noise/(2G).",
        _LM,
    ),
    _e(
        "L̃",
        "true_risk",
        "The expected loss of a classifier on new data from the same source (its true risk).",
        "L̃(Φ) = E[ℓ_h(Φ; z, y)] over the data distribution [PR10, Theorem 5.3].",
        _LM,
    ),
    # ---------------------------------------------------------------- label-DP by aggregation
    _e("m", "m", "The number of bags in label-DP by aggregation.", "m bags of k examples, m·k ≤ n [BMS, §2].", _LB),
    _e(
        "s",
        "noise_std",
        "Label-DP: the size (standard deviation) of the noise added to the noisy labels.",
        "noisy-wtd-LLP with labels ỹ = y + N(0, s²) on the noisy set; the paper's Theorem 1.3 uses s = 1, and "
        "a general s acts as the label bound B1/s [BMS, Theorem 1.3; ours].",
        _LB,
    ),
    _e(
        "LBA",
        "LBA",
        "Learning from bag aggregates: each bag releases weighted sums of labels and features.",
        "wtd-LBA: x̄_j = Σ w x, ȳ_j = Σ w y, weights secret [BMS, Theorem 1.2].",
        _LB,
        "wtd-LBA",
        "naive-lba",
    ),
    _e(
        "LLP",
        "LLP",
        "Learning from label proportions: features are public and only a weighted label sum per bag is released.",
        "noisy-wtd-LLP: ȳ_j = Σ w ỹ with ρn labels noised [BMS, Theorem 1.3].",
        _LB,
        "noisy-wtd-LLP",
        "naive-llp",
        "weighted-llp",
    ),
    _e(
        "B1",
        "B1",
        "The largest possible size of a label: every label lies in [−B1, B1].",
        "Label bound [BMS, §2]; the sensitivity of a label is 2·B1. On the ℓ1 page B1 and B2 are baselines.",
        _LB,
        "B2",
        "B",
    ),
    _e(
        "r̂",
        "r_hat",
        "The model fitted on the released bags.",
        "Utility ratio val(D, r̂)/opt(D, F) [BMS, Theorem 1.2].",
        _LB,
        "‖r*‖",
        "F",
    ),
    _e(
        "θ",
        "theta",
        "ℓ1 page: the moment order of the heavy tails (1 < θ ≤ 2); label-DP: an accuracy parameter.",
        "[WX, Assumptions A3-A4]: E‖x‖^θ ≤ τ^θ; the sensitivity of S is log θ.",
        _L1,
    ),
    _e("Σ", "sum", "A sum over a set of terms.", "Σ over the examples i or the members of a bag.", _LB, "Σ_i"),
    _e(
        "w",
        "weights",
        "The model's weights, or a bag member's random weight.",
        "Parameter vector w; [BMS]: aggregation weights w_jr ~ N(0, 1).",
        _LB,
        "w_jr",
    ),
    # ---------------------------------------------------------------- heavy-tailed l1
    _e(
        "ι",
        "iota",
        "How far the loss is truncated: residuals beyond 1/ι stop counting.",
        "Truncation scale of ψ_θ(ι|y − ⟨x, w⟩|) [WX, §2.1]; ι* minimises the explicit bound.",
        _L1,
        "ι*",
        "1/ι",
    ),
    _e("ψ", "psi", "The truncated loss that caps the influence of outliers.", "ψ_θ [WX, §2.1].", _L1, "ψ_θ"),
    _e("τ", "tau", "A public bound on the moments of the features.", "E‖x‖^θ ≤ τ^θ [WX, Assumptions A1-A4].", _L1),
    _e("σ_θ", "sigma_theta", "A public bound on the moments of the noise.", "[WX, Theorem 2].", _L1),
    _e(
        "A1",
        "A1",
        "One of four assumptions on how heavy the feature tails are.",
        "A1/A2: second moment of ‖x‖ or of each coordinate; A3/A4: θ-th moment [WX, Theorems 1-2].",
        _L1,
        "A2",
        "A3",
        "A4",
    ),
    _e(
        "ν",
        "nu",
        "The tail index of a feature distribution (smaller ν, heavier tails).",
        "Student-t degrees of freedom / Pareto index of the synthetic designs (ours).",
        _L1,
    ),
    _e(
        "c",
        "c",
        "A multiplier (ι = c·ι*), or the Gaussian-mechanism constant.",
        "[FTS17, Corollary 1]: c > √(2 ln(1.25/δ)).",
        _L1,
        "C_x",
        "C_y",
    ),
    _e("q", "q", "A quantile or a quadratic feature map.", "[FTS17]: q(x, y) ∈ R^d, the quadratic part.", _L1),
    _e(
        "R",
        "R",
        "The radius of the parameter set of the ℓ1 mechanism.",
        "Parameter set {‖w‖ ≤ R}, diameter 2R [WX].",
        _L1,
        "R_z",
    ),
    _e(
        "MCMC",
        "MCMC",
        "A random-walk sampler used when the exact grid is too large; approximate, so its guarantee is not proved.",
        "Markov chain Monte Carlo; here MALA (Metropolis-adjusted Langevin).",
        _L1,
        "MALA",
    ),
    _e("LAD", "LAD", "Least absolute deviations: the non-private median regression.", "argmin Σ|y − ⟨x, w⟩|.", _L1),
    _e(
        "MAE",
        "MAE",
        "Mean absolute error: the average size of a prediction's miss, in the target's units (smaller is better).",
        "MAE(w) = the mean of |y − ⟨x, w⟩| over the held-out rows: the ℓ1 loss the mechanism minimises [WX, §1]. "
        "Also a negotiation target on Compare (regression, in the target's original units), answered from the "
        "measured curves only: no mechanism here has a bound on it.",
        _L1,
    ),
    _e(
        "EM",
        "EM",
        "The exponential mechanism: pick an answer at random, better answers more likely.",
        "[DR14, §3.4]; here on the truncated ℓ1 loss [WX, Algorithm 1].",
        _L1,
    ),
    _e(
        "N2",
        "N2",
        "The name of a synthetic noise family (Student-t).",
        "Noise designs N1-N4 of the specification (ours).",
        _L1,
        "N1",
        "N3",
        "N4",
    ),
    _e(
        "R̂",
        "R_hat",
        "A convergence check of MCMC chains: close to 1 means the chains agree.",
        "Rank-normalised split R̂ (Vehtari et al. 2021); threshold R̂ ≤ 1.05.",
        _CMP,
    ),
    _e(
        "ESS",
        "ESS",
        "Effective sample size: how many independent draws the MCMC chains are worth.",
        "Bulk ESS (Vehtari et al. 2021); threshold ESS ≥ 100.",
        _CMP,
    ),
    # ---------------------------------------------------------------- compare, audit, general
    _e("OLS", "OLS", "Ordinary least squares: the plain linear regression.", "argmin Σ(y − ⟨x, w⟩)².", _CMP),
    _e(
        "GD",
        "GD",
        "Gradient descent: fitting a model by many small downhill steps; DP-GD clips and noises every step.",
        "Noisy (clipped) gradient descent, a baseline of the heavy-tailed page (not from the paper).",
        _L1,
    ),
    _e(
        "L2",
        "L2",
        "The usual (Euclidean) length of a vector.",
        "ℓ2 norm; L2 sensitivity [DR14, Definition 3.8].",
        _CMP,
        "ℓ2",
        "ℓ1",
    ),
    _e(
        "R²",
        "r2",
        "How much of the target's variation a model explains (1 is perfect).",
        "Coefficient of determination on held-out data.",
        _CMP,
    ),
    _e(
        "TPR_low",
        "TPR_low",
        "The audit's lower confidence limit on how often the test spots dataset D.",
        "Clopper-Pearson bound; ε ≥ ln((TPR_low − δ)/FPR_high) [JUO20, Algorithm 2].",
        _AUD,
        "FPR_high",
        "TPR",
        "FPR",
    ),
    _e(
        "BW18",
        "references",
        "A reference to a paper by its authors' initials and year (BW18: Balle and Wang 2018).",
        "The references listed in the docstring of dp_core.glossary: BW18, DR14, FTS17, PR10, BMS, WX, "
        "KST12, CMS11, JUO20.",
        _AUD,
        "DR14",
        "KST12",
        "CMS11",
        "CMS",
        "FTS17",
        "PR10",
        "BMS",
        "WX",
        "JUO20",
    ),
    _e(
        "IPUMS",
        "IPUMS",
        "A public census-data archive; the census demo is synthetic data shaped like it.",
        "The Integrated Public Use Microdata Series extract used by [FTS17, §6].",
        _HOME,
    ),
    _e(
        "JSON",
        "JSON",
        "A plain-text file format for settings and results.",
        "A standard text format for structured data.",
        _CMP,
        "CSV",
        "HTML",
    ),
)


#: Where each status comes from (the expert side of the status entries; plain side: :data:`dp_core.status.DEFINITIONS`).
_STATUS_EXPERT = {
    _status.PROVED: "A theorem of the paper or of the project's specification covers the exact (ε, δ) and "
    "sampler that run, with δ ≤ 1/n [DR14, §2.3]; an audit that finds no violation is supporting evidence only.",
    _status.PROVED_WEAK: "As proved, but δ > 1/n or δ ≥ 1: the guarantee allows publishing about one whole "
    "record [DR14, §2.3].",
    _status.CLAIMED: "The paper's theorem as printed; not re-derived in the specification (docs/audit.md).",
    _status.AUDITED: "A seeded audit [JUO20, Algorithm 2] found an ε lower bound not above the claimed ε; "
    "a lower bound cannot show a guarantee holds.",
    _status.REFUTED: "A counterexample in the specification or an audit lower bound above the claimed ε "
    "[JUO20, Algorithm 2] shows the claim false.",
}

GLOSSARY = GLOSSARY + tuple(
    _e(s, s.split(":")[0].replace(" ", "_"), _status.DEFINITIONS[s], _STATUS_EXPERT[s], _AUD) for s in _status.STATUSES
)

# ------------------------------------------------------------------ symbol extraction
_GREEK = "α-ωΑ-Ωϑϕϵϰ"
_MODS = "\u0302\u0303\u0304*′'ᵖᵀ"  # combining hat, tilde, bar; star, primes, superscript p, transpose
_SUB = r"(?:_\{?[A-Za-z0-9]+\}?)"
_TOKEN = re.compile(
    "|".join(
        [
            # Greek letter (optionally after a Δ as in ΔΦ), with hats, stars, primes and subscripts
            rf"(?P<greek>[{_GREEK}][{_MODS}]*{_SUB}?[{_MODS}]*{_SUB}?)",
            # a norm written with double bars: ‖x‖, ‖w‖, ‖Φ*‖_F
            r"(?P<norm>‖[^‖\s]{1,8}‖(?:_F)?)",
            # Latin letter with a hat or tilde (R̂, ŵ) or a subscript (k_R, r_J, TPR_low)
            rf"(?<![\w\\/.-])(?P<latin>[A-Za-z][\u0302\u0303]|[ŵŷ]|[A-Za-z]{_SUB}|[A-Z]{{2,}}{_SUB})(?![\w/])",
            # abbreviations in capitals (LBA, LLP, ESS, MCMC, COR2) and numbered names (A3, B1, C5.3)
            r"(?<![\w\\/.=&?])(?P<caps>[A-Z][A-Z0-9]*[A-Z][A-Z0-9]*|[A-Z]\d+(?:\.\d+)*)(?![\w/=])",
            # tiers
            r"(?P<tier>\bTier [A-Z0-9]+\b)",
            # a single Latin letter used in a formula: "n = 16,000", "d > k", "k ≤ n/m", "(k, m, ρ)"
            r"(?<![\w\\/.'’-])(?P<single>[A-Za-z])(?=\s*(?:[=≤≥<>≈×·]|\)|,\s*[A-Za-z{_GREEK}]\W))",
        ]
    )
)
#: Words in capitals that are ordinary words, not symbols.
_NOT_SYMBOLS = {"I", "A", "OK"}
_CODE = re.compile(r"```.*?```|`[^`]*`", re.S)
_LINK_TARGET = re.compile(r"\]\([^)]*\)")
_EMPHASIS = re.compile(r"\*\*|__|\\")


def _clean(text: str) -> str:
    """Remove what is not prose: code spans and blocks, link targets, bold markers and escapes."""
    text = _CODE.sub(" ", text)
    text = _LINK_TARGET.sub("] ", text)
    return _EMPHASIS.sub("", text)


def _norm(symbol: str) -> str:
    s = unicodedata.normalize("NFC", str(symbol).strip())
    s = s.replace("{", "").replace("}", "").replace("’", "′").replace("'", "′")
    return s


def symbols_in(text: str) -> set[str]:
    """The symbol-like tokens of ``text`` (Markdown as the pages write it), normalised.

    >>> sorted(symbols_in("With ε = 1 and σ_b = 2, the LBA bound for k_R holds (‖x‖ ≤ 1)."))
    ['LBA', 'k_R', 'ε', 'σ_b', '‖x‖']
    """
    found: set[str] = set()
    for m in _TOKEN.finditer(_clean(str(text))):
        tok = m.group(0)
        if m.lastgroup == "greek":
            tok = tok.rstrip("'")
        if m.lastgroup == "caps" and tok in _NOT_SYMBOLS:
            continue
        found.add(_norm(tok))
    return found


_INDEX: dict[str, Entry] | None = None


def _index() -> dict[str, Entry]:
    global _INDEX
    if _INDEX is None:
        idx: dict[str, Entry] = {}
        for e in GLOSSARY:
            for key in (e.symbol, e.name, *e.aliases):
                k = _norm(key)
                if k in idx and idx[k] is not e:
                    raise RuntimeError(f"glossary key {key!r} is used by two entries")
                idx[k] = e
        _INDEX = idx
    return _INDEX


def lookup(symbol: str) -> Entry | None:
    """The entry of ``symbol`` (as shown, its ASCII name or an alias), or ``None`` when there is none.

    Symbols and aliases must match exactly (after Unicode normalisation); ASCII names in any case.
    """
    if not isinstance(symbol, str):
        raise TypeError(f"symbol must be a string, got {type(symbol).__name__}.")
    idx = _index()
    key = _norm(symbol)
    if key in idx:
        return idx[key]
    for e in GLOSSARY:  # ASCII names in any case ("Epsilon", "SIGMA_B")
        if e.name.lower() == key.lower():
            return e
    return None


def tooltip(symbol: str) -> str:
    """A short text for a Streamlit ``help=``: ``"σ_b — plain meaning (source)"``.

    Raises ``KeyError`` for a symbol without an entry (a page must not show an unexplained symbol).
    """
    e = lookup(symbol)
    if e is None:
        raise KeyError(f"{symbol!r} has no glossary entry: add one to dp_core.glossary.GLOSSARY.")
    return f"{e.symbol} — {e.plain}"


def unknown_symbols(text: str) -> list[str]:
    """The symbol-like tokens of ``text`` that have no glossary entry (sorted)."""
    return sorted(s for s in symbols_in(text) if lookup(s) is None)


def as_dicts(entries=None) -> list[dict[str, object]]:
    """The entries as plain dictionaries (for JSON and tables)."""
    return [
        {
            "symbol": e.symbol,
            "name": e.name,
            "plain": e.plain,
            "expert": e.expert,
            "page": e.page,
            "aliases": list(e.aliases),
        }
        for e in (GLOSSARY if entries is None else entries)
    ]


def _md_cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def as_markdown(entries=None) -> str:
    """The glossary as one Markdown table (symbol, meaning, definition and source, page)."""
    lines = ["| Symbol | Meaning | Definition and source | Page |", "|---|---|---|---|"]
    for e in GLOSSARY if entries is None else entries:
        shown = e.symbol + (f" ({', '.join(e.aliases)})" if e.aliases else "")
        lines.append(f"| {_md_cell(shown)} | {_md_cell(e.plain)} | {_md_cell(e.expert)} | {_md_cell(e.page)} |")
    return "\n".join(lines)
