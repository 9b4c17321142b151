"""Shared fixtures: where the project's shared data lives, if it is beside the checkout; the
session's results database; the browser the report tests open pages in, if there is one."""

from __future__ import annotations

import os
import shutil
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


@pytest.fixture(scope="session")
def results_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One results database for the session's reduced-length reproductions: a simulation that
    two of them share (`reclaim validate --quick` runs Van Houdt's and Lomet & Luo's Table 1
    configurations) runs once, and is read back, bit for bit, by the other."""
    return tmp_path_factory.mktemp("results") / "reclaim.duckdb"


@pytest.fixture(scope="session")
def chromium() -> str:
    path = shutil.which("chromium")
    if path is None:
        if os.environ.get("RECLAIM_INSTALL_BROWSER") == "1":
            # Asked for (CI, `make test-browser`): a missing browser is a failed install.
            pytest.fail("chromium is not on PATH although RECLAIM_INSTALL_BROWSER=1 (scripts/setup-test-browser.sh installs it)")
        pytest.skip("no chromium on PATH (`make test-browser` installs Debian's package and runs these tests)")
    return path
