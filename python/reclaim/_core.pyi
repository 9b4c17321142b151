"""Type stubs of the compiled engine (crates/reclaim-py)."""

from typing import Any, Self, final

import numpy as np
import numpy.typing as npt

__all__ = [
    "Simulator",
    "TraceConverter",
    "write_page_trace",
    "check_trace",
    "request_sizes",
    "stand_in_files_pages",
    "stand_in_pages",
    "canonical_config",
    "geometry",
    "device",
    "parameters",
    "schemes",
    "facts",
    "class_shares",
    "__version__",
    "ENGINE_ID",
    "View",
    "Generator",
]

__version__: str
#: Digest of the engine's sources (both crates and Cargo.lock) this module was built from.
ENGINE_ID: str

def canonical_config(config_json: str) -> str:
    """Validates a JSON configuration and returns it in canonical form (raises ValueError)."""

def parameters() -> list[dict[str, str]]:
    """Every simulation parameter: name, kind, unit, range, default, help."""

def facts() -> list[dict[str, Any]]:
    """The engine's facts, as each ledger declares it: name, unit, help, per (segment or page),
    bytes per entry."""

def schemes() -> list[dict[str, Any]]:
    """Every registered scheme as its file declares it: family, name, aliases, summary, source,
    params (key, values, unit, range, default, help), needs, usage.

    Registered (generated from the registry: ``reclaim schemes --stub``):

    - policies: ``fifo``, ``greedy[:tie=random|oldest|fifo]``, ``random``, ``d-choices:d=D[,k=K]``,
      ``gra:d=D``, ``windowed:w=W[,tie=random|oldest|fifo]``,
      ``cost-benefit[:form=lfs|lomet|sepbit]``, ``mdc[:freq=estimate|exact,decline=paper|pages]``,
      ``multi-log``,
      ``age-threshold[:at=N,nat=X|heuristic,buckets=B|exact,sort=fifo|tree,age=all|tw,requeue=bucket|every,ties=first|last]``,
      ``fitness[:at=N,nat=X|heuristic,buckets=B|exact,sort=fifo|tree,age=all|tw,requeue=bucket|every,ties=first|last]``,
      ``random-greedy[:share=S]``, ``lru``, ``cost-hotness``
    - placements: ``single``, ``double[:copy=random|oldest]``, ``oracle``,
      ``regions:spare=B1/B2/…|optimal``,
      ``age-sorted[:dtg_exp=E,fsc_exp=E,dtg_sort=S,fsc_sort=S,dtg_decay=D,fsc_decay=D,decay_rule=exp2|reciprocal,split=median|mean,fsc_number=max|min,open_age=closing|zero,first_age=oldest|zero]``,
      ``sort-buffer[:segments=K,sort=up2|none,rewrite=hole|absorb]``,
      ``multi-log[:logs=L,freq=estimate|exact,form=lomet-luo|sepbit]``, ``dac[:levels=L]``,
      ``sepbit[:separate=both|user|gc]``, ``multi-queue[:chunk=N,demote=artifact|paper]``,
      ``sfr[:chunk=N,period=P]``, ``fadac[:valid=artifact|written]``, ``eti``, ``fk``, ``warcip``,
      ``sfs[:requantize=S]``, ``planes:n=N``, ``2r-greedy[:tie=oldest,rest=normal|cold]``,
      ``2r-fifo[:util=U,depth=D,reset=code|paper,rest=normal|cold]``,
      ``2a[:heads=N,clean=2a|greedy,evict=incoming|own]``, ``gen[:generations=G]``,
      ``opt[:groups=H]``, ``deathtime[:victim=greedy|edt]``,
      ``midas[:model=on|off,groups=G,naive=N,sample=S,epoch=E,unit=U,hot=on|off,apply=window|epoch]``
    - triggers: ``frontier``, ``one-free``,
      ``batch[:low=L,victims=V,until=cycle|low,gather=each|all,sort=none|stamp|dseq|written|up2]``,
      ``max-empty[:k=K]``
    - workloads: ``uniform``, ``hotcold:r=R,f=F``, ``shifting:r=R,f=F[,period=P]``,
      ``locality[:fa=A,r=R1/R2/…,f=F1/F2/…]``, ``zipf:theta=T``,
      ``zones:s=S1/S2/…,f=F1/F2/…[,shuffle=yes|no]``, ``trace:PATH``
    - sizes: ``fixed:size=S``, ``uniform:min=A,max=B``, ``choice:sizes=S1/S2/…[,weights=W1/W2/…]``
    - methods: ``precondition[:tol=T,max_passes=K,measure=settled|after]``, ``li``,
      ``stockmeyer[:prefix=N]``, ``log[:gp=G,room=R]``
    - devices:
      ``femu[:channels=N,dies=N,planes=N,pages_per_block=N,page_size=BYTES,tr=TIME,tprog=TIME,tbers=TIME,mts=R,width=BITS,bus=on|off|fifo,unit=superblock|plane,clean=foreground|background|free,high=N,buffer=N,suspend=on|off,tsus=TIME,unwritten=skip|read]``,
      ``mqsim[:channels=N,dies=N,planes=N,pages_per_block=N,page_size=BYTES,tr=TIME,tprog=TIME,tbers=TIME,mts=R,width=BITS,bus=on|off|fifo,unit=superblock|plane,clean=foreground|background|free,high=N,buffer=N,suspend=on|off,tsus=TIME,unwritten=skip|read]``
    - arrivals: ``trace[:speed=X]``, ``poisson:iops=N``, ``closed[:iodepth=N]``
    """

def geometry(config_json: str) -> dict[str, int]:
    """The resolved geometry: segments, pages_per_segment, logical_pages."""

def device(spec: str) -> dict[str, Any]:
    """A ``--device`` text's values as the engine parses and checks it: ``channels``, ``dies``,
    ``planes``, ``pages_per_block``, ``page_size``, ``tr_ns``, ``tprog_ns``, ``tbers_ns``,
    ``tsus_ns``, ``mts``, ``width``, ``transfer_ns``, ``bus``, ``unit``, ``clean``,
    ``unwritten``, ``suspend``, ``high``, ``buffer``, ``segment_pages``."""

def class_shares(config_json: str) -> dict[str, Any]:
    """``{"geometry": {...}, "classes": [{"pages": int, "write_share": float}, ...]}``, and
    ``"region_quotas": [int, ...]`` under ``regions`` with explicit shares."""

def write_page_trace(path: str, pages: Any, source: str) -> str:
    """Writes page ids as a converted trace; returns its metadata as JSON."""

def stand_in_pages(
    tracks: int, writes: int, p_repeat: float, p_near: float, near: int, alpha: float, beta: float, seed: int
) -> Any:
    """The stand-in for Stockmeyer's snake trace: a uint32 array of the track of each write."""

def stand_in_files_pages(
    tracks: int, writes: int, size_min: float, size_tail: float, size_max: int, frozen: float, skew: float,
    p_stack: float, depth: int, p_whole: float, run: float, p_repeat: float, drift: float, seed: int
) -> Any:
    """The file-structured stand-in for Stockmeyer's snake trace: a uint32 array of the track of
    each write."""

def check_trace(path: str, data: bytes) -> tuple[str, int, int, int, int, int]:
    """Checks a converted trace's bytes; returns its header (JSON) and the arrays' byte offsets."""

def request_sizes(path: str, format: str, slot_bytes: int, skip_bad_lines: bool = False,
                  device: str | None = None) -> tuple[list[tuple[int, int]], str]:
    """A text trace's write-request lengths in slots: [(slots, requests)], skipped lines (JSON)."""

@final
class TraceConverter:
    """Converts a text trace step by step."""

    def __new__(
        cls,
        path: str,
        format: str,
        page_size: int = 4096,
        rename: bool = False,
        skip_bad_lines: bool = False,
        device: str | None = None,
        blkparse_action: str = "Q",
        out: str | None = None,
    ) -> Self: ...
    def step(self, max_requests: int) -> bool: ...
    def lines(self) -> int: ...
    def write(self, out: str) -> str: ...
    def write_volumes(self, dir: str) -> tuple[str, str]: ...

@final
class Simulator:
    """A simulation, stepped from Python."""

    def __new__(cls, config_json: str) -> Self: ...
    def step(self, budget: int) -> bool:
        """Performs up to `budget` user writes without the GIL; returns whether writes remain."""
    def progress(self) -> tuple[int, int]:
        """(user writes done, user writes in all)."""
    def warnings(self) -> list[str]:
        """The warnings known so far (a method's on this trace: before the first write)."""
    def config_json(self) -> str: ...
    def keep_fact(self, name: str) -> None:
        """Keeps the fact named `name` (one of `facts()`) from the first write on."""
    def fact(self, name: str) -> npt.NDArray[Any]:
        """The fact's array as it is now, copied (empty when not kept)."""
    def check(self) -> None:
        """Checks the store's and the placement's invariants; raises RuntimeError on the first violation."""
    def result(self) -> dict[str, Any]:
        """The measured phase's metrics; arrays as numpy arrays."""

@final
class View:
    """What a scheme written in Python sees at a call; open only during the call."""

    @property
    def now(self) -> int: ...
    @property
    def destage(self) -> int: ...
    @property
    def trace_time(self) -> int: ...
    @property
    def candidates(self) -> int: ...
    @property
    def segments(self) -> int: ...
    @property
    def pages_per_segment(self) -> int: ...
    @property
    def valid(self) -> npt.NDArray[np.uint32]: ...
    @property
    def stamp(self) -> npt.NDArray[np.uint64]: ...
    @property
    def sealed_at(self) -> npt.NDArray[np.uint64]: ...
    @property
    def erase_count(self) -> npt.NDArray[np.uint32]: ...
    def fact(self, name: str) -> npt.NDArray[Any]: ...
    @property
    def rng(self) -> Generator: ...

@final
class Generator:
    """The run's generator, valid during a call only."""

    def random(self) -> float: ...
    def below(self, n: int) -> int: ...
