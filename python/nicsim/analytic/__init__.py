"""Analytical models of nicsim: LAWS, the modified LAWS, the communication-time
model and the fitting of the modified LAWS to (gamma, delta_b) points.

Pure Python (numpy, scipy, pandas); plotting lives in :mod:`nicsim.analytic.plot`
and is imported on demand so that matplotlib stays optional here.
"""

from .fit import FitError, ModifiedFit, fit_modified, fit_modified_split, load_points
from .laws import (
    alpha_from_speed_fraction,
    c_ratio,
    comm_time_s,
    delta_b,
    delta_b_abs,
    delta_b_modified,
    effective_bandwidth_bps,
    gamma_bound,
    laws_prediction,
    limit_modified,
    normalised_ratios,
    offload_hurts,
    overhead_s,
    peak,
    peak_modified,
    slope_before_peak,
    throughput_after,
    throughput_after_abs,
    throughput_before,
    throughput_before_abs,
)

__all__ = [
    "FitError", "ModifiedFit", "fit_modified", "fit_modified_split", "load_points",
    "alpha_from_speed_fraction", "c_ratio", "comm_time_s", "delta_b", "delta_b_abs",
    "delta_b_modified", "effective_bandwidth_bps", "gamma_bound", "laws_prediction",
    "limit_modified", "normalised_ratios", "offload_hurts", "overhead_s", "peak",
    "peak_modified", "slope_before_peak", "throughput_after", "throughput_after_abs",
    "throughput_before", "throughput_before_abs",
]
