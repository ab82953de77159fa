"""Generated bad input across commands (issue 31 item 7): every bad value or unknown key gets
exit 2 and one line on stderr naming it, never a traceback, a hang or a run. In process, so a
few hundred cases take seconds; an escaped exception fails the test by itself."""
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from nicsim.cli import main
from nicsim.params import PARAMS

CHECKED = ("choice", "int", "size", "bool", "time", "float", "rate", "freq")
KEYS = sorted(p.key for p in PARAMS if p.kind in CHECKED)
KIND = {p.key: p.kind for p in PARAMS}
# Wrong for every checked kind: not numbers, not finite, no unit or the wrong one, nonsense words.
BAD = ["nan", "inf", "-inf", "1e400", "abc", "1 parsec", "--", "1,2", "0x", "1e", "½", "12 furlongs", "None", "[1]", "1 1"]
COMMANDS = [["netpipe"], ["netperf"], ["web"], ["hpcbench", "ortiz2008-base"], ["bulkecho", "roca1996-ethernet"]]


def _bad_for(key: str, value: str) -> bool:
    # A choice key's error is certain only for a word that is not a choice; bool words ('1 1' is not one).
    return not (KIND[key] == "bool" and value.lower() in ("true", "false", "1", "0", "on", "off"))


def _one_line_exit_2(argv, capsys):
    with pytest.raises(SystemExit) as e:
        main(argv)
    err = capsys.readouterr().err
    assert e.value.code == 2, (argv, err)
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, (argv, err)
    return err


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cmd=st.sampled_from(COMMANDS), key=st.sampled_from(KEYS), value=st.sampled_from(BAD))
def test_a_bad_value_for_any_key_is_one_line_naming_the_key(capsys, cmd, key, value):
    if not _bad_for(key, value):
        return
    err = _one_line_exit_2([*cmd, "--set", f"{key}={value}"], capsys)
    assert key in err


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cmd=st.sampled_from(COMMANDS), key=st.from_regex(r"[a-z]{2,8}\.[a-z_]{2,12}", fullmatch=True))
def test_an_unknown_key_is_one_line_naming_it(capsys, cmd, key):
    if key in KIND or key.startswith("costs."):
        return
    err = _one_line_exit_2([*cmd, "--set", f"{key}=1"], capsys)
    assert key in err
