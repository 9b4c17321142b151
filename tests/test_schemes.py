"""The registry of schemes and everything generated from it: the command line's help, ``reclaim
schemes``, the README's table and the API's docstring must name every scheme with every
parameter, as the engine's declarations give them (DESIGN: one registry, one line per scheme)."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest
from reclaim import _core
from reclaim.api import SimConfig
from reclaim.cli import app
from reclaim.schemes import FAMILIES, markdown_table, schemes, stub_doc
from typer.testing import CliRunner

ROOT = Path(__file__).resolve().parents[1]
runner = CliRunner()


def _squeezed(text: str) -> str:
    # The help is wrapped at the terminal's width, inside words too: compare without whitespace.
    return re.sub(r"\s+", "", text)


def test_every_family_is_registered() -> None:
    families = {s["family"] for s in _core.schemes()}
    assert families == {engine for engine, _ in FAMILIES.values()}
    # The seeds' schemes at least: 11 policies, 7 placements, 4 triggers, 6 workloads (and
    # SSD-iq's zones), 3 sizes.
    counts = {f: len(schemes(f)) for f in FAMILIES}
    assert counts["policies"] >= 11 and counts["placements"] >= 7, counts
    assert (counts["triggers"], counts["workloads"], counts["sizes"]) == (4, 7, 3)


@pytest.mark.parametrize("family", list(FAMILIES))
def test_simulate_help_names_every_scheme_and_parameter(family: str) -> None:
    result = runner.invoke(app, ["simulate", "--help"], env={"COLUMNS": "100"})
    assert result.exit_code == 0, result.output
    option = "--" + FAMILIES[family][1]
    # The option's own paragraph: from its flag to the next option.
    help_text = _squeezed(result.output.split(option + " ", 1)[1].split("\n  --", 1)[0])
    for s in schemes(family):
        assert _squeezed(s["usage"]) in help_text, (option, s["usage"])
        for p in s["params"]:
            if p["key"]:
                assert f"{p['key']}={p['values']}" in s["usage"]


def test_schemes_json_is_the_registry() -> None:
    result = runner.invoke(app, ["schemes", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output) == _core.schemes()
    for family in FAMILIES:
        one = runner.invoke(app, ["schemes", family, "--json"])
        assert [s["name"] for s in json.loads(one.output)] == [s["name"] for s in schemes(family)]


def test_schemes_table_shows_every_parameter() -> None:
    result = runner.invoke(app, ["schemes", "placements"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    text = _squeezed(result.output.replace("│", ""))
    for s in schemes("placements"):
        assert _squeezed(s["summary"])[:30] in text
        for p in s["params"]:
            assert _squeezed(p["help"])[:30] in text, p


def test_an_unknown_family_is_refused() -> None:
    result = runner.invoke(app, ["schemes", "cleaners"])
    assert result.exit_code == 2
    assert "invalid value for `FAMILY`: `cleaners`" in result.output


def test_readme_table_is_the_registry() -> None:
    readme = (ROOT / "README.md").read_text()
    table = readme.split("<!-- schemes:begin -->\n", 1)[1].split("\n<!-- schemes:end -->", 1)[0]
    assert table == markdown_table(), "README's table of schemes differs: regenerate it with `reclaim schemes --markdown`"


def test_api_docstring_lists_every_scheme() -> None:
    doc = _squeezed(SimConfig.__doc__ or "")
    for s in schemes():
        assert _squeezed(s["usage"]) in doc, s["usage"]


def test_stub_docstring_is_the_registry() -> None:
    # What a type checker or an editor shows for `_core.schemes` lists the registered schemes.
    stub = ast.parse((ROOT / "python" / "reclaim" / "_core.pyi").read_text())
    (fn,) = [n for n in stub.body if isinstance(n, ast.FunctionDef) and n.name == "schemes"]
    assert ast.get_docstring(fn) == stub_doc(), "the stub's docstring of `schemes` differs: regenerate it with `reclaim schemes --stub`"
    result = runner.invoke(app, ["schemes", "--stub"])
    assert result.exit_code == 0 and result.output.rstrip("\n") == stub_doc()
