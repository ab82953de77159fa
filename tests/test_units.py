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
