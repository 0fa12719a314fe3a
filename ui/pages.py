"""The app's pages, in navigation order: (file, title, icon, one-line description).

Add a page here (one line); ``app.py`` builds the navigation from this list and the Home page
links to every entry. The guided tour is listed first; Home stays the page a bare link opens
(:data:`DEFAULT_PAGE`), so that links and tests written for Home keep working. A mechanism
plug-in's page (``Mechanism(page=..., title=..., icon=..., summary=...)`` in
``dp_core/mechanisms/<name>/__init__.py``) is added without an edit here, before the comparison
(:func:`dp_core.registry.declared_pages`, read without importing the mechanism).
"""

from dp_core.registry import declared_pages

DEFAULT_PAGE = "pages/home.py"
TOUR_PAGE = "pages/start_here.py"

PAGES = [
    (
        TOUR_PAGE,
        "Start here",
        "🧭",
        "A guided tour in six steps: what ε means, noise, accuracy, local privacy, audits.",
    ),
    ("pages/home.py", "Home", "🏠", "Pick a dataset and the privacy budget; what epsilon and delta mean."),
    (
        "pages/input_perturbation.py",
        "Input perturbation",
        "🧮",
        "DP-ERM where every contributor noises her own record (Fukuchi et al. 2017).",
    ),
    (
        "pages/large_margin_gaussian.py",
        "Large-margin Gaussian classifier",
        "🎯",
        "Multiclass Gaussian classifier with objective perturbation: printed, repaired and corrected (Pathak & Raj).",
    ),
    (
        "pages/label_dp_bags.py",
        "Label-DP by aggregation",
        "🎒",
        "Label privacy from random weighted bag sums: k, m and ρ (Brahmbhatt et al.).",
    ),
    (
        "pages/l1_exponential.py",
        "Heavy-tailed ℓ1 regression",
        "🦎",
        "Private median regression without clipping: the exponential mechanism on a truncated ℓ1 loss (Wang & Xu).",
    ),
    (
        "pages/compare.py",
        "Compare and negotiate",
        "⚖️",
        "Every mechanism on one chart, the privacy budget card, the smallest ε meeting a target; share and export.",
    ),
    (
        "pages/audit.py",
        "Privacy audit",
        "🔍",
        "Run a mechanism on two neighbouring datasets and measure a lower bound on its ε: does the claim hold?",
    ),
]

# mechanism pages declared by plug-ins and not listed above go before "Compare and negotiate"
_listed = {p[0] for p in PAGES}
_at = next((i for i, p in enumerate(PAGES) if p[0] == "pages/compare.py"), len(PAGES))
PAGES[_at:_at] = [
    (d["page"], d.get("title", d["page"]), d.get("icon", "🧩"), d.get("summary", ""))
    for d in declared_pages()
    if d["page"] not in _listed
]
