"""LAWS, modified LAWS and communication-time model against hand derivations
and the test vectors of laws.md §5."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nicsim.analytic import laws as L

GAMMAS = np.array([0.0, 0.5, 1.0, 2.0, 3.5])

# laws.md §5, original LAWS: (p, alpha, beta, sigma), delta_b at GAMMAS, (gamma*, delta_b*)
LAWS_VECTORS = {
    "L1": ((1, 1, 1, 0.5), [0.0, 0.5, 1.0, 0.5, 0.2857], (1.0, 1.0)),
    "L2": ((1, 2, 1, 0.5), [-0.5, -0.25, 0.0, 0.5, 0.2857], (2.0, 0.5)),
    "L3": ((0.75, 1, 1, 1), [0.0, 0.5, 0.6, 0.3333, 0.2], (0.75, 0.75)),
    "L4": ((0.6, 1, 0.5, 1), [0.0, 0.5, 0.4286, 0.25, 0.1538], (0.6, 0.6)),
    "L5": ((0.6, 1, 0.5, 0.2), [1.5, 0.6667, 0.4286, 0.25, 0.1538], (0.0, 1.5)),
    "L6": ((1, 1, 1, 2), [0.0, 0.0, 0.0, 0.5, 0.2857], (2.0, 0.5)),
}

# laws.md §5, modified LAWS: (p, alpha, beta, sigma), (delta_a, delta_o, tau), values, peak, limit
MODIFIED_VECTORS = {
    "M1": ((0.75, 1, 1, 1), (0.05, -0.05, 0.2), [0.0, 0.5, 0.2945, 0.0695, -0.0415],
           (0.5675, 0.5675), -0.2063),
    "M2": ((1, 1, 1, 0.5), (0.1, 0.0, 0.1), [0.0, 0.5, 0.6529, 0.2397, 0.0626],
           (0.8264, 0.8264), -0.1736),
    "M3": ((1, 1, 1, 0.5), (0.0, -0.1, 0.0), [0.1111, 0.6667, 1.0, 0.5, 0.2857],
           (0.9, 1.1111), 0.0),
}

ratio = st.floats(0.05, 4.0)
small_sigma = st.floats(0.05, 1.0)
fraction = st.floats(0.0, 1.0)
gamma_st = st.floats(0.0, 10.0)
deviation = st.floats(-0.5, 2.0)


@pytest.mark.parametrize("case", sorted(LAWS_VECTORS))
def test_laws_spec_vectors(case):
    args, values, (g_pk, v_pk) = LAWS_VECTORS[case]
    np.testing.assert_allclose(L.delta_b(*args, GAMMAS), values, atol=5e-5)
    got_g, got_v = L.peak(*args)
    assert got_g == pytest.approx(g_pk, abs=1e-9)
    assert got_v == pytest.approx(v_pk, abs=1e-9)


@pytest.mark.parametrize("case", sorted(MODIFIED_VECTORS))
def test_modified_spec_vectors(case):
    args, devs, values, (g_pk, v_pk), limit = MODIFIED_VECTORS[case]
    np.testing.assert_allclose(L.delta_b_modified(*args, GAMMAS, *devs), values, atol=5e-5)
    got_g, got_v = L.peak_modified(*args, *devs)
    assert got_g == pytest.approx(g_pk, abs=5e-5)
    assert got_v == pytest.approx(v_pk, abs=5e-5)
    assert L.limit_modified(devs[0], devs[2]) == pytest.approx(limit, abs=5e-5)
    assert L.delta_b_modified(*args, 1e9, *devs) == pytest.approx(
        L.limit_modified(devs[0], devs[2]), abs=1e-8)


def test_hand_derived_full_offload_example():
    # p = 1, alpha*beta = 0.4 > sigma = 0.2: c = 0.4, peak 1/c = 2.5 at gamma = 0.4.
    assert L.c_ratio(1.0, 0.4, 0.2) == pytest.approx(0.4)
    assert L.peak(1, 1, 0.4, 0.2) == pytest.approx((0.4, 2.5))
    assert L.slope_before_peak(1, 1, 0.4, 0.2) == pytest.approx(2.5)
    # Rising branch (gamma + 1)/c - 1 and falling branch 1/gamma.
    assert L.delta_b(1, 1, 0.4, 0.2, 0.2) == pytest.approx(1.2 / 0.4 - 1)
    assert L.delta_b(1, 1, 0.4, 0.2, 2.0) == pytest.approx(0.5)
    # The link binds instead when sigma > alpha*beta.
    assert L.peak(1, 1, 0.4, 0.8) == pytest.approx((0.8, 1.25))


@settings(max_examples=200, deadline=None)
@given(alpha=ratio, beta=st.floats(0.05, 1.0), sigma=small_sigma, gamma=gamma_st)
def test_full_offload_closed_forms(alpha, beta, sigma, gamma):
    c = max(alpha * beta, sigma)
    g_pk, v_pk = L.peak(1.0, alpha, beta, sigma)
    assert g_pk == pytest.approx(c)
    assert v_pk == pytest.approx(1.0 / c)
    db = L.delta_b(1.0, alpha, beta, sigma, gamma)
    expected = (gamma + 1) / c - 1 if gamma <= c else 1.0 / gamma
    assert db == pytest.approx(expected, rel=1e-9, abs=1e-12)
    assert L.slope_before_peak(1.0, alpha, beta, sigma) == pytest.approx(1.0 / c)


@settings(max_examples=200, deadline=None)
@given(p=fraction, alpha=ratio, beta=st.floats(0.05, 2.0), sigma=small_sigma, gamma=gamma_st)
def test_any_p_closed_forms(p, alpha, beta, sigma, gamma):
    c_p = max(p * alpha * beta, sigma)
    g_star = c_p - (1 - p)
    db = L.delta_b(p, alpha, beta, sigma, gamma)
    if gamma <= g_star:
        assert db == pytest.approx((1 + gamma) / c_p - 1, rel=1e-9, abs=1e-12)
    else:
        assert db == pytest.approx(p / (gamma + 1 - p), rel=1e-9, abs=1e-12)
    g_pk, v_pk = L.peak(p, alpha, beta, sigma)
    if g_star >= 0:
        assert (g_pk, v_pk) == pytest.approx((g_star, p / c_p), rel=1e-9, abs=1e-12)
    else:
        assert g_pk == 0.0
        assert v_pk == pytest.approx(min(1 / c_p, np.inf if p == 1 else 1 / (1 - p)) - 1)


def test_slope_is_linear_below_peak():
    gammas = np.linspace(0.0, 0.8, 9)  # all below the peak at c = 0.8
    db = L.delta_b(1, 2, 0.4, 0.5, gammas)
    np.testing.assert_allclose(np.diff(db) / np.diff(gammas), 1 / 0.8)


@settings(max_examples=300, deadline=None)
@given(p=fraction, alpha=ratio, beta=st.floats(0.0, 2.0), sigma=st.floats(0.05, 5.0),
       gamma=st.floats(1e-3, 10.0))
def test_one_over_gamma_bound(p, alpha, beta, sigma, gamma):
    db = L.delta_b(p, alpha, beta, sigma, gamma)
    assert db <= L.gamma_bound(gamma, p) * (1 + 1e-12) + 1e-12
    assert L.gamma_bound(gamma, p) <= 1 / gamma * (1 + 1e-12)
    assert db <= 1 / gamma * (1 + 1e-12) + 1e-12


def test_bound_is_attained_after_peak():
    gammas = np.array([1.5, 2.0, 3.5])
    np.testing.assert_allclose(L.delta_b(1, 1, 1, 0.5, gammas), L.gamma_bound(gammas))
    assert L.gamma_bound(0.0) == np.inf


def test_offload_hurts_hand_example():
    # alpha*beta = 2 > 1 + gamma for gamma < 1: delta_b = (1 + gamma)/2 - 1 < 0.
    gammas = np.array([0.0, 0.5, 0.99, 1.0, 1.5])
    hurts = L.offload_hurts(1, 2, 1, 0.5, gammas)
    assert hurts.tolist() == [True, True, True, False, False]
    assert L.delta_b(1, 2, 1, 0.5, 0.5) == pytest.approx(-0.25)
    # beta < 1 (structural savings) keeps a slow CP useful.
    assert not L.offload_hurts(1, 2, 0.4, 0.5, 0.0)
    assert L.delta_b(1, 2, 0.4, 0.5, 0.0) == pytest.approx(1 / 0.8 - 1)


@settings(max_examples=300, deadline=None)
@given(p=fraction, alpha=ratio, beta=st.floats(0.0, 3.0), sigma=st.floats(0.05, 5.0),
       gamma=gamma_st)
def test_offload_hurts_iff_negative(p, alpha, beta, sigma, gamma):
    db = L.delta_b(p, alpha, beta, sigma, gamma)
    margin = p * alpha * beta - max(sigma, 1 + gamma)
    if abs(margin) > 1e-9:
        assert bool(L.offload_hurts(p, alpha, beta, sigma, gamma)) == (db < 0)
        assert (db < 0) == (margin > 0)


@settings(max_examples=100, deadline=None)
@given(alpha=ratio, sigma=small_sigma)
def test_beta_one_gain_bounded_by_one_over_alpha(alpha, sigma):
    gammas = np.linspace(0, 10, 501)
    assert np.max(L.delta_b(1, alpha, 1, sigma, gammas)) <= 1 / alpha + 1e-12


def test_slow_link_gives_no_gain_while_host_fills_it():
    # sigma = 3: the host alone fills the link up to gamma = 2.
    gammas = np.linspace(0, 2, 21)
    np.testing.assert_allclose(L.delta_b(1, 1, 1, 3, gammas), 0.0, atol=1e-15)
    assert L.delta_b(1, 1, 1, 3, 3.0) == pytest.approx(1 / 3)
    # A CP slower than the link makes it negative there.
    assert L.delta_b(1, 4, 1, 3, 0.5) == pytest.approx(3 / 4 - 1)
    # Past gamma = sigma - 1 the curve rises with slope 1/c up to gamma* = c = 3.
    assert L.slope_before_peak(1, 1, 1, 3) == pytest.approx(1 / 3)
    assert L.peak(1, 1, 1, 3) == pytest.approx((3.0, 1 / 3))
    # No rising branch when the peak sits at gamma = 0 (laws.md §5, L5).
    assert np.isnan(L.slope_before_peak(0.6, 1, 0.5, 0.2))


def test_no_offload_changes_nothing_and_limits():
    gammas = np.linspace(0, 5, 11)
    np.testing.assert_allclose(L.delta_b(0, 3, 1, 0.5, gammas), 0.0, atol=1e-15)
    assert L.delta_b(1, 1, 1, 0.5, 1e9) == pytest.approx(0.0, abs=1e-8)
    # 1/0 is +inf: p = 1, gamma = 0 leaves only the CP and link terms.
    assert L.throughput_after(0.0, 0.5, 1, 1, 1) == pytest.approx(1.0)
    assert L.throughput_after(0.0, 0.5, 1, 1, 0) == pytest.approx(2.0)


def test_symmetry_alpha_beta_enter_as_product():
    gammas = np.linspace(0, 3.5, 36)
    np.testing.assert_allclose(L.delta_b(0.8, 2.0, 0.25, 0.3, gammas),
                               L.delta_b(0.8, 0.25, 2.0, 0.3, gammas))
    np.testing.assert_allclose(L.delta_b(0.5, 3.0, 0.1, 0.3, gammas),
                               L.delta_b(0.5, 0.6, 0.5, 0.3, gammas))
    # p is not interchangeable with them: it also shrinks the host term.
    assert not np.allclose(L.delta_b(0.5, 2.0, 1.0, 0.3, gammas),
                           L.delta_b(1.0, 1.0, 1.0, 0.3, gammas))


def test_alpha_from_speed_fraction_gives_identical_results():
    assert L.alpha_from_speed_fraction(0.5) == 2.0
    np.testing.assert_allclose(L.alpha_from_speed_fraction([0.75, 0.5, 0.25]), [4 / 3, 2, 4])
    direct = L.delta_b(1, 2, 1, 0.5, GAMMAS)
    via_fraction = L.delta_b(1, L.alpha_from_speed_fraction(0.5), 1, 0.5, GAMMAS)
    np.testing.assert_array_equal(direct, via_fraction)


@settings(max_examples=200, deadline=None)
@given(p=fraction, alpha=ratio, beta=st.floats(0.05, 2.0), sigma=st.floats(0.05, 3.0),
       gamma=gamma_st)
def test_modified_with_zero_deviations_equals_laws(p, alpha, beta, sigma, gamma):
    assert L.delta_b_modified(p, alpha, beta, sigma, gamma) == L.delta_b(p, alpha, beta, sigma,
                                                                         gamma)
    assert L.peak_modified(p, alpha, beta, sigma) == L.peak(p, alpha, beta, sigma)


@settings(max_examples=150, deadline=None)
@given(p=fraction, alpha=ratio, beta=st.floats(0.05, 2.0), sigma=st.floats(0.05, 3.0),
       da=deviation, do=deviation, tau=deviation)
def test_modified_peak_matches_dense_search(p, alpha, beta, sigma, da, do, tau):
    g_pk, v_pk = L.peak_modified(p, alpha, beta, sigma, da, do, tau)
    gammas = np.linspace(0, 60, 60001)
    dense = L.delta_b_modified(p, alpha, beta, sigma, gammas, da, do, tau)
    assert np.max(dense) <= v_pk + 1e-9  # the peak is never beaten
    if np.isfinite(g_pk) and g_pk <= 50:
        assert L.delta_b_modified(p, alpha, beta, sigma, g_pk, da, do, tau) == pytest.approx(v_pk)
        # The grid misses the kink by at most half a step, at the curve's steepest slope.
        step = gammas[1] - gammas[0]
        steepest = np.max(np.abs(np.diff(dense))) / step
        assert np.max(dense) >= v_pk - 0.5 * step * steepest - 1e-12
    else:
        assert v_pk == pytest.approx(L.limit_modified(da, tau))


@settings(max_examples=150, deadline=None)
@given(p=st.floats(0.05, 1.0), alpha=ratio, beta=st.floats(0.05, 2.0), sigma=small_sigma,
       da=deviation, do=deviation, tau=deviation)
def test_modified_closed_form_peak(p, alpha, beta, sigma, da, do, tau):
    c = max(p * alpha * beta * (1 + do), sigma)
    g_star = (c / (1 + tau) - (1 - p) * (1 + do)) / (1 + da)
    if g_star >= 0:
        v_star = (1 + g_star) / c - 1
        assert L.delta_b_modified(p, alpha, beta, sigma, g_star, da, do, tau) == pytest.approx(v_star)
        g_pk, v_pk = L.peak_modified(p, alpha, beta, sigma, da, do, tau)
        if np.isfinite(g_pk):
            assert (g_pk, v_pk) == pytest.approx((g_star, v_star))
        if g_star > 0:
            assert L.slope_before_peak(p, alpha, beta, sigma, da, do, tau) == pytest.approx(1 / c)


def test_modified_deviations_move_the_peak():
    base = L.peak_modified(1, 1, 1, 0.5)[0]
    assert L.peak_modified(1, 1, 1, 0.5, tau=0.2)[0] < base
    assert L.peak_modified(1, 1, 1, 0.5, delta_a=0.2)[0] < base
    assert L.limit_modified(0.1, 0.0) < 0 and L.limit_modified(0.0, 0.1) < 0
    assert L.limit_modified(0.0, 0.0) == 0.0


def test_modified_rising_tail_reports_infinite_peak():
    # (1-p)(1+delta_o) > 1+delta_a: (1+gamma)/H(gamma) keeps rising towards the limit.
    g_pk, v_pk = L.peak_modified(0.1, 1, 1, 0.05, delta_a=-0.8, delta_o=0.0, tau=0.0)
    assert g_pk == np.inf
    assert v_pk == pytest.approx(1 / 0.2 - 1)


@settings(max_examples=150, deadline=None)
@given(a=st.floats(0.0, 50.0), o=st.floats(0.1, 50.0), x_ns=st.floats(0.1, 10.0),
       y_ns=st.floats(0.1, 40.0), link_gbps=st.floats(0.01, 100.0), p=fraction,
       beta=st.floats(0.05, 2.0), da=deviation, do=deviation, tau=deviation)
def test_absolute_and_normalised_forms_agree(a, o, x_ns, y_ns, link_gbps, p, beta, da, do, tau):
    x_s, y_s, link_bps = x_ns * 1e-9, y_ns * 1e-9, link_gbps * 1e9
    r = L.normalised_ratios(a, o, x_s, y_s, link_bps)
    assert r["alpha"] == pytest.approx(y_ns / x_ns)
    absolute = L.delta_b_abs(a, o, x_s, y_s, link_bps, p, beta, da, do, tau)
    normalised = L.delta_b_modified(p, r["alpha"], beta, r["sigma"], r["gamma"], da, do, tau)
    assert absolute == pytest.approx(normalised, rel=1e-9, abs=1e-12)
    # Normalised throughput is the absolute one in units of 1/(oX).
    assert L.throughput_before_abs(a, o, x_s, link_bps) * o * x_s == pytest.approx(
        L.throughput_before(r["gamma"], r["sigma"]))


def test_printed_nic_term_is_not_a_bandwidth():
    # Same physical host: o in cycles/bit with X = 1 ns/cycle, or in kcycles/bit
    # with X = 1 us/kcycle.  A bandwidth cannot depend on that choice.
    o_cycles, y_s = 40.0, 2e-9
    k = 1e-3
    corrected = L.nic_term_abs(1, 0.5, o_cycles, y_s, delta_o=0.1)
    corrected_k = L.nic_term_abs(1, 0.5, o_cycles * k, y_s / k, delta_o=0.1)
    printed = L.nic_term_abs(1, 0.5, o_cycles, y_s, delta_o=0.1, printed=True)
    printed_k = L.nic_term_abs(1, 0.5, o_cycles * k, y_s / k, delta_o=0.1, printed=True)
    assert corrected == pytest.approx(corrected_k)
    assert corrected == pytest.approx(1 / (1 * 0.5 * o_cycles * 1.1 * y_s))
    assert printed_k == pytest.approx(printed / k)  # an extra 1/o: not invariant
    assert printed_k != pytest.approx(printed)


def test_vectorised_broadcasting():
    out = L.delta_b(1, np.array([[1.0], [2.0]]), 1, 0.5, GAMMAS)
    assert out.shape == (2, 5)
    np.testing.assert_allclose(out[1], LAWS_VECTORS["L2"][1], atol=5e-5)
    g_pk, v_pk = L.peak(1, np.array([1.0, 2.0]), 1, 0.5)
    np.testing.assert_allclose(g_pk, [1.0, 2.0])
    np.testing.assert_allclose(v_pk, [1.0, 0.5])
    assert isinstance(L.laws_prediction(1, 1, 1, 0.5, [0.5]), np.ndarray)
    np.testing.assert_allclose(L.laws_prediction(1, 1, 1, 0.5, GAMMAS), LAWS_VECTORS["L1"][1],
                               atol=5e-5)


@pytest.mark.parametrize("kwargs, name", [
    (dict(p=1.5), "p"), (dict(alpha=0.0), "alpha"), (dict(sigma=-1.0), "sigma"),
    (dict(gamma=-0.1), "gamma"), (dict(beta=np.nan), "beta"),
])
def test_domain_errors_name_the_argument(kwargs, name):
    args = dict(p=1.0, alpha=1.0, beta=1.0, sigma=0.5, gamma=1.0) | kwargs
    with pytest.raises(ValueError, match=name):
        L.delta_b(**args)
    with pytest.raises(ValueError, match="delta_a"):
        L.delta_b_modified(1, 1, 1, 0.5, 1, delta_a=-1.0)


def test_effective_bandwidth_spec_example():
    n_bits, bw_net, m, bw_mem, n_io, bw_io, dt = 72_000, 1e9, 3, 8e9, 1, 2.12e9, 20e-6
    bw_eff = L.effective_bandwidth_bps(n_bits, bw_net, m, bw_mem, n_io, bw_io, dt)
    assert bw_eff == pytest.approx(1e9 / 2.1245, rel=1e-4)
    assert bw_eff / 1e6 == pytest.approx(470.7, abs=0.05)
    overhead = L.overhead_s(n_bits, m, bw_mem, n_io, bw_io, dt)
    assert bw_eff == pytest.approx(n_bits / L.comm_time_s(n_bits, overhead, 0.0, 0.0, bw_net))
    assert L.comm_time_s(n_bits, 1e-6, 2e-6, 5e-6, bw_net) == pytest.approx(8e-6 + 72e-6)


def test_effective_bandwidth_conclusions():
    # (a) always below the link; (b) small messages lose more; (d) a faster
    # link with the same buses delivers a smaller fraction of itself.
    sizes = np.array([8e3, 72e3, 2e6])
    eff = L.effective_bandwidth_bps(sizes, 1e9, 3, 8e9, 1, 2.12e9, 20e-6)
    assert np.all(eff < 1e9) and np.all(np.diff(eff) > 0)
    nets = np.array([1e9, 10e9])
    frac = L.effective_bandwidth_bps(72e3, nets, 3, 8e9, 1, 2.12e9, 20e-6) / nets
    assert frac[1] < frac[0]
    assert L.effective_bandwidth_bps(1e300, 1e9, 0, 8e9, 0, 2.12e9, 1.0) == pytest.approx(1e9)
