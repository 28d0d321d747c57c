"""Run an SBC case: replications (in worker processes if asked), test, files."""

from __future__ import annotations

import concurrent.futures
import multiprocessing
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from bayeswe.atomic import savefig_atomic, write_json_atomic, write_text_atomic
from bayeswe.options import check_int
from bayeswe.progress import Progress
from bayeswe.sbc.cases import BROKEN, CASES, N_DRAWS, SBCCase, replicate
from bayeswe.sbc.core import UniformityTest, power, uniformity_test
from bayeswe.stan.log import level_for

__all__ = ["SBCResult", "run_sbc", "write_sbc"]

#: Family level of the reported verdict (Bonferroni over a case's statistics).
LEVEL = 0.01
BINS = 10
#: Least power, against every one of :data:`ALTERNATIVES`, for a "calibrated" verdict.
MIN_POWER = 0.8
#: Verdict when the test does not reject but could not have rejected those alternatives.
NOT_ENOUGH = "not enough replications"
#: Alternatives the stated power refers to (one statistic's posterior off by this much).
ALTERNATIVES: dict[str, dict[str, float]] = {
    "sd_x1.25": {"sd_ratio": 1.25},
    "sd_x0.8": {"sd_ratio": 0.8},
    "shift_0.25sd": {"shift": 0.25},
}


@dataclass(frozen=True)
class SBCResult:
    """Ranks of one case, their uniformity test, and the test's power."""

    case: SBCCase
    seed: int
    #: ``(replications, statistics)`` ranks in ``0..n_draws``.
    ranks: NDArray[np.int64]
    n_draws: int
    test: UniformityTest
    level: float
    #: Probability of rejection at :attr:`level` under each of :data:`ALTERNATIVES`.
    power: dict[str, float]
    wall_time_s: float
    workers: int

    @property
    def replications(self) -> int:
        return int(self.ranks.shape[0])

    @property
    def passed(self) -> bool:
        return self.test.family_p_value > self.level

    @property
    def min_power(self) -> float:
        """The test's power against the least detectable of :data:`ALTERNATIVES`."""
        return min(self.power.values()) if self.power else 0.0

    @property
    def verdict(self) -> str:
        """``"miscalibrated"``, ``"calibrated"`` or :data:`NOT_ENOUGH`.

        A rejection at the family level is a verdict at any number of replications (its
        false-alarm rate is the level). No rejection means "calibrated" only when the
        test would have rejected each stated alternative with probability
        :data:`MIN_POWER` or more; otherwise the run is too small to tell.
        """
        if not self.passed:
            return "miscalibrated"
        return "calibrated" if self.min_power >= MIN_POWER else NOT_ENOUGH

    @property
    def verdict_note(self) -> str:
        """Why :attr:`verdict` (empty for a run with enough replications)."""
        if self.verdict != NOT_ENOUGH:
            return ""
        weakest = min(self.power, key=self.power.__getitem__) if self.power else "?"
        return (
            f"power {self.min_power:.2f} < {MIN_POWER} against {weakest} at "
            f"{self.replications} replications: no verdict (run more with -R)"
        )

    @property
    def outer_share(self) -> float:
        """Share of all ranks in the two outer bins (``2 / bins`` when calibrated)."""
        counts = self.test.counts.sum(axis=0)
        return float((counts[0] + counts[-1]) / counts.sum())

    @property
    def implied_sd_ratio(self) -> float:
        """Draws' sd over the posterior's that gives :attr:`outer_share` (normal model).

        With draws ``N(0, c^2)`` and the truth ``N(0, 1)``, the truth's rank falls in the
        outer ``1 / bins`` on each side with probability ``2 (1 - Phi(c z))``,
        ``z = Phi^-1(1 - 1 / bins)``: solved for ``c``. Below 1: too narrow (a U),
        above 1: too wide (a hump); a summary of how far off, pooled over statistics.
        """
        from scipy import stats

        z = stats.norm.ppf(1.0 - 1.0 / self.test.bins)
        share = min(max(self.outer_share, 1e-12), 1.0 - 1e-12)
        return float(stats.norm.ppf(1.0 - share / 2.0) / z)

    def summary(self) -> dict[str, Any]:
        worst = int(np.argmin(self.test.p_values))
        return {
            "sampler": self.case.name,
            "approximate": self.case.approximate,
            "replications": self.replications,
            "draws_per_replication": self.n_draws,
            "bins": self.test.bins,
            "statistics": len(self.case.statistics),
            "family_p_value": self.test.family_p_value,
            "min_p_value": float(self.test.p_values[worst]),
            "worst_statistic": self.case.statistics[worst],
            "level": self.level,
            "verdict": self.verdict,
            "verdict_note": self.verdict_note,
            "min_power": self.min_power,
            "min_power_for_verdict": MIN_POWER,
            "outer_share": self.outer_share,
            "implied_sd_ratio": self.implied_sd_ratio,
            **{f"power_{k}": v for k, v in self.power.items()},
        }

    def frame(self) -> pd.DataFrame:
        """Ranks as a table: one row per replication, one column per statistic."""
        out = pd.DataFrame(self.ranks, columns=list(self.case.statistics))
        out.index.name = "replication"
        return out


def _init_worker(log_level: int) -> None:
    # one thread per worker process: replications run side by side, not nested
    import numba

    from bayeswe.stan.log import set_cmdstanpy_level

    numba.set_num_threads(1)
    set_cmdstanpy_level(log_level)  # as quiet as the parent (spawned: nothing inherited)


def run_sbc(
    sampler: str,
    *,
    replications: int = 200,
    seed: int = 20261125,
    workers: int = 1,
    progress: bool | None = None,
    verbose: bool = False,
) -> SBCResult:
    """Simulation-based calibration of one sampler (see :mod:`bayeswe.sbc.cases`).

    Replication ``r`` draws everything from ``SeedSequence(seed, spawn_key=(r,))``, so
    the ranks do not depend on ``workers`` or on the order replications finish.
    cmdstanpy's log is off in the worker processes unless ``verbose``.
    """
    if sampler not in CASES and sampler not in BROKEN:
        raise ValueError(f"unknown SBC sampler {sampler!r}; choose from {', '.join(CASES)}")
    check_int("replications", replications, minimum=BINS)
    check_int("seed", seed, minimum=0)
    check_int("workers", workers, minimum=1)
    case = (CASES.get(sampler) or BROKEN[sampler])[0]
    ranks = np.empty((replications, len(case.statistics)), dtype=np.int64)
    bar = Progress(replications, f"sbc {sampler}", unit="replication", show=progress)
    start = time.perf_counter()
    if workers == 1:
        for r in range(replications):
            ranks[r] = replicate(sampler, seed, r)
            bar.update(1)
    else:
        context = multiprocessing.get_context("spawn")
        with concurrent.futures.ProcessPoolExecutor(
            workers,
            mp_context=context,
            initializer=_init_worker,
            initargs=(level_for(verbose),),
        ) as pool:
            futures = {pool.submit(replicate, sampler, seed, r): r for r in range(replications)}
            for future in concurrent.futures.as_completed(futures):
                ranks[futures[future]] = future.result()
                bar.update(1)
    bar.close()
    wall = time.perf_counter() - start
    test = uniformity_test(ranks, N_DRAWS, BINS)
    m = len(case.statistics)
    pw = {
        name: power(
            replications=replications,
            n_draws=N_DRAWS,
            n_statistics=m,
            level=LEVEL,
            bins=BINS,
            **alt,
        )  # fmt: skip
        for name, alt in ALTERNATIVES.items()
    }
    return SBCResult(case, seed, ranks, N_DRAWS, test, LEVEL, pw, wall, workers)


def _histogram_figure(result: SBCResult) -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from scipy import stats

    m = len(result.case.statistics)
    cols = min(m, 5)
    rows = -(-m // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(2.6 * cols, 2.0 * rows), squeeze=False)
    R, B = result.replications, result.test.bins
    # 99 % band of one bin's count under uniform ranks (binomial)
    lo, hi = stats.binom.ppf([0.005, 0.995], R, 1.0 / B)
    for j, ax in enumerate(axes.ravel()):
        if j >= m:
            ax.axis("off")
            continue
        ax.axhspan(lo, hi, color="0.85")
        ax.axhline(R / B, color="0.5", lw=0.8)
        ax.bar(np.arange(B), result.test.counts[j], width=0.9, color="C0")
        ax.set_title(f"{result.case.statistics[j]}\np={result.test.p_values[j]:.2g}", fontsize=7)
        ax.set_xticks([])
        ax.tick_params(labelsize=6)
    fig.suptitle(
        f"SBC {result.case.name}: {R} replications, {result.n_draws} draws each; "
        f"family p = {result.test.family_p_value:.2g} (grey: 99 % band per bin)",
        fontsize=8,
    )
    fig.tight_layout()
    return fig


def write_sbc(result: SBCResult, out: str | os.PathLike[str], facts: dict[str, Any]) -> Path:
    """Write ``ranks.csv``, ``histogram.png`` and ``results.json`` into ``out/<sampler>/``.

    Each file is written under a temporary name and renamed when complete.
    """
    import matplotlib.pyplot as plt

    directory = Path(out) / result.case.name
    directory.mkdir(parents=True, exist_ok=True)
    write_text_atomic(directory / "ranks.csv", result.frame().to_csv())
    fig = _histogram_figure(result)
    try:
        savefig_atomic(fig, directory / "histogram.png", dpi=110)
    finally:
        plt.close(fig)
    record = {
        "summary": result.summary(),
        "design": result.case.design,
        "settings": result.case.settings,
        "seed": result.seed,
        "workers": result.workers,
        "wall_time_s": round(result.wall_time_s, 3),
        "p_values": dict(zip(result.case.statistics, result.test.p_values.tolist(), strict=True)),
        "bin_counts": dict(zip(result.case.statistics, result.test.counts.tolist(), strict=True)),
        "power_alternatives": ALTERNATIVES,
        "power_note": (
            "probability that the family test rejects at the stated level when one "
            "statistic's draws come from a normal with the posterior's sd times sd_ratio "
            "(or its mean shifted by shift posterior sds); Monte Carlo, 2000 tests"
        ),
        "run": facts,
    }
    write_json_atomic(directory / "results.json", record, indent=2)
    return directory
