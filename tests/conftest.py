"""Shared fixtures: where the project's shared data lives, if it is beside the checkout."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    if not (SHARED / "data" / "published").is_dir():
        if os.environ.get("RECLAIM_REQUIRE_SHARED") == "1":
            # CI has ../shared: a missing one there is a broken setup, not a reason to skip.
            pytest.fail(f"{SHARED} is missing and RECLAIM_REQUIRE_SHARED=1")
        pytest.skip("../shared is not beside this checkout")
    return SHARED
