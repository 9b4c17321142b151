"""The repository's scripts (`scripts/NAME.py`, names with hyphens) loaded as modules for tests."""

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]


def load_script(name: str) -> ModuleType:
    """`scripts/<name>.py` as the module `<name>` with hyphens as underscores, registered in
    `sys.modules` first (a dataclass looks its module up there while it is defined)."""
    spec = importlib.util.spec_from_file_location(name.replace("-", "_"), ROOT / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module
