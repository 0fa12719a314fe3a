"""Reproductions of the papers' experiments (CSV plus interactive HTML figures)."""
