"""Time under cleaning, in closed form: what a flash device's dies can do for a given write
amplification, beside the simulator's timed runs (``--device``).

- **Die time per request.** A user page write costs WA programs and WA − 1 relocation reads
  (WA = programs / user writes). A segment is a superblock, one block on every plane of every
  die: it takes P = channels·dies·planes·pages_per_block programs to fill, so a user write costs
  WA / P superblock erases. The engine erases a superblock with one multi-plane erase on each die
  (its planes' blocks together, one tBERS on every die's timeline): WA·dies_total / P =
  WA / (planes·pages_per_block) die erases per user write. Summed over all dies, a user write
  occupies the dies for S_w = WA·tPROG + (WA − 1)·tR + WA·tBERS / (planes·pages_per_block), of
  which all but the write's own tPROG is cleaning's; a single-page read occupies one die for tR.
  Pages of different planes of a die are read and programmed one after the other (one timeline
  per die).
- **Channel time.** A page moves over its channel once per program (in) and once per read (out):
  (2·WA − 1)·tX per user write and tX per read, tX = page_size·8 / width transfers at ``mts``
  million a second, with ``bus=on`` (off, transfers take no time). As in the engine a die is
  busy for its array times only (a read's page crosses the channel after tR, a program's before
  tPROG) and each channel is a resource of its own.
- **Utilisation and saturation** (operational laws: the utilisation law U = X·D and the bound
  X ≤ 1 / D_max of asymptotic bound analysis, Lazowska, Zahorjan, Graham & Sevcik,
  "Quantitative System Performance", 1984, §3.2 and §5.2): die utilisation ρ = (λ_w·S_w +
  λ_r·tR) / dies; saturation IOPS = dies / (r·tR + (1 − r)·S_w) for a share r of reads, or the
  channels' bound when it is lower.
- **Open loop (Poisson).** Requests spread uniformly over independent dies make each die an
  M/G/1 queue at rate λ / dies (a Poisson stream thinned at random stays Poisson). The mean wait
  is Pollaczek–Khinchine's, W = λ·E[S²] / (2(1 − ρ)) (Kleinrock, "Queueing Systems" vol. 1,
  1975, ch. 5). Single-page reads alone have a constant service tR: an M/D/1 queue, whose
  waiting-time distribution is Erlang's, the one-server case of Crommelin's (1932, M/D/c),
  P(W ≤ t) = (1 − ρ) Σ_{k=0}^{⌊t/D⌋} (λ(kD − t))^k / k! · e^{−λ(kD − t)},
  evaluated here exactly (decimal arithmetic wide enough that the alternating sum cannot cancel)
  and inverted by Brent's method for percentiles. Latency = wait + service (+ tX).
- **Closed loop (a queue depth).** Dyal & Draughn, "Performance Aspects of Disk Space
  Management", §2.3–2.4 and Fig. 3: N customers cycle between a delay station (think time) and
  the central site's queueing stations; throughput against response time, solved by exact mean
  value analysis (Reiser & Lavenberg 1980; :func:`reclaim.layout.queueing.mva`). Here the N customers are the queue depth,
  the stations the dies (a request visits one die, chosen uniformly: demand S / dies at each)
  and, with ``bus=on``, the channels. MVA is exact for a product-form network (exponential
  service); flash service times are nearly constant, so it is the classic approximation there:
  exact at N = 1 and at saturation (X → dies / S), pessimistic in between.

Units: times in µs [1e-6 s], rates in requests per second (IOPS), sizes in bytes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from decimal import Decimal, localcontext

from scipy.optimize import brentq


@dataclass(frozen=True)
class Device:
    """A flash device's geometry and times, as ``--device`` names them.

    Attributes:
        channels: Channels, ≥ 1.
        dies: Dies per channel, ≥ 1.
        planes: Planes per die, ≥ 1.
        pages_per_block: Pages per block, ≥ 1.
        page_size: Page size [bytes], ≥ 1.
        tr: Page read time tR [µs], > 0.
        tprog: Page program time tPROG [µs], > 0.
        tbers: Block erase time tBERS [µs], ≥ 0.
        mts: Channel rate [MT/s], > 0.
        width: Channel width [bits], ≥ 1.
        bus: Page transfers take their channel, one at a time (``bus=on``); off, they take no
            time.
        free_cleaning: Cleaning takes no device time (``clean=free``, the ideal device without
            garbage collection): a user write costs its own program alone.
        holds_die: A die is held while its page crosses the channel (``bus=on``, as MQSim's chip
            takes data in before it programs and holds a read page until it is out), so each
            transfer counts on the die too; with ``bus=fifo`` (FEMU's) it does not.
        plane_unit: A segment is one plane's block (``unit=plane``): an erase is one block on
            one die, so a user write costs WA·tBERS / pages_per_block of erase, not
            WA·tBERS / (planes·pages_per_block) as with a superblock's multi-plane erase.
    """

    channels: int
    dies: int
    planes: int
    pages_per_block: int
    page_size: int
    tr: float
    tprog: float
    tbers: float
    mts: float
    width: int
    bus: bool
    free_cleaning: bool = False
    plane_unit: bool = False
    holds_die: bool = False

    @property
    def total_dies(self) -> int:
        """Dies in the device: channels × dies per channel."""
        return self.channels * self.dies

    @property
    def pages_per_segment(self) -> int:
        """Pages of a segment: a superblock's channels × dies × planes × pages_per_block, or
        with ``unit=plane`` one block's."""
        if self.plane_unit:
            return self.pages_per_block
        return self.channels * self.dies * self.planes * self.pages_per_block

    @property
    def transfer(self) -> float:
        """tX, one page over its channel [µs]: page_size × 8 / width transfers at ``mts`` million
        a second, rounded to the nanosecond as the engine does; 0 with the bus off (transfers then
        take no time)."""
        return round(self.page_size * 8.0 / self.width / self.mts * 1e3) / 1e3 if self.bus else 0.0


#: FEMU's black-box SSD (FEMU ``hw/femu/bbssd/ftl.h`` NAND_*_LATENCY, ``ftl.c``
#: ``ssd_init_params``): 8 channels × 8 dies, one plane, 256 pages of 4 KiB per block, tR 40 µs,
#: tPROG 200 µs, tBERS 2 ms, no transfer time (``ch_xfer_lat = 0``: the bus is off).
FEMU = Device(channels=8, dies=8, planes=1, pages_per_block=256, page_size=4096, tr=40.0, tprog=200.0, tbers=2000.0,
              mts=333.0, width=8, bus=False)
#: MQSim's default ``ssdconfig.xml`` (CMU-SAFARI/MQSim): 8 channels × 4 chips × 2 dies, 2 planes,
#: 256 pages of 8 KiB per block, tR 75 µs, tPROG 750 µs, tBERS 3.8 ms, an 8-bit channel at
#: 333 MT/s (24.6 µs per page).
MQSIM = Device(channels=8, dies=8, planes=2, pages_per_block=256, page_size=8192, tr=75.0, tprog=750.0, tbers=3800.0,
               mts=333.0, width=8, bus=True)
PRESETS = {"femu": FEMU, "mqsim": MQSIM}

def parse(spec: str) -> Device:
    """The device of a ``--device PRESET[:key=value,...]`` text, with the simulator's keys, units
    and ranges.

    Args:
        spec: A preset (``femu``, ``mqsim``), then optionally ``:`` and ``key=value`` pairs
            separated by ``,``: ``channels``, ``dies`` (per channel), ``planes`` (per die),
            ``pages_per_block``, ``page_size`` (bytes, ``4KiB``), ``tr``, ``tprog``, ``tbers``
            (``40us``, ``2ms``, ``750000ns``), ``mts``, ``width`` (bits), ``bus=on|off|fifo``,
            ``unit=superblock|plane``, ``clean`` (``free``: no cleaning time). The engine's
            other keys (``high``, ``buffer``, ``unwritten``, ``suspend``, ``tsus``) are checked
            and change nothing here.

    Returns:
        The :class:`Device`.

    Raises:
        ValueError: An unknown preset or key, or a value out of its range (named), in the
            engine's words.

    >>> d = parse("femu:channels=4,tr=50us")
    >>> d.total_dies, d.tr, d.tprog, d.pages_per_segment, d.transfer
    (32, 50.0, 200.0, 8192, 0.0)
    >>> round(parse("mqsim").transfer, 3)  # 8192 B over 333 MT/s × 1 byte
    24.601
    """
    from reclaim import _core

    # The engine parses and checks the text (same acceptance and message as `reclaim simulate
    # --device`) and gives its values back.
    v = _core.device(spec)
    return Device(channels=v["channels"], dies=v["dies"], planes=v["planes"], pages_per_block=v["pages_per_block"],
                  page_size=v["page_size"], tr=v["tr_ns"] / 1e3, tprog=v["tprog_ns"] / 1e3, tbers=v["tbers_ns"] / 1e3,
                  mts=v["mts"], width=v["width"], bus=v["bus"] != "off", free_cleaning=v["clean"] == "free",
                  plane_unit=v["unit"] == "plane", holds_die=v["bus"] == "on")


def _check_wa(wa: float) -> None:
    if not (math.isfinite(wa) and wa >= 1.0):
        raise ValueError(f"invalid value for `wa`: {wa} (expected a write amplification, finite and ≥ 1)")


def _check_share(reads: float) -> None:
    if not 0.0 <= reads <= 1.0:
        raise ValueError(f"invalid value for `reads`: {reads} (expected a share in [0, 1])")


@dataclass(frozen=True)
class Cost:
    """What one user page write costs the device (all dies and channels together).

    Attributes:
        die: Die time S_w [µs] = WA·tPROG + (WA − 1)·tR + WA·tBERS / (planes·pages_per_block).
        gc: The part of ``die`` spent cleaning [µs]: relocation reads and programs and erases.
        channel: Channel time [µs] = (2·WA − 1)·tX (0 unless ``bus=on``).
    """

    die: float
    gc: float
    channel: float


def read_cost(dev: Device) -> float:
    """A host page read's die time [µs]: tR, and its transfer where the die holds the page
    until it is out (``bus=on``)."""
    return dev.tr + (dev.transfer if dev.holds_die else 0.0)


def write_cost(dev: Device, wa: float) -> Cost:
    """The flash time of one user page write at write amplification ``wa`` (module docstring);
    with ``clean=free`` its own program alone, whatever ``wa``.

    >>> c = write_cost(FEMU, 2.0)  # 2·200 + 1·40 + 2·2000/(1·256) = 455.625 µs
    >>> c.die, c.gc, c.channel
    (455.625, 255.625, 0.0)
    """
    _check_wa(wa)
    held = dev.transfer if dev.holds_die else 0.0
    if dev.free_cleaning:
        return Cost(dev.tprog + held, 0.0, dev.transfer)
    erase = wa * dev.tbers / (dev.pages_per_block * (1 if dev.plane_unit else dev.planes))
    die = wa * (dev.tprog + held) + (wa - 1.0) * (dev.tr + held) + erase
    return Cost(die, die - dev.tprog - held, (2.0 * wa - 1.0) * dev.transfer if dev.bus else 0.0)


@dataclass(frozen=True)
class Load:
    """The device's load at an offered rate.

    Attributes:
        die_busy: Mean busy share of the dies, ρ (≥ 1: the rate is beyond saturation).
        gc_busy: Share of die busy time spent cleaning.
        channel_busy: Mean busy share of the channels (0 unless ``bus=on``).
    """

    die_busy: float
    gc_busy: float
    channel_busy: float


def utilisation(dev: Device, wa: float, writes_per_s: float, reads_per_s: float = 0.0) -> Load:
    """Utilisation law: die busy share ρ = (λ_w·S_w + λ_r·tR) / dies (rates in IOPS, times in µs).

    >>> u = utilisation(FEMU, 1.0, 0.0, 800_000.0)  # 800,000 reads/s × 40 µs over 64 dies
    >>> round(u.die_busy, 6)
    0.5
    """
    if not (math.isfinite(writes_per_s) and writes_per_s >= 0 and math.isfinite(reads_per_s) and reads_per_s >= 0):
        raise ValueError(f"invalid value for `rate`: {writes_per_s} writes/s, {reads_per_s} reads/s (expected finite rates ≥ 0)")
    c = write_cost(dev, wa)
    busy = (writes_per_s * c.die + reads_per_s * read_cost(dev)) * 1e-6
    chan = (writes_per_s * c.channel + reads_per_s * dev.transfer) * 1e-6 if dev.bus else 0.0
    return Load(busy / dev.total_dies, writes_per_s * c.gc * 1e-6 / busy if busy > 0 else 0.0, chan / dev.channels)


def saturation_iops(dev: Device, wa: float, reads: float = 0.0) -> float:
    """The most requests per second the device completes: dies / (r·tR + (1 − r)·S_w), or the
    channels' C / (r·tX + (1 − r)·(2·WA − 1)·tX) when ``bus=on`` and that is lower.

    Args:
        dev: The device.
        wa: Write amplification, ≥ 1.
        reads: Share r of requests that are single-page reads, in [0, 1].

    >>> round(saturation_iops(FEMU, 1.0))  # 64 dies / (200 + 2000/256 µs)
    307970
    >>> round(saturation_iops(FEMU, 1.0, reads=1.0))  # 64 dies / 40 µs
    1600000
    """
    _check_share(reads)
    c = write_cost(dev, wa)
    x = dev.total_dies / ((reads * read_cost(dev) + (1.0 - reads) * c.die) * 1e-6)
    chan = reads * dev.transfer + (1.0 - reads) * c.channel if dev.bus else 0.0
    return min(x, dev.channels / (chan * 1e-6)) if chan > 0 else x


def pk_mean_wait(rate: float, mean: float, second_moment: float) -> float:
    """Pollaczek–Khinchine: the mean wait of an M/G/1 queue, W = λ·E[S²] / (2(1 − ρ)), ρ = λ·E[S]
    (Kleinrock vol. 1, ch. 5). Times and rate in reciprocal units.

    Raises:
        ValueError: ρ ≥ 1 (no steady state).

    >>> pk_mean_wait(0.5, 1.0, 1.0)  # M/D/1 at ρ = 0.5: ρ·D / (2(1 − ρ)) = 0.5
    0.5
    """
    rho = rate * mean
    if not (math.isfinite(rho) and 0.0 <= rho < 1.0):
        raise ValueError(f"invalid value for `utilisation`: {rho} (expected ρ = rate × service in [0, 1) for a steady state)")
    return rate * second_moment / (2.0 * (1.0 - rho))


def _check_md1(rate: float, service: float) -> float:
    if not (math.isfinite(service) and service > 0):
        raise ValueError(f"invalid value for `service`: {service} (expected a time > 0)")
    rho = rate * service
    if not (math.isfinite(rho) and 0.0 <= rho < 1.0):
        raise ValueError(f"invalid value for `utilisation`: {rho} (expected ρ = rate × service in [0, 1) for a steady state)")
    return rho


def md1_wait_cdf(t: float, rate: float, service: float) -> float:
    """P(W ≤ t), the exact waiting-time distribution of the M/D/1 queue (Erlang; Crommelin 1932):
    (1 − ρ) Σ_{k=0}^{⌊t/D⌋} (λ(kD − t))^k / k! · e^{−λ(kD − t)}.

    The terms alternate in sign and reach about e^{2λt} times the sum they cancel to: double
    precision loses 2λt / ln 10 of its 16 digits (half of them at ρ = 0.9, t = 20·D; the sum
    exceeds 1 by t = 30·D). It is summed in decimal arithmetic with 2λt / ln 10 + 30 significant
    digits, so that 30 survive the cancellation: the result is exact to double precision.

    Args:
        t: Time, ≥ 0 (same unit as ``service``).
        rate: Arrival rate λ (reciprocal unit).
        service: Constant service time D, > 0.

    >>> round(md1_wait_cdf(0.0, 0.5, 1.0), 12)  # P(W = 0) = 1 − ρ
    0.5
    >>> round(md1_wait_cdf(1.5, 0.5, 1.0), 10)  # 0.5·(e^0.75 − 0.25·e^0.25), two terms
    0.8979968312
    """
    rho = _check_md1(rate, service)
    if not math.isfinite(t):
        raise ValueError(f"invalid value for `t`: {t} (expected a finite time ≥ 0)")
    if t < 0:
        return 0.0
    if rho == 0.0:
        return 1.0
    n = math.floor(t / service)
    with localcontext() as ctx:
        ctx.prec = int(2.0 * rate * t / math.log(10.0)) + 30
        lam, d, tt = Decimal(rate), Decimal(service), Decimal(t)
        # e^{−λ(kD − t)} = e^{λt}·q^k with q = e^{−λD}: two exponentials for the whole sum.
        q = (-lam * d).exp()
        total = Decimal(1)  # k = 0 (Decimal leaves 0**0 undefined)
        fact = Decimal(1)
        for k in range(1, n + 1):
            fact *= k
            total += (lam * (k * d - tt) * q) ** k / fact
        total *= (lam * tt).exp()
        value = float((1 - Decimal(rho)) * total)
    return min(1.0, max(0.0, value))


def md1_wait_quantile(p: float, rate: float, service: float) -> float:
    """The p-quantile of the M/D/1 wait: the least t with P(W ≤ t) ≥ p, by Brent's method on
    :func:`md1_wait_cdf` (0 when p ≤ 1 − ρ, the chance of not waiting).

    >>> md1_wait_quantile(0.4, 0.5, 1.0)
    0.0
    >>> round(md1_wait_quantile(0.99, 0.5, 1.0), 4)
    3.3363
    """
    rho = _check_md1(rate, service)
    if not 0.0 < p < 1.0:
        raise ValueError(f"invalid value for `p`: {p} (expected a probability in (0, 1))")
    if p <= 1.0 - rho:
        return 0.0
    hi = service
    while md1_wait_cdf(hi, rate, service) < p:
        hi *= 2.0
    return float(brentq(lambda t: md1_wait_cdf(t, rate, service) - p, 0.0, hi, xtol=1e-12 * service, rtol=1e-12))


#: The percentiles a timed run reports (``time.read_latency``): name and probability.
PERCENTILES = (("p50", 0.5), ("p90", 0.9), ("p99", 0.99), ("p999", 0.999), ("p9999", 0.9999))


def read_latency(dev: Device, reads_per_s: float) -> dict[str, float]:
    """Latency of Poisson single-page reads alone, spread uniformly over the dies: each die is an
    M/D/1 queue at λ / dies with service tR; latency = wait + tR + tX [µs].

    Returns:
        ``mean`` and ``p50`` … ``p9999`` [µs], the names of a timed run's ``read_latency``.

    >>> lat = read_latency(FEMU, 64 * 0.5 / 40e-6)  # ρ = 0.5 on every die
    >>> round(lat["mean"], 9)  # 40 + 0.5·40 / (2·0.5)
    60.0
    """
    rate = reads_per_s / dev.total_dies * 1e-6
    extra = dev.tr + dev.transfer
    out = {"mean": pk_mean_wait(rate, dev.tr, dev.tr**2) + extra}
    for name, p in PERCENTILES:
        out[name] = md1_wait_quantile(p, rate, dev.tr) + extra
    return out


@dataclass(frozen=True)
class ClosedLoop:
    """Exact MVA of a closed loop at a queue depth.

    Attributes:
        iodepth: Requests outstanding, N.
        iops: Throughput X(N) [requests/s].
        response: Mean response time R(N) [µs], think time excluded.
        die_busy: Die utilisation X·S / dies.
    """

    iodepth: int
    iops: float
    response: float
    die_busy: float


def closed_loop(dev: Device, wa: float, iodepth: int, reads: float = 0.0, think: float = 0.0, channels: bool = True) -> ClosedLoop:
    """Dyal & Draughn's closed model (§2.3–2.4, Fig. 3) over the device: ``iodepth`` customers,
    a delay station of ``think`` µs, one queueing station per die with demand S / dies
    (S = r·tR + (1 − r)·S_w) and, with ``bus=on`` and ``channels``, one per channel with the
    channel time / channels; solved by exact MVA (:func:`reclaim.layout.queueing.mva`).

    >>> c = closed_loop(FEMU, 1.0, 1, reads=1.0)  # one read at a time: 1 / 40 µs
    >>> round(c.iops), round(c.response, 6)
    (25000, 40.0)
    """
    from reclaim.layout import queueing

    _check_share(reads)
    if not (isinstance(iodepth, int) and iodepth >= 1):
        raise ValueError(f"invalid value for `iodepth`: {iodepth} (expected a whole number ≥ 1)")
    if not (math.isfinite(think) and think >= 0):
        raise ValueError(f"invalid value for `think`: {think} (expected a time in µs, finite and ≥ 0)")
    # A die held while its page crosses the channel holds two stations at once, which MVA does
    # not express: the die's demand is its array time, the channel's its transfers.
    dev = replace(dev, holds_die=False)
    c = write_cost(dev, wa)
    s = reads * read_cost(dev) + (1.0 - reads) * c.die
    demands = [s / dev.total_dies] * dev.total_dies
    chan = reads * dev.transfer + (1.0 - reads) * c.channel if dev.bus else 0.0
    if channels and chan > 0:
        demands += [chan / dev.channels] * dev.channels
    # queueing.mva takes seconds and reports per minute (the paper's units).
    sol = queueing.mva([d * 1e-6 for d in demands], think * 1e-6, iodepth)
    x = float(sol.throughput_per_minute[-1]) / 60.0
    return ClosedLoop(iodepth, x, float(sol.response_seconds[-1]) * 1e6, x * s * 1e-6 / dev.total_dies)
