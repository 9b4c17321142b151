"""The published tables shipped with the package are the project's transcriptions, unchanged."""

from __future__ import annotations

from importlib import resources

import pytest

NAMES = ["vanhoudt_table1.csv", "vanhoudt_table2.csv", "lomet_table1.csv", "lomet_table2.csv", "li_numbers.csv", "dyal_draughn_tables.csv",
         "stockmeyer_figure1.csv"]


@pytest.mark.parametrize("name", NAMES)
def test_shipped_copy_matches_shared(shared_dir, name):
    shipped = resources.files("reclaim.reproduce").joinpath("data", name).read_text()
    assert shipped == (shared_dir / "data" / "published" / name).read_text()


def test_layout_table1_matches_shared(shared_dir):
    shipped = resources.files("reclaim.layout").joinpath("dyal_draughn_table1.csv").read_text()
    assert shipped == (shared_dir / "data" / "published" / "dyal_draughn_table1.csv").read_text()
