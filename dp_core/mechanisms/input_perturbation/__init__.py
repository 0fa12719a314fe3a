"""Input perturbation (Fukuchi, Tran, Sakuma 2017) with its baselines, samplers and diagnostics."""
