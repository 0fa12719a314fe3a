"""CSV upload parsing time on hostile and maximum-size files (``dp_core.data.parse_csv``).

Run: ``nice -n 10 .venv/bin/python benchmarks/bench_upload_parse.py``. Prints the time of each case
from one run and the ratio of the pathological cases to a plain file of the same size: every check is
linear, so a 1.1 MB file with one 150,000-field line must be rejected faster than a plain 1.1 MB file
is read, and the largest accepted file must be read well within the 5 s the upload page allows.
"""

from __future__ import annotations

import gzip
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from dp_core import data
from dp_core.exceptions import DataValidationError


def timed(raw: bytes) -> tuple[float, str]:
    t0 = time.perf_counter()
    try:
        data.parse_csv(raw, file_name="bench.csv")
        outcome = "accepted"
    except DataValidationError as exc:
        outcome = "rejected: " + str(exc)[:70]
    return time.perf_counter() - t0, outcome


def plain(n_rows: int, n_cols: int, seed: int = 0) -> bytes:
    X = np.random.default_rng(seed).normal(size=(n_rows, n_cols))
    head = ",".join(f"x{j}" for j in range(n_cols))
    return (head + "\n" + "\n".join(",".join(f"{v:.6f}" for v in r) for r in X) + "\n").encode()


def main() -> None:
    wide = (",".join(f"c{i}" for i in range(150_000)) + "\n" + ",".join("1" for _ in range(150_000)) + "\n").encode()
    small_plain = plain(len(wide) // 110, 10)
    big = plain(200_000, 12)
    while len(big) > data.LIMITS["max_bytes"]:
        big = big[: big.rfind(b"\n", 0, data.LIMITS["max_bytes"]) + 1]
    thousands = (
        "a,b,y\n" + "".join(f'"{1000 + 37 * i:,}","{i * 1234.5:,.1f}",{i % 2}\n' for i in range(150_000))
    ).encode()
    european = ("a;b;y\n" + "".join(f"{i},5;{i * 3},25;{i % 2}\n" for i in range(150_000))).encode()
    cases = [
        ("plain, same size as the wide file", small_plain),
        ("one line of 150,000 fields", wide),
        ("the same, gzip-compressed", gzip.compress(wide)),
        ("150,000 rows, thousands separators", thousands),
        ("150,000 rows, decimal commas (';')", european),
        ("largest accepted file", big),
        ("the same with CR-only line endings", big.replace(b"\n", b"\r")),
    ]
    results = {}
    print(f"{'case':<40} {'MB':>6} {'seconds':>8}  outcome")
    for name, raw in cases:
        t, outcome = timed(raw)
        results[name] = t
        print(f"{name:<40} {len(raw) / 2**20:6.1f} {t:8.3f}  {outcome}")
    print(
        f"\nwide / plain of the same size: {results['one line of 150,000 fields'] / results[cases[0][0]]:.2f}x; "
        f"largest accepted file: {results['largest accepted file']:.2f} s (target: under 5 s)"
    )


if __name__ == "__main__":
    main()
