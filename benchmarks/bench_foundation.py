"""Foundation speed: calibration, CSV parsing at the upload limits, the Monte-Carlo runner's overhead.

Run: ``.venv/bin/python benchmarks/bench_foundation.py``. Prints measured times and ratios from one run.
"""

from __future__ import annotations

import io
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from dp_core import calibration, data  # noqa: E402
from dp_core.experiments import run_sweep  # noqa: E402


def best_of(fn, repeat=5):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    t_an = best_of(lambda: calibration.gaussian_sigma_analytic(epsilon=1.0, delta=1e-5, sensitivity=1.0), 20)
    t_cl = best_of(lambda: calibration.gaussian_sigma_classic(epsilon=1.0, delta=1e-5, sensitivity=1.0), 20)
    print(f"analytic Gaussian sigma: {t_an * 1e3:.2f} ms; classic: {t_cl * 1e6:.1f} us; ratio {t_an / t_cl:.0f}x")

    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.normal(size=(200_000, 12)), columns=[f"c{i}" for i in range(12)])
    buf = io.StringIO()
    frame.to_csv(buf, index=False, float_format="%.6g")
    raw = buf.getvalue().encode()
    t_parse = best_of(lambda: data.parse_csv(raw, file_name="big.csv"), 3)
    table = data.parse_csv(raw, file_name="big.csv")
    t_conv = best_of(lambda: data.table_to_dataset(table, target="c11"), 3)
    print(
        f"CSV at the row limit (200,000 x 12, {len(raw) / 2**20:.1f} MB): parse {t_parse:.2f} s, "
        f"to dataset {t_conv:.2f} s"
    )

    def block(point, seeds):
        g = [np.random.default_rng(s) for s in seeds]
        return pd.DataFrame({"method": "x", "v": [gi.standard_normal() for gi in g]})

    t_sweep = best_of(
        lambda: run_sweep(
            block, [{"eps": e} for e in np.geomspace(0.01, 10, 8)], n_trials=1000, seed=0, block_size=100
        ),
        3,
    )
    print(
        f"runner overhead: 8 points x 1,000 trivial trials in blocks of 100: {t_sweep * 1e3:.0f} ms "
        f"({t_sweep / 8000 * 1e6:.1f} us per trial)"
    )


if __name__ == "__main__":
    main()
