"""Shared fixtures: one Context for the session (lavapipe in CI), checked for validation messages."""

import numpy as np
import pytest

import raydb


@pytest.fixture(scope="session")
def ctx():
    """The session's Context; fails the run if the validation layer reported anything."""
    context = raydb.Context()
    yield context
    assert context.validation_messages == 0


@pytest.fixture
def rng(request):
    """Fresh random data every run; the seed is printed on failure to reproduce it."""
    seed = np.random.SeedSequence().entropy % (2**32)
    print(f"seed {seed}")
    return np.random.default_rng(seed)
