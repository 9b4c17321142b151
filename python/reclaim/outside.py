"""Schemes written in Python: victim policies and placements that run in the engine beside its own.

A victim policy subclasses :class:`VictimPolicy` and defines ``select(view)``, called once per
victim choice; a placement subclasses :class:`Placement` and classifies user writes in batches
(``classify_user(pages, view)``) and, if it defines it, a victim's relocated pages at once
(``classify_gc(victim, pages, view)``). Each declares its parameters like the built-ins'
(:class:`Param`: name, unit, range, default, help) and is named in a spec by where it lives,
``MODULE:CLASS[:key=value,…]`` (``mymodule:MyPolicy:k=3``, or ``path/to/file.py:MyPolicy``), on
the command line, in sweep files and in the API alike.

At a call, ``view`` shows the run's clocks (``view.now``: user writes so far; ``view.destage``;
``view.trace_time``) and generator (``view.rng.random()``, ``view.rng.below(n)``: seeded from
the run's seed, so that runs are reproducible), and to a victim policy its candidates and the
engine's facts as read-only NumPy arrays without copies, one entry per segment:
``view.valid`` (valid pages of each candidate, :data:`NOT_CANDIDATE` for every other segment),
``view.stamp``, ``view.sealed_at``, ``view.erase_count``, and the facts it declares in
``facts`` (``view.fact("seal_time")``, ``"destage_number"``, ``"sealed_by"``, ``"up2"``,
``"seal_writes"``: :data:`FACTS`). The arrays are
live (an array kept past its call shows later values): copy what you keep as it was. The view
and its generator are open only during the call.

>>> import numpy as np
>>> class Greedy(VictimPolicy):
...     "The fewest valid pages; ties to the lowest segment."
...     def select(self, view):
...         return int(np.argmin(view.valid))
>>> describe(Greedy)["usage"]
'reclaim.outside:Greedy'
"""

from __future__ import annotations

import abc
import importlib
import importlib.util
import inspect
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

from reclaim import _core

#: ``view.valid`` of a segment that is not a candidate (free, open, or above the ``log``
#: method's bound): 2**32 - 1, so that ``numpy.argmin(view.valid)`` is greedy.
NOT_CANDIDATE = 2**32 - 1

#: The facts a victim policy may declare beyond those every view has (the engine's per-segment
#: facts, one ledger each: ``reclaim._core.facts()``), with unit and meaning.
FACTS: dict[str, tuple[str, str]] = {
    f["name"]: (f["unit"], f["help"]) for f in _core.facts() if f["per"] == "segment"
}


@dataclass(frozen=True)
class Param:
    """One parameter of a scheme written in Python, declared as the built-ins declare theirs.

    ``default`` gives its type (int, float, str or bool); ``low`` and ``high`` bound a number
    (inclusive), ``choices`` a string's values.
    """

    key: str
    default: Any
    help: str
    unit: str = ""
    low: float | None = None
    high: float | None = None
    choices: tuple[str, ...] = ()

    @property
    def range(self) -> str:
        """The valid values, as an error states them after "expected"."""
        if self.choices:
            return " or ".join(f"`{c}`" for c in self.choices)
        kind = "an integer" if isinstance(self.default, int) and not isinstance(self.default, bool) else "a number"
        if isinstance(self.default, bool):
            return "true or false"
        if isinstance(self.default, str):
            return "a string"
        if self.low is not None and self.high is not None:
            return f"{kind} from {self.low:g} to {self.high:g}"
        if self.low is not None:
            return f"{kind} of at least {self.low:g}"
        if self.high is not None:
            return f"{kind} of at most {self.high:g}"
        return kind

    def parse(self, text: str) -> Any:
        """The value of ``key=text``, checked; a clear error otherwise."""
        bad = ValueError(f"invalid value for `{self.key}`: {text} (expected {self.range})")
        d = self.default
        value: Any
        if isinstance(d, bool):
            if text.lower() not in ("true", "false", "1", "0", "yes", "no"):
                raise bad
            return text.lower() in ("true", "1", "yes")
        if isinstance(d, int):
            try:
                value = int(text)
            except ValueError:
                raise bad from None
        elif isinstance(d, float):
            try:
                value = float(text)
            except ValueError:
                raise bad from None
            if not np.isfinite(value):
                raise bad
        else:
            if self.choices and text not in self.choices:
                raise bad
            return text
        if (self.low is not None and value < self.low) or (self.high is not None and value > self.high):
            raise bad
        return value


class _Scheme:
    """What a victim policy and a placement written in Python have in common."""

    #: Its parameters.
    params: ClassVar[Sequence[Param]] = ()
    #: Its display name (the class name when empty) and its source (a paper, a section).
    display: ClassVar[str] = ""
    source: ClassVar[str] = ""

    def __init__(self, **params: Any) -> None:
        for p in self.params:
            setattr(self, p.key, params.get(p.key, p.default))


class VictimPolicy(_Scheme, abc.ABC):
    """A victim policy written in Python: subclass it and define :meth:`select`.

    ``facts`` names the facts beyond those every view has that it reads (:data:`FACTS`); the
    engine keeps only those.
    """

    facts: ClassVar[Sequence[str]] = ()

    @abc.abstractmethod
    def select(self, view: Any) -> int:
        """The segment to clean: one whose ``view.valid`` is not :data:`NOT_CANDIDATE`."""


class Placement(_Scheme, abc.ABC):
    """A placement written in Python: subclass it, declare its streams and define
    :meth:`classify_user`, and :meth:`classify_gc` to separate relocated pages.

    A user write of class c goes to user stream c (of ``user_streams``), a relocated page of
    class c to GC stream c (of ``gc_streams``; all to the first when ``classify_gc`` is not
    defined). ``batch`` user writes are classified at once where the run draws them ahead.
    """

    user_streams: ClassVar[int] = 1
    gc_streams: ClassVar[int] = 1
    batch: ClassVar[int] = 4096

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)

    def start(self, segments: int, pages_per_segment: int, logical_pages: int) -> None:
        """Called once before the run, with the device's size."""

    @abc.abstractmethod
    def classify_user(self, pages: npt.NDArray[np.uint32], view: Any) -> npt.ArrayLike:
        """The class of each user write of ``pages`` (in write order; the first is user write
        number ``view.now``), in ``range(user_streams)``."""

    # A subclass may define `classify_gc(self, victim, pages, view)`: the class of each relocated
    # page of segment `victim`, in `range(gc_streams)`; without it they all go to GC stream 0.

    def on_seal(self, stream: int, segment: int, now: int) -> None:
        """Stream ``stream`` sealed ``segment``, ``now`` user writes into the run."""

    def on_collect(self, segment: int, now: int) -> None:
        """``segment`` was chosen as a victim, ``now`` user writes into the run."""

    # The engine's calls: the classes as a contiguous int64 array.
    def _classify_user(self, pages: npt.NDArray[np.uint32], view: Any) -> npt.NDArray[np.int64]:
        return np.ascontiguousarray(self.classify_user(pages, view), dtype=np.int64)

    def _classify_gc(self, victim: int, pages: npt.NDArray[np.uint32], view: Any) -> npt.NDArray[np.int64]:
        return np.ascontiguousarray(self.classify_gc(victim, pages, view), dtype=np.int64)  # type: ignore[attr-defined]


def _overrides(cls: type, name: str, base: type) -> bool:
    return getattr(cls, name) is not getattr(base, name)


def _load(module: str) -> Any:
    """The module of a spec: a dotted module name (importable, or from the working directory as
    ``python -m`` finds it), or a path to a ``.py`` file."""
    if module.endswith(".py"):
        path = Path(module)
        if not path.is_file():
            raise ValueError(f"a Python file; `{module}` does not exist")
        name = "reclaim_scheme_" + str(abs(hash(str(path.resolve()))))
        if name in sys.modules:
            return sys.modules[name]
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise ValueError(f"a Python file; `{module}` cannot be loaded")
        m = importlib.util.module_from_spec(spec)
        sys.modules[name] = m
        spec.loader.exec_module(m)
        return m
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as e:
        if e.name != module.split(".")[0] or os.getcwd() in sys.path:
            raise ValueError(f"a module that imports; {e}") from None
    sys.path.append(os.getcwd())
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as e:
        raise ValueError(f"a module that imports (from the working directory or the Python path); {e}") from None


def _class_of(family: str, module: str, name: str) -> type[_Scheme]:
    base: type[_Scheme] = VictimPolicy if family == "policy" else Placement
    m = _load(module)
    cls = getattr(m, name, None)
    if cls is None:
        raise ValueError(f"a class of `{module}`; it has no `{name}`")
    if not (inspect.isclass(cls) and issubclass(cls, base)):
        raise ValueError(f"a subclass of reclaim.{base.__name__}; `{module}:{name}` is not one")
    return cls


def parse_params(cls: type[_Scheme], text: str) -> dict[str, Any]:
    """The parameters of ``key=value,…`` for ``cls``, checked against its declarations."""
    known = {p.key: p for p in cls.params}
    values: dict[str, Any] = {}
    for item in filter(None, text.split(",")):
        key, eq, value = item.partition("=")
        if not eq:
            raise ValueError(f"`key=value`, found `{item}`")
        if key not in known:
            keys = ", ".join(known) or "none"
            raise ValueError(f"a parameter of {cls.__name__} ({keys}); found `{key}`")
        values[key] = known[key].parse(value)
    return values


def canonical(module: str, cls: type[_Scheme], values: dict[str, Any]) -> str:
    """The spec that names runs and results: module and class, then the parameters that differ
    from their defaults, in declared order."""
    shown = [f"{p.key}={_show(values[p.key])}" for p in cls.params if p.key in values and values[p.key] != p.default]
    return f"{module}:{cls.__name__}" + (":" + ",".join(shown) if shown else "")


def _show(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return repr(v) if isinstance(v, float) else str(v)


class Factory:
    """What the engine holds of a scheme written in Python: its class and parameters, and what
    it declares (facts, streams, batch)."""

    def __init__(self, cls: type[_Scheme], values: dict[str, Any]) -> None:
        self.cls = cls
        self.values = values
        self.facts = list(getattr(cls, "facts", ()))
        self.user_streams = int(getattr(cls, "user_streams", 1))
        self.gc_streams = int(getattr(cls, "gc_streams", 1))
        self.batch = int(getattr(cls, "batch", 1))

    def make(self, *size: int) -> _Scheme:
        """A new instance; a placement is started with the device's size."""
        obj = self.cls(**self.values)
        if isinstance(obj, Placement):
            obj._classifies_gc = callable(getattr(self.cls, "classify_gc", None))  # type: ignore[attr-defined]
            obj._hooks = _overrides(self.cls, "on_seal", Placement) or _overrides(self.cls, "on_collect", Placement)  # type: ignore[attr-defined]
            obj.start(*size)
        return obj


def resolve(family: str, text: str) -> tuple[str, Factory]:
    """The canonical spec and factory of ``MODULE:CLASS[:key=value,…]`` (the engine's resolver);
    raises ``ValueError`` with what was expected."""
    module, _, rest = text.partition(":")
    name, _, params = rest.partition(":")
    cls = _class_of(family, module, name)
    _check(cls)
    values = parse_params(cls, params)
    return canonical(module, cls, values), Factory(cls, values)


def _check(cls: type[_Scheme]) -> None:
    if issubclass(cls, VictimPolicy):
        unknown = [f for f in cls.facts if f not in FACTS]
        if unknown:
            raise ValueError(f"facts among {', '.join(FACTS)}; {cls.__name__} declares {', '.join(unknown)}")
        if getattr(cls.select, "__isabstractmethod__", False):
            raise ValueError(f"a policy that defines `select(view)`; {cls.__name__} does not")
    if issubclass(cls, Placement):
        for key in ("user_streams", "gc_streams"):
            n = getattr(cls, key)
            if not (isinstance(n, int) and 1 <= n <= 64):
                raise ValueError(f"`{key}` an integer from 1 to 64; {cls.__name__} declares {n!r}")
        if not (isinstance(cls.batch, int) and 1 <= cls.batch <= 1 << 20):
            raise ValueError(f"`batch` an integer from 1 to 1048576; {cls.__name__} declares {cls.batch!r}")
        if getattr(cls.classify_user, "__isabstractmethod__", False):
            raise ValueError(f"a placement that defines `classify_user(pages, view)`; {cls.__name__} does not")


def describe(cls: type[_Scheme], module: str | None = None) -> dict[str, Any]:
    """The declaration of a scheme written in Python, in the form of the built-ins'
    (:func:`reclaim.schemes.schemes`)."""
    module = module or cls.__module__
    family = "policy" if issubclass(cls, VictimPolicy) else "placement"
    keys = "".join(f",{p.key}=" + ("|".join(p.choices) if p.choices else p.key.upper()) for p in cls.params)
    usage = f"{module}:{cls.__name__}" + (f"[:{keys[1:]}]" if keys else "")
    doc = inspect.getdoc(cls) or ""
    return {
        "family": family,
        "name": f"{module}:{cls.__name__}",
        "display": cls.display or cls.__name__,
        "aliases": [],
        "summary": doc.split("\n\n")[0].replace("\n", " "),
        "source": cls.source or "written in Python",
        "params": [
            {"key": p.key, "values": "|".join(p.choices) or p.key.upper(), "unit": p.unit, "range": p.range,
             "default": _show(p.default), "help": p.help}
            for p in cls.params
        ],
        "needs": list(getattr(cls, "facts", ())),
        "usage": usage,
    }


def imported(module: str) -> list[dict[str, Any]]:
    """The declarations of the schemes a module (or ``.py`` file) defines."""
    m = _load(module)
    found = []
    for _, cls in inspect.getmembers(m, inspect.isclass):
        if issubclass(cls, (VictimPolicy, Placement)) and cls not in (VictimPolicy, Placement) and cls.__module__ == m.__name__:
            found.append(describe(cls, module))
    return found
