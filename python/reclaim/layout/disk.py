"""Disk geometry and seek-time curves; the expected seek time of a placement.

Dyal & Draughn §2: 509 cylinders hold the 7,121 tracks of Table 1 (14 tracks per cylinder, the
last one partly used); "nominal hardware value (35 msec) for a rectangular distribution", i.e.
the average seek under uniform independent references. Seek time depends on the distance in
cylinders; references to the same cylinder cost no seek.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: Dyal & Draughn §2.1: 7,121 tracks on 509 cylinders.
CYLINDERS = 509
TRACKS = 7121
TRACKS_PER_CYLINDER = 14


@dataclass(frozen=True)
class SeekCurve:
    """Seek time [ms] as a function of distance d ≥ 1 [cylinders]; t(0) = 0.

    ``shape``:
      - ``linear``: t(d) = a + b·d (the simplest nominal curve);
      - ``sqrt-linear``: Ruemmler & Wilkes: a + b·√d for d < ``knee`` and c + e·d beyond,
        continuous at the knee;
      - ``table``: piecewise-linear through measured points ``points`` = ((d, ms), …).
    """

    shape: str
    a: float = 0.0
    b: float = 0.0
    knee: float = 0.0
    points: tuple[tuple[float, float], ...] = ()

    def __call__(self, d: np.ndarray | float) -> np.ndarray:
        d = np.asarray(d, dtype=float)
        if self.shape == "linear":
            t = self.a + self.b * d
        elif self.shape == "sqrt-linear":
            # Continuous at the knee, slope matching √ at the knee: c + e·d with e = b/(2√knee).
            e = self.b / (2.0 * np.sqrt(self.knee))
            c = self.a + self.b * np.sqrt(self.knee) - e * self.knee
            t = np.where(d < self.knee, self.a + self.b * np.sqrt(d), c + e * d)
        elif self.shape == "table":
            xs, ys = zip(*self.points)
            t = np.interp(d, xs, ys)
        else:
            raise ValueError(f"invalid value for `shape`: `{self.shape}` (expected linear, sqrt-linear or table)")
        return np.where(d > 0, t, 0.0)

    def scaled(self, k: float) -> SeekCurve:
        """The curve with every time multiplied by k."""
        if self.shape == "table":
            return SeekCurve("table", points=tuple((x, k * y) for x, y in self.points))
        return SeekCurve(self.shape, a=k * self.a, b=k * self.b, knee=self.knee)


def uniform_average(curve: SeekCurve, cylinders: int = CYLINDERS) -> float:
    """Average seek [ms] under independent uniform references over ``cylinders``.

    >>> round(uniform_average(SeekCurve("linear", a=0.0, b=1.0), 100), 2)  # E|X − Y| ≈ n/3
    33.33
    """
    r = np.full(cylinders, 1.0 / cylinders)
    return expected_seek(r, curve)


def calibrate(curve: SeekCurve, average_ms: float = 35.0, cylinders: int = CYLINDERS) -> SeekCurve:
    """Scales a curve so that its uniform-reference average is ``average_ms`` (Dyal & Draughn's
    nominal 35 ms).

    >>> c = calibrate(SeekCurve("sqrt-linear", a=3.0, b=1.0, knee=200))
    >>> round(uniform_average(c), 6)
    35.0
    """
    base = uniform_average(curve, cylinders)
    return curve.scaled(average_ms / base)


def shapes() -> dict[str, SeekCurve]:
    """The seek-curve shapes compared, each calibrated to 35 ms average under uniform references.

    ``linear``: a start-up of 5 ms plus a constant speed; ``sqrt-linear``: Ruemmler & Wilkes's
    form with a knee at a fifth of the stroke; ``table``: a measured-style curve of a 1980s
    large-capacity drive (about 10 ms track-to-track, 55 ms full stroke).
    """
    return {
        "linear": calibrate(SeekCurve("linear", a=5.0, b=0.1)),
        "sqrt-linear": calibrate(SeekCurve("sqrt-linear", a=3.0, b=1.0, knee=CYLINDERS / 5)),
        "table": calibrate(SeekCurve("table", points=((1, 10.0), (50, 22.0), (100, 28.0), (200, 37.0), (300, 44.0), (400, 50.0), (508, 55.0)))),
    }


def expected_seek(refs_by_cylinder: np.ndarray, curve: SeekCurve) -> float:
    """Σ_c Σ_c' r_c·r_c'·t(|c − c'|) [ms]: the mean seek between two independent references.

    Args:
        refs_by_cylinder: Reference probability of each cylinder (summing to 1).
        curve: Seek time by distance.
    """
    r = np.asarray(refs_by_cylinder, dtype=float)
    n = len(r)
    t = curve(np.arange(n))
    # Σ_d t(d)·Σ_c r_c r_{c+d}, both orders of each pair: the autocorrelation of r.
    corr = np.correlate(r, r, mode="full")[n - 1 :]
    return float(t[0] * corr[0] + 2.0 * np.dot(t[1:], corr[1:]))
