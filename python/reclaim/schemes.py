"""Every scheme reclaim runs, as its own file in the engine declares it.

Each policy, placement, cleaner trigger, workload, size distribution and trace-driven method declares its name (as the
papers say it), its parameters (key, values, unit, range, default, help), the paper and section
that define it, and what it needs of the engine. This module reads those declarations from the
compiled engine: ``reclaim schemes`` lists them, the command line's help and the README's table
of schemes are generated from them.

>>> [s["usage"] for s in schemes("policies")][:2]
['fifo', 'greedy[:tie=random|oldest|fifo]']
"""

from __future__ import annotations

import textwrap
from typing import Any

from reclaim import _core

#: The families, as ``reclaim schemes FAMILY`` names them, with the engine's name of each and the
#: configuration parameter its spec strings are given to.
FAMILIES: dict[str, tuple[str, str]] = {
    "policies": ("policy", "policy"),
    "placements": ("placement", "placement"),
    "triggers": ("trigger", "gc"),
    "workloads": ("workload", "workload"),
    "sizes": ("sizes", "sizes"),
    "methods": ("method", "method"),
    "devices": ("device", "device"),
    "arrivals": ("arrivals", "arrivals"),
}

SCHEMES: list[dict[str, Any]] = _core.schemes()


def schemes(family: str | None = None) -> list[dict[str, Any]]:
    """The declarations of one family (``policies``, ``placements``, ``triggers``, ``workloads``,
    ``sizes``, ``methods``, ``devices``, ``arrivals``), or of all, in registration order."""
    if family is None:
        return list(SCHEMES)
    if family not in FAMILIES:
        raise ValueError(f"invalid value for `family`: {family!r} (expected one of {', '.join(FAMILIES)})")
    name = FAMILIES[family][0]
    return [s for s in SCHEMES if s["family"] == name]


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def markdown_table() -> str:
    """The README's table of schemes: one row per scheme with its spec, what it does and its
    source, and a row per parameter's default where it has one."""
    lines = ["| option | scheme | what it does | source |", "|---|---|---|---|"]
    for family, (_, param) in FAMILIES.items():
        for s in schemes(family):
            defaults = [f"{p['key'] or p['values']}={p['default']}" for p in s["params"] if p["default"] is not None]
            what = s["summary"] + (f" Defaults: {', '.join(defaults)}." if defaults else "")
            option = f"--{param.replace('_', '-')}"
            lines.append(f"| `{option}` | `{_cell(s['usage'])}` | {_cell(what)} | {_cell(s['source'])} |")
    return "\n".join(lines)


def usage_list(family: str) -> str:
    """A family's usage lines as reST literals, for docstrings."""
    return ", ".join(f"``{s['usage']}``" for s in schemes(family))


def stub_doc() -> str:
    """The docstring of ``schemes`` in the engine's type stubs (``_core.pyi``): what it returns,
    and every registered scheme's usage line by family, wrapped at 100 columns."""
    lines = [
        "Every registered scheme as its file declares it: family, name, aliases, summary, source,",
        "params (key, values, unit, range, default, help), needs, usage.",
        "",
        "Registered (generated from the registry: ``reclaim schemes --stub``):",
        "",
    ]
    for family in FAMILIES:
        text = f"- {family}: " + ", ".join(f"``{s['usage']}``" for s in schemes(family))
        lines += textwrap.wrap(text, 96, subsequent_indent="  ", break_long_words=False, break_on_hyphens=False)
    return "\n".join(lines)
