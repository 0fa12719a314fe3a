import pytest
from streamlit.testing.v1 import AppTest

APP = "../../app.py"


@pytest.fixture
def app():
    """A fresh AppTest of the whole app (Home page), not yet run."""
    return AppTest.from_file(APP, default_timeout=90)
