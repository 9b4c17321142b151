"""Transcribes the appendix tables of Stockmeyer's report (seed 000, Figures 5, 6, 10, 13, 14, 17,
20, 21, 22) from the seed's text into ``python/reclaim/reproduce/data/stockmeyer_grids.csv``.

Usage: python scripts/transcribe_stockmeyer.py ../shared/seeds/000_*.txt [OUT.csv]

The text keeps each table's numbers in reading order, though some rows' first numbers have
slipped to the start of the line; this script reads the numbers in order, drops the axis labels
(the unsigned 0–4 of the header and of each row) and checks that every table has 25 cells.
"""

from __future__ import annotations

import csv
import re
import sys
from pathlib import Path

# The appendix's tables in order: (figure, unwritten, cache, variant, kind, side by side).
# kind "values": [GCU, CltdCount (K), WorkRdLive (K)]; kind "percent": [GCU, WRL, WRA] in %.
ORDER: list[tuple[int, str, int, str, str]] = []
for fig, unwritten, variants, kind in [
    (5, "N", ("fifo", "tree"), "values"),
    (6, "N", ("tree-vs-fifo",), "percent"),
    (10, "N", ("optimal", "nat.10"), "values"),
    (13, "N", ("optimal|nat.10",), "percent"),
    (14, "Y", ("fifo", "tree"), "values"),
    (17, "Y", ("optimal", "nat.10"), "values"),
    (20, "Y", ("optimal|nat.10",), "percent"),
    (21, "N", ("fifo", "tree"), "values"),
    (22, "Y", ("fifo", "tree"), "values"),
]:
    for cache in (1, 320):
        for v in variants:
            ORDER.append((fig, unwritten, cache, v, kind))

NUM = re.compile(r"[+-]?\d+(?:\.\d+)?")


def tables(text: str) -> list[list[str]]:
    """Numeric tokens of each table, the header's included."""
    body = text[text.index("Appendix: Tables and Plots"):]
    out: list[list[str]] = []
    current: list[str] | None = None
    for line in body.splitlines():
        if "FSC Sort Exponent" in line:
            current = []
            out.append(current)
            continue
        if current is None:
            continue
        stripped = line.replace("Destage Sort Exponent", "").strip()
        if not stripped:
            continue
        if re.fullmatch(r"[\s\d.+-]+", stripped):
            current.extend(NUM.findall(stripped))
        else:
            current = None
    return out


def cells(tokens: list[str], kind: str, sides: int) -> list[list[list[float]]]:
    """Per side, 25 cells (row-major, Destage exponent first) of three numbers."""
    data = [t for t in tokens if not (t.isdigit() and int(t) <= 4)]
    if len(data) != 75 * sides:
        raise SystemExit(f"a table has {len(data)} numbers, expected {75 * sides}: {tokens[:20]}…")
    side_cells: list[list[list[float]]] = [[] for _ in range(sides)]
    for row in range(5):
        chunk = [float(t) for t in data[row * 15 * sides:(row + 1) * 15 * sides]]
        triples = kind == "values" and "." not in data[row * 15 * sides + 1]
        for s in range(sides):
            for col in range(5):
                if triples:
                    side_cells[s].append(chunk[3 * col:3 * col + 3])
                else:
                    # Row-wise: one line per measure, each `sides × 5` wide.
                    side_cells[s].append([chunk[m * 5 * sides + s * 5 + col] for m in range(3)])
    return side_cells


def main() -> None:
    text = Path(sys.argv[1]).read_text()
    found = tables(text)
    if len(found) != len(ORDER):
        raise SystemExit(f"found {len(found)} tables, expected {len(ORDER)}")
    default = Path(__file__).resolve().parent.parent / "python/reclaim/reproduce/data/stockmeyer_grids.csv"
    out = Path(sys.argv[2]) if len(sys.argv) > 2 else default
    with open(out, "w", newline="") as f:
        f.write("# Stockmeyer, seed 000, Appendix: Figures 5, 10, 14, 17, 21, 22 ([GCU, CltdCount (K), WorkRdLive (K)])\n")
        f.write("# and Figures 6, 13, 20 (percentages [GCU, WorkRdLive, WorkRdAll]), one row per (DtgSortExp, FscSortExp).\n")
        f.write("# Transcribed by scripts/transcribe_stockmeyer.py from the seed's text.\n")
        w = csv.writer(f)
        w.writerow(["figure", "unwritten", "cache", "variant", "dtg", "fsc", "a", "b", "c"])
        for (fig, unwritten, cache, variant, kind), tokens in zip(ORDER, found):
            variants = variant.split("|")
            for v, side in zip(variants, cells(tokens, kind, len(variants))):
                for i, (a, b, c) in enumerate(side):
                    w.writerow([fig, unwritten, cache, v, i // 5, i % 5, a, b, c])
    print(f"{out}: {len(ORDER)} tables")


if __name__ == "__main__":
    main()
