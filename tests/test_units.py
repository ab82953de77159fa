import pytest
from hypothesis import given, strategies as st

from nicsim import units


@pytest.mark.parametrize("text,ps", [("80 ns", 80_000), ("2 s", 2 * 10**12), ("72 us", 72 * 10**6), ("1.5 µs", 1_500_000), ("40 ms", 40 * 10**9)])
def test_times_parse_to_picoseconds(text, ps):
    assert units.parse_time(text) == ps


def test_sizes_take_iec_prefixes_only():
    assert units.parse_size("64 KiB") == 65536
    assert units.parse_size("9000 B") == 9000
    assert units.parse_size("2 MiB") == 2 * 2**20
    for bad in ("64 KB", "64 kB", "2 MB"):
        with pytest.raises(units.UnitError, match="IEC"):
            units.parse_size(bad)


def test_rates_and_frequencies_take_si_prefixes():
    assert units.parse_rate("2.12 Gbps") == 2_120_000_000
    assert units.parse_rate("125 MB/s") == 10**9
    assert units.parse_freq("1.73 GHz") == 1_730_000_000
    with pytest.raises(units.UnitError, match="bit rate"):
        units.parse_rate("1 Gbs")
    with pytest.raises(units.UnitError, match="whole number"):
        units.parse_size("1.5 B")


@given(st.integers(min_value=1, max_value=2**40))
def test_sizes_round_trip(n):
    assert units.parse_size(units.format_size(n)) == n


@given(st.integers(min_value=1, max_value=10**15))
def test_times_round_trip(ps):
    assert units.parse_time(units.format_time(ps)) == ps


@given(st.integers(min_value=1, max_value=10**13))
def test_rates_and_frequencies_round_trip(x):
    assert units.parse_rate(units.format_rate(x)) == x
    assert units.parse_freq(units.format_freq(x)) == x


def test_a_bare_integer_string_is_in_base_units():
    assert units.parse_size("1500") == 1500
    assert units.parse_time("5000") == 5000
    assert units.parse_rate("1000000000") == 10**9


@pytest.mark.parametrize("text, bps", [
    ("10 Gbit/s", 10_000_000_000), ("10 Gbits/s", 10_000_000_000), ("1.25 GBps", 10_000_000_000),
    ("1 GiB/s", 8 * 2**30), ("100 Mibit/s", 100 * 2**20), ("10 Kbps", 10_000), ("10 Kibit/s", 10 * 1024),
])
def test_the_rate_spellings_people_type(text, bps):
    assert units.parse_rate(text) == bps


def test_tebibytes_and_both_micro_signs():
    assert units.parse_size("1 TiB") == 2**40
    assert units.parse_time("5 μs") == units.parse_time("5 µs") == 5_000_000  # Greek mu, micro sign


@pytest.mark.parametrize("key, value, says", [
    ("costs.scale.copy", "nan", "not a finite number"),
    ("costs.scale.copy", "1e300", "between 0 and 1000"),
    ("costs.rx_copy.i_byte", "inf", "not a finite number"),
    ("costs.rx_copy.i_byte", "-1", "between 0 and"),
])
def test_cost_values_are_finite_and_in_range(key, value, says):
    from nicsim import ConfigError, resolve

    with pytest.raises(ConfigError, match=f"{key}: '{value}' .*{says}"):
        resolve("ortiz2008-base", {key: value})
