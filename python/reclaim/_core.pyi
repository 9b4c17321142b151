"""Type stubs of the compiled engine (crates/reclaim-py)."""

from typing import Any

__version__: str

def canonical_config(config_json: str) -> str:
    """Validates a JSON configuration and returns it in canonical form (raises ValueError)."""

def parameters() -> list[dict[str, str]]:
    """Every simulation parameter: name, kind, unit, range, default, help."""

def geometry(config_json: str) -> dict[str, int]:
    """The resolved geometry: segments, pages_per_segment, logical_pages."""

def class_shares(config_json: str) -> dict[str, Any]:
    """``{"geometry": {...}, "classes": [{"pages": int, "write_share": float}, ...]}``, and
    ``"region_quotas": [int, ...]`` under ``regions`` with explicit shares."""

def write_page_trace(path: str, pages: Any, source: str) -> str:
    """Writes page ids as a converted trace; returns its metadata as JSON."""

class TraceConverter:
    """Converts a text trace step by step."""

    def __init__(
        self,
        path: str,
        format: str,
        page_size: int = 4096,
        rename: bool = False,
        skip_bad_lines: bool = False,
        device: str | None = None,
        blkparse_action: str = "Q",
    ) -> None: ...
    def step(self, max_requests: int) -> bool: ...
    def lines(self) -> int: ...
    def write(self, out: str) -> str: ...

class Simulator:
    """A simulation, stepped from Python."""

    def __init__(self, config_json: str) -> None: ...
    def step(self, budget: int) -> bool:
        """Performs up to `budget` user writes without the GIL; returns whether writes remain."""
    def progress(self) -> tuple[int, int]:
        """(user writes done, user writes in all)."""
    def config_json(self) -> str: ...
    def check(self) -> None:
        """Checks the store's and the placement's invariants; raises RuntimeError on the first violation."""
    def result(self) -> dict[str, Any]:
        """The measured phase's metrics; arrays as numpy arrays."""
