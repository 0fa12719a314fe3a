"""What the shared tables hold for label-DP by aggregation (see :mod:`dp_core.catalog`)."""

from ...glossary import entry

COLORS = {
    "naive_lba": "#999999",
    "naive_llp": "#6B6B6B",
    "wtd_lba": "#E69F00",
    "wtd_llp": "#56B4E9",
    "noisy_wtd_llp": "#D55E00",
    "gaussian_label": "#0072B2",
    "laplace_label": "#CC79A7",
}
LABELS = {
    "naive_lba": "Naive LBA",
    "naive_llp": "Naive LLP",
    "wtd_lba": "Weighted LBA",
    "wtd_llp": "Weighted LLP (no noise)",
    "noisy_wtd_llp": "Noisy weighted LLP",
    "gaussian_label": "Gaussian label noise",
    "laplace_label": "Laplace label noise",
}
_OPTIONS = {"m": 100, "k": 64, "rho": 0.1, "n": 20_000}
AUDIT_ROWS = tuple(
    {
        "mechanism": "label-dp-bags",
        "mode": mode,
        "claim": claim,
        "expected": expected,
        "runs": 2_000,
        "options": _OPTIONS,
    }
    for mode, claim, expected in (
        ("naive-llp", "none", "violation"),
        ("naive-lba", "none", "violation"),
        ("weighted-llp", "none", "violation"),
        ("wtd-lba", "paper", ""),
        ("noisy-wtd-llp", "proof", "consistent"),
        ("noisy-wtd-llp-paper", "paper", ""),
    )
)
PRELOAD = (__package__, f"{__package__}.figures")

_PAGE = "Label-DP by aggregation"
#: This page's symbols in the one glossary (:mod:`dp_core.glossary`; the sources [FTS17], [PR10], [BMS], [WX] are
#: listed there).
GLOSSARY = (
    entry(
        "k",
        "k",
        "Label-DP: how many examples go into one bag; large-margin: the Jacobian term of the claimed ε "
        "or a projection dimension.",
        "[BMS]: bag size, m·k ≤ n; [PR10, Theorem 5.1]: k = ln(1 + 2α/(nλ) + α²/(n²λ²)).",
        _PAGE,
    ),
    entry(
        "k_R",
        "k_R",
        "The smallest bag size k that reaches the requested δ.",
        "Solved from the δ(k) accounting of [BMS] (ours: exact accounting of noisy-wtd-LLP).",
        _PAGE,
    ),
    entry(
        "ρ",
        "rho",
        "Label-DP: the share of labels that get extra noise; large-margin: a bound in the utility bound.",
        "[BMS, noisy-wtd-LLP]: ρ = |N|/n labels receive N(0, 1) noise.",
        _PAGE,
        "ρs²",
    ),
    # ---------------------------------------------------------------- label-DP by aggregation
    entry(
        "m", "m", "The number of bags in label-DP by aggregation.", "m bags of k examples, m·k ≤ n [BMS, §2].", _PAGE
    ),
    entry(
        "s",
        "noise_std",
        "Label-DP: the size (standard deviation) of the noise added to the noisy labels.",
        "noisy-wtd-LLP with labels ỹ = y + N(0, s²) on the noisy set; the paper's Theorem 1.3 uses s = 1, and "
        "a general s acts as the label bound B1/s [BMS, Theorem 1.3; ours].",
        _PAGE,
    ),
    entry(
        "LBA",
        "LBA",
        "Learning from bag aggregates: each bag releases weighted sums of labels and features.",
        "wtd-LBA: x̄_j = Σ w x, ȳ_j = Σ w y, weights secret [BMS, Theorem 1.2].",
        _PAGE,
        "wtd-LBA",
        "naive-lba",
    ),
    entry(
        "LLP",
        "LLP",
        "Learning from label proportions: features are public and only a weighted label sum per bag is released.",
        "noisy-wtd-LLP: ȳ_j = Σ w ỹ with ρn labels noised [BMS, Theorem 1.3].",
        _PAGE,
        "noisy-wtd-LLP",
        "naive-llp",
        "weighted-llp",
    ),
    entry(
        "B1",
        "B1",
        "The largest possible size of a label: every label lies in [−B1, B1].",
        "Label bound [BMS, §2]; the sensitivity of a label is 2·B1. On the ℓ1 page B1 and B2 are baselines.",
        _PAGE,
        "B2",
        "B",
    ),
    entry(
        "r̂",
        "r_hat",
        "The model fitted on the released bags.",
        "Utility ratio val(D, r̂)/opt(D, F) [BMS, Theorem 1.2].",
        _PAGE,
        "‖r*‖",
        "F",
    ),
    entry("Σ", "sum", "A sum over a set of terms.", "Σ over the examples i or the members of a bag.", _PAGE, "Σ_i"),
    entry(
        "w",
        "weights",
        "The model's weights, or a bag member's random weight.",
        "Parameter vector w; [BMS]: aggregation weights w_jr ~ N(0, 1).",
        _PAGE,
        "w_jr",
    ),
)
