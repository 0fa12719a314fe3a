"""The app's pages, in navigation order: (file, title, icon, one-line description).

Add a page here (one line); ``app.py`` builds the navigation from this list and the Home page
links to every entry. The guided tour is listed first; Home stays the page a bare link opens
(:data:`DEFAULT_PAGE`), so that links and tests written for Home keep working. Every mechanism
page comes from its plug-in (``Mechanism(page=..., title=..., icon=..., summary=...)`` in
``dp_core/mechanisms/<name>/__init__.py``), before the comparison
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

# every mechanism page comes from its plug-in's declaration (title up to " (authors)"), before the comparison
_at = next(i for i, p in enumerate(PAGES) if p[0] == "pages/compare.py")
PAGES[_at:_at] = [
    (d["page"], d.get("title", d["page"]).split(" (")[0], d.get("icon", "🧩"), d.get("summary", ""))
    for d in declared_pages()
]
