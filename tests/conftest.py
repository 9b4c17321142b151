"""Shared fixtures: where the project's shared data lives, if it is beside the checkout."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    if not (SHARED / "data" / "published").is_dir():
        pytest.skip("../shared is not beside this checkout")
    return SHARED
