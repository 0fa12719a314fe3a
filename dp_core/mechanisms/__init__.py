"""The mechanisms of the four papers, one module per mechanism."""
