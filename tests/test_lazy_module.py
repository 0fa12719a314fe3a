"""dp_core._lazy: the stand-in imports its module on first use, and survives pickling and copying (a Dask
worker receives functions whose module holds one)."""

import copy
import pickle

import pandas
import pytest

from dp_core._lazy import LazyModule
from dp_core._lazy import pandas as lazy_pandas


def test_attributes_are_the_modules():
    assert lazy_pandas.DataFrame is pandas.DataFrame
    assert isinstance(pandas.DataFrame({"a": [1]}), lazy_pandas.DataFrame)


def test_pickle_and_copy_keep_a_working_stand_in():
    for twin in (pickle.loads(pickle.dumps(lazy_pandas)), copy.copy(lazy_pandas), copy.deepcopy(lazy_pandas)):
        assert isinstance(twin, LazyModule)
        assert twin.concat is pandas.concat


def test_private_names_are_not_forwarded():
    with pytest.raises(AttributeError):
        getattr(lazy_pandas, "_anything")  # noqa: B009 - the lookup is the test
