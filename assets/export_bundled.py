"""One-off export of the real demo datasets into ``assets/`` (run by a maintainer, never at run time).

Needs scikit-learn and statsmodels, which the app itself does not depend on:
``pip install scikit-learn statsmodels && python assets/export_bundled.py``.
The CSVs it writes are committed; their sources and licences are in ``assets/README.md``.
"""

from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> None:
    from sklearn import datasets as skd
    from statsmodels.datasets import randhie

    for name, loader, target in [
        ("diabetes", skd.load_diabetes, "disease_progression"),
        ("breast_cancer", skd.load_breast_cancer, "malignant"),
        ("wine", skd.load_wine, "cultivar"),
        ("iris", skd.load_iris, "species"),
    ]:
        bunch = loader(as_frame=True, scaled=False) if name == "diabetes" else loader(as_frame=True)
        frame = bunch.frame.rename(columns={"target": target})
        if name == "breast_cancer":  # sklearn codes 0 = malignant, 1 = benign
            frame[target] = 1 - frame[target]
        frame.columns = [c.replace(" (cm)", "_cm").replace(" ", "_").replace("/", "_") for c in frame.columns]
        frame.to_csv(HERE / f"{name}.csv", index=False, float_format="%.6g")
    rh = randhie.load_pandas().data
    rh.to_csv(HERE / "randhie.csv", index=False, float_format="%.6g")


if __name__ == "__main__":
    main()
