import pytest

from content.loader import Bank, load_bank


@pytest.fixture(scope="session")
def bank() -> Bank:
    return load_bank()
