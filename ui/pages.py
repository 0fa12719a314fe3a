"""The app's pages, in navigation order: (file, title, icon, one-line description).

Add a page here (one line); ``app.py`` builds the navigation from this list and the Home page
links to every entry.
"""

PAGES = [
    ("pages/home.py", "Home", "🏠", "Pick a dataset and the privacy budget; what epsilon and delta mean."),
    ("pages/input_perturbation.py", "Input perturbation", "🧮", "DP-ERM where every contributor noises her own record (Fukuchi et al. 2017)."),
]
