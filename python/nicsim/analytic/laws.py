"""LAWS, the modified LAWS and the communication-time model (spec: laws.md).

Conventions (laws.md §2.3, §3.2, §3.3):

* alpha is LAWS's lag ratio Y/X = host speed / CP speed, so a CP twice as
  slow as the host has alpha = 2.  A speed given as a fraction of the host's
  (the thesis's "alpha" of 75 %, 50 %, 25 %) converts with
  :func:`alpha_from_speed_fraction`.
* gamma = a/o (application ratio), sigma = 1/(oXB) (wire ratio), beta is the
  structural ratio and p the offloaded fraction of the overhead.
* Normalised throughputs are in units of 1/(oX): the rate at which the host
  could communicate if it did nothing else.
* The modified LAWS uses multiplicative deviations (a -> a(1+delta_a),
  o -> o(1+delta_o), host work W -> W(1+tau)) and the corrected CP term
  1/(p*beta*o*(1+delta_o)*Y); the thesis prints an extra factor o there.
* 1/0 is +inf (it happens at p = 1, gamma = 0 and at p = 0).

Every function broadcasts its arguments with numpy and returns a numpy scalar
for scalar inputs, an array otherwise.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "alpha_from_speed_fraction",
    "normalised_ratios",
    "throughput_before_abs",
    "throughput_after_abs",
    "delta_b_abs",
    "nic_term_abs",
    "throughput_before",
    "throughput_after",
    "delta_b",
    "laws_prediction",
    "c_ratio",
    "peak",
    "slope_before_peak",
    "gamma_bound",
    "offload_hurts",
    "delta_b_modified",
    "peak_modified",
    "limit_modified",
    "comm_time_s",
    "overhead_s",
    "effective_bandwidth_bps",
]


def _arr(x, name: str, low: float | None = None, high: float | None = None,
         low_open: bool = False) -> np.ndarray:
    """Float array of *x*, checked against a domain so errors name the argument."""
    a = np.asarray(x, dtype=float)
    if not np.all(np.isfinite(a)):
        raise ValueError(f"{name} must be finite; got {x!r}")
    if low is not None and np.any(a <= low if low_open else a < low):
        op = ">" if low_open else ">="
        raise ValueError(f"{name} must be {op} {low:g}; got {x!r}")
    if high is not None and np.any(a > high):
        raise ValueError(f"{name} must be <= {high:g}; got {x!r}")
    return a


def _inv(x: np.ndarray) -> np.ndarray:
    """1/x for x >= 0, with 1/0 = +inf as laws.md §2.4 asks."""
    x = np.asarray(x, dtype=float)
    with np.errstate(over="ignore"):  # 1/subnormal overflows to inf, which is the intent
        return np.divide(1.0, x, out=np.full(x.shape, np.inf), where=x != 0)


def _ret(x: np.ndarray):
    return np.asarray(x)[()]


def alpha_from_speed_fraction(speed_fraction):
    """LAWS alpha = Y/X from a CP speed given as a fraction of the host's."""
    return _ret(1.0 / _arr(speed_fraction, "speed_fraction", 0.0, low_open=True))


def normalised_ratios(a, o, x_s, y_s, link_bps) -> dict:
    """gamma, alpha and sigma from the absolute LAWS parameters (laws.md §2.3).

    a, o: host work per bit (any unit of work, e.g. reference cycles/bit);
    x_s, y_s: seconds per unit of work on the host and on the CP;
    link_bps: link bandwidth B in bit/s.
    """
    a = _arr(a, "a", 0.0)
    o = _arr(o, "o", 0.0, low_open=True)
    x_s = _arr(x_s, "X", 0.0, low_open=True)
    y_s = _arr(y_s, "Y", 0.0, low_open=True)
    link_bps = _arr(link_bps, "B", 0.0, low_open=True)
    return {"gamma": _ret(a / o), "alpha": _ret(y_s / x_s),
            "sigma": _ret(1.0 / (o * x_s * link_bps))}


# --- original LAWS, absolute form (Eqs 1.4-1.8) -----------------------------

def throughput_before_abs(a, o, x_s, link_bps):
    """B_before = min(B, 1/(aX + oX)) in bit/s (Eq. 1.4)."""
    a, o = _arr(a, "a", 0.0), _arr(o, "o", 0.0, low_open=True)
    x_s = _arr(x_s, "X", 0.0, low_open=True)
    link_bps = _arr(link_bps, "B", 0.0, low_open=True)
    return _ret(np.minimum(link_bps, _inv(a * x_s + o * x_s)))


def nic_term_abs(p, beta, o, y_s, delta_o=0.0, printed=False):
    """CP throughput term of the modified LAWS, in bit/s.

    Corrected (laws.md §3.2): 1/(p*beta*o*(1+delta_o)*Y).  With printed=True
    the thesis's misprinted 1/(beta*o*(1+delta_o)*p*o*Y) is returned instead;
    it scales with 1/o**2, so it is not a bandwidth (kept for the units check).
    """
    p = _arr(p, "p", 0.0, 1.0)
    beta = _arr(beta, "beta", 0.0)
    o = _arr(o, "o", 0.0, low_open=True)
    y_s = _arr(y_s, "Y", 0.0, low_open=True)
    work = p * beta * o * (1.0 + _arr(delta_o, "delta_o", -1.0, low_open=True)) * y_s
    return _ret(_inv(work * o if printed else work))


def throughput_after_abs(a, o, x_s, y_s, link_bps, p, beta,
                         delta_a=0.0, delta_o=0.0, tau=0.0):
    """B_after in bit/s: Eq. 1.7, or Eq. 4.3 (corrected) with deviations."""
    a, o = _arr(a, "a", 0.0), _arr(o, "o", 0.0, low_open=True)
    x_s = _arr(x_s, "X", 0.0, low_open=True)
    link_bps = _arr(link_bps, "B", 0.0, low_open=True)
    p = _arr(p, "p", 0.0, 1.0)
    da = _arr(delta_a, "delta_a", -1.0, low_open=True)
    do = _arr(delta_o, "delta_o", -1.0, low_open=True)
    tau = _arr(tau, "tau", -1.0, low_open=True)
    host_s_per_bit = (a * (1 + da) * x_s + (1 - p) * o * (1 + do) * x_s) * (1 + tau)
    return _ret(np.minimum(np.minimum(link_bps, _inv(host_s_per_bit)),
                           nic_term_abs(p, beta, o, y_s, do)))


def delta_b_abs(a, o, x_s, y_s, link_bps, p, beta,
                delta_a=0.0, delta_o=0.0, tau=0.0):
    """Relative peak-throughput improvement (B_after - B_before)/B_before (Eq. 1.8)."""
    before = throughput_before_abs(a, o, x_s, link_bps)
    after = throughput_after_abs(a, o, x_s, y_s, link_bps, p, beta, delta_a, delta_o, tau)
    return _ret((after - before) / before)


# --- original LAWS, normalised form (Eq. 1.9) --------------------------------

def throughput_before(gamma, sigma):
    """min(1/sigma, 1/(1+gamma)), in units of 1/(oX)."""
    gamma = _arr(gamma, "gamma", 0.0)
    sigma = _arr(sigma, "sigma", 0.0, low_open=True)
    return _ret(np.minimum(1.0 / sigma, 1.0 / (1.0 + gamma)))


def throughput_after(gamma, sigma, p, alpha, beta, delta_a=0.0, delta_o=0.0, tau=0.0):
    """min(1/sigma, H(gamma), P) in units of 1/(oX) (laws.md §2.4, §3.4).

    H = 1/((gamma(1+delta_a) + (1-p)(1+delta_o))(1+tau)) is the host term and
    P = 1/(p*alpha*beta*(1+delta_o)) the corrected CP term; with zero
    deviations this is Eq. 1.9's numerator.
    """
    gamma = _arr(gamma, "gamma", 0.0)
    sigma = _arr(sigma, "sigma", 0.0, low_open=True)
    p = _arr(p, "p", 0.0, 1.0)
    alpha = _arr(alpha, "alpha", 0.0, low_open=True)
    beta = _arr(beta, "beta", 0.0)
    da = _arr(delta_a, "delta_a", -1.0, low_open=True)
    do = _arr(delta_o, "delta_o", -1.0, low_open=True)
    tau = _arr(tau, "tau", -1.0, low_open=True)
    host = _inv((gamma * (1 + da) + (1 - p) * (1 + do)) * (1 + tau))
    cp = _inv(p * alpha * beta * (1 + do))
    return _ret(np.minimum(np.minimum(1.0 / sigma, host), cp))


def delta_b(p, alpha, beta, sigma, gamma):
    """Original LAWS improvement delta_b (Eq. 1.9), min() over all terms."""
    before = throughput_before(gamma, sigma)
    return _ret((throughput_after(gamma, sigma, p, alpha, beta) - before) / before)


def laws_prediction(p, alpha, beta, sigma, gammas):
    """Original-LAWS delta_b at each gamma in *gammas* (1-D array)."""
    return np.atleast_1d(delta_b(p, alpha, beta, sigma, np.asarray(gammas, dtype=float)))


def c_ratio(alpha, beta, sigma, p=1.0):
    """c_p = max(p*alpha*beta, sigma); with p = 1 this is LAWS's c = max(alpha*beta, sigma)."""
    p = _arr(p, "p", 0.0, 1.0)
    alpha = _arr(alpha, "alpha", 0.0, low_open=True)
    beta = _arr(beta, "beta", 0.0)
    return _ret(np.maximum(p * alpha * beta, _arr(sigma, "sigma", 0.0, low_open=True)))


def gamma_bound(gamma, p=1.0):
    """Upper bound p/(gamma + 1 - p) on delta_b; with p = 1 it is LAWS's 1/gamma.

    It is the host-term ceiling after offload over the before-throughput, and
    p/(gamma+1-p) <= 1/gamma for every p in [0, 1].
    """
    gamma = _arr(gamma, "gamma", 0.0)
    p = _arr(p, "p", 0.0, 1.0)
    return _ret(p * _inv(gamma + 1.0 - p))


def offload_hurts(p, alpha, beta, sigma, gamma):
    """True where delta_b < 0: p*alpha*beta > max(sigma, 1 + gamma).

    For sigma <= 1 + gamma this is laws.md's "p*alpha*beta > 1 + gamma"; a
    slow link (sigma > 1 + gamma) also caps the before-throughput, so the CP
    must be slower than the link for offload to hurt.
    """
    gamma = _arr(gamma, "gamma", 0.0)
    p = _arr(p, "p", 0.0, 1.0)
    return _ret(p * _arr(alpha, "alpha", 0.0, low_open=True) * _arr(beta, "beta", 0.0)
                > np.maximum(_arr(sigma, "sigma", 0.0, low_open=True), 1.0 + gamma))


# --- modified LAWS (laws.md §3.4) -----------------------------------------

def delta_b_modified(p, alpha, beta, sigma, gamma, delta_a=0.0, delta_o=0.0, tau=0.0):
    """Modified LAWS improvement, normalised form with the corrected CP term.

    delta_b_mod = min(1/sigma, H(gamma), P) / min(1/sigma, 1/(1+gamma)) - 1,
    with H and P as in :func:`throughput_after`.  The deviations are
    multiplicative (a -> a(1+delta_a), o -> o(1+delta_o), W -> W(1+tau)); an
    additive value must first be divided by a or o.  Zero deviations give Eq. 1.9.
    """
    before = throughput_before(gamma, sigma)
    after = throughput_after(gamma, sigma, p, alpha, beta, delta_a, delta_o, tau)
    return _ret((after - before) / before)


def limit_modified(delta_a=0.0, tau=0.0):
    """delta_b as gamma -> inf: 1/((1+delta_a)(1+tau)) - 1 (0 for plain LAWS)."""
    da = _arr(delta_a, "delta_a", -1.0, low_open=True)
    return _ret(1.0 / ((1 + da) * (1 + _arr(tau, "tau", -1.0, low_open=True))) - 1.0)


def _kink(p, alpha, beta, sigma, delta_a, delta_o, tau):
    """(C, gamma*) of laws.md §3.5, broadcast: C = max(p*alpha*beta*(1+delta_o), sigma)
    caps the after-throughput at 1/C, and the host term H reaches 1/C at gamma*."""
    p, alpha, beta, sigma, da, do, tau = np.broadcast_arrays(
        *(np.asarray(v, dtype=float) for v in (p, alpha, beta, sigma, delta_a, delta_o, tau)))
    c = np.maximum(p * alpha * beta * (1 + do), sigma)
    return c, (c / (1 + tau) - (1 - p) * (1 + do)) / (1 + da)


def peak_modified(p, alpha, beta, sigma, delta_a=0.0, delta_o=0.0, tau=0.0):
    """(gamma_peak, delta_b_peak) of the modified LAWS over gamma >= 0.

    delta_b is piecewise monotone between gamma = 0, sigma - 1 (where the link
    stops capping the before-throughput) and gamma* = (C/(1+tau) -
    (1-p)(1+delta_o))/(1+delta_a), C = max(p*alpha*beta*(1+delta_o), sigma)
    (where the host term meets the CP/link cap).  So the maximum is at one of
    those points, or is the gamma -> inf limit when the curve still rises
    there; gamma_peak is then +inf.  Ties go to the smallest gamma.
    For sigma <= 1 and gamma* >= 0 this is laws.md §3.5's closed form.
    """
    _, gamma_star = _kink(p, alpha, beta, sigma, delta_a, delta_o, tau)
    sigma = np.broadcast_to(np.asarray(sigma, dtype=float), gamma_star.shape)
    candidates = np.stack([np.zeros_like(sigma), np.maximum(sigma - 1, 0.0),
                           np.maximum(gamma_star, 0.0)])
    values = delta_b_modified(p, alpha, beta, sigma, candidates, delta_a, delta_o, tau)
    best = np.argmax(values, axis=0)
    gamma_peak = np.take_along_axis(candidates, best[None], 0)[0]
    value_peak = np.take_along_axis(values, best[None], 0)[0]
    limit = np.broadcast_to(limit_modified(delta_a, tau), gamma_peak.shape)
    # A small margin keeps float noise from sending a flat tail's peak to +inf.
    rising_tail = limit > value_peak + 1e-12
    return (_ret(np.where(rising_tail, np.inf, gamma_peak)),
            _ret(np.where(rising_tail, limit, value_peak)))


def peak(p, alpha, beta, sigma):
    """(gamma_peak, delta_b_peak) of the original LAWS.

    For p = 1, sigma <= 1: (c, 1/c) with c = max(alpha*beta, sigma).  For any
    p, sigma <= 1: (c_p - (1-p), p/c_p) if that gamma is >= 0, else gamma = 0
    with value min(1/c_p, 1/(1-p)) - 1 (laws.md §2.5).
    """
    return peak_modified(p, alpha, beta, sigma)


def slope_before_peak(p, alpha, beta, sigma, delta_a=0.0, delta_o=0.0, tau=0.0):
    """d(delta_b)/d(gamma) on the rising branch (1+gamma)/C - 1, i.e. 1/C.

    For the original LAWS C = c_p = max(p*alpha*beta, sigma), so the slope is
    1/c at p = 1.  NaN where there is no rising branch: the host term already
    binds where the link stops capping the before-throughput (peak at
    gamma = max(sigma - 1, 0)).
    """
    c, gamma_star = _kink(p, alpha, beta, sigma, delta_a, delta_o, tau)
    rising = gamma_star > np.maximum(np.asarray(sigma, dtype=float) - 1, 0.0)
    return _ret(np.where(rising, 1.0 / c, np.nan))


# --- communication-time model (thesis Eqs 1.1-1.3, laws.md §1) ---------------

def comm_time_s(n_bits, os_s, or_s, latency_s, bw_net_bps):
    """T_comm = O_s + O_r + L + n/BW_net, in seconds (Eq. 1.1)."""
    return _ret(np.asarray(os_s, dtype=float) + or_s + latency_s
                + np.asarray(n_bits, dtype=float) / bw_net_bps)


def overhead_s(n_bits, m_mem, bw_mem_bps, n_io, bw_io_bps, dt_s):
    """O_s + O_r = M*n/BW_mem + N*n/BW_IO + dt, in seconds (Eq. 1.2).

    m_mem, n_io: memory-bus and I/O-bus crossings per bit; dt_s: management
    time not overlapped with the transfers.
    """
    n_bits = np.asarray(n_bits, dtype=float)
    return _ret(m_mem * n_bits / bw_mem_bps + n_io * n_bits / bw_io_bps
                + np.asarray(dt_s, dtype=float))


def effective_bandwidth_bps(n_bits, bw_net_bps, m_mem, bw_mem_bps, n_io, bw_io_bps, dt_s):
    """BW_eff = BW_net / (1 + M*BW_net/BW_mem + N*BW_net/BW_IO + dt*BW_net/n) (Eq. 1.3).

    Equal to n / (O_s + O_r + n/BW_net), i.e. Eq. 1.1 with L neglected.
    """
    bw_net_bps = np.asarray(bw_net_bps, dtype=float)
    denom = (1.0 + m_mem * bw_net_bps / bw_mem_bps + n_io * bw_net_bps / bw_io_bps
             + np.asarray(dt_s, dtype=float) * bw_net_bps / np.asarray(n_bits, dtype=float))
    return _ret(bw_net_bps / denom)
