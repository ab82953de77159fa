"""The Python API for notebooks: a DataFrame per sweep, NetPIPE points in long form."""
from __future__ import annotations

import pytest
from _sweep_helpers import FAST, GRID_2x4

import nicsim
import nicsim.sweep
from nicsim.errors import ConfigError


@pytest.fixture(scope="module")
def df(tmp_path_factory):
    store = tmp_path_factory.mktemp("api") / "api.sqlite"
    return nicsim.sweep.sweep("ortiz2008-offload", GRID_2x4, sets={"workload.netpipe.target_ps": "5 ms"}, store=store,
                              workers=2, progress=False)


def test_one_row_per_point_in_grid_order_with_swept_keys_and_outputs(df):
    assert len(df) == 8
    assert list(df.columns[:5]) == ["key", "placement", "benchmark", "status", "error"]
    assert list(df["nic_cpu.speed_fraction"]) == [0.25] * 4 + [1.0] * 4
    assert list(df["workload.netpipe.sizes_bytes"])[:4] == ["1024", "4096", "16384", "65536"]
    for col in ("latency_us", "peak_throughput_mbps", "peak_size_bytes", "wall_s"):
        assert col in df.columns
    assert (df.status == "ok").all() and (df.placement == "offload").all()
    # a faster NIC processor is never slower at the same size
    slow, fast = df.iloc[:4].peak_throughput_mbps.values, df.iloc[4:].peak_throughput_mbps.values
    assert (fast >= slow - 1e-9).all()


def test_explode_points_gives_one_row_per_message_size(df):
    long = nicsim.sweep.explode_points(df)
    assert len(long) == 8  # one size per point in this grid
    assert {"key", "placement", "nic_cpu.speed_fraction", "size_bytes", "time_us", "throughput_mbps"} <= set(long.columns)
    assert sorted(long.size_bytes.unique()) == [1024, 4096, 16384, 65536]


def test_processor_frame_has_busy_categories(df):
    procs = nicsim.sweep.processor_frame(df)
    assert {"processor", "utilisation", "busy_copy", "busy_tcpip", "irq_per_s"} <= set(procs.columns)
    assert set(procs.processor) >= {"node1.cpu0", "node1.nic_cpu"}


def test_module_is_callable_and_a_temporary_store_is_used_without_one():
    df = nicsim.sweep("ortiz2008-base", {"workload.netpipe.max_bytes": "1KiB,4KiB"}, sets=FAST, workers=1, progress=False)
    assert list(df["workload.netpipe.max_bytes"]) == [1024, 4096]
    assert df.attrs["store"].endswith("sweep.sqlite")


def test_grid_may_hold_python_lists():
    df = nicsim.sweep.sweep("ortiz2008-base", {"placement": ["base", "onload"]}, sets=FAST, workers=2, progress=False)
    assert list(df.placement) == ["base", "onload"] and list(df.placement_grid) == ["base", "onload"]


def test_one_worker_and_two_give_identical_numbers(tmp_path):
    a = nicsim.sweep.sweep("ortiz2008-offload", GRID_2x4, sets={"workload.netpipe.target_ps": "5 ms"}, store=tmp_path / "a", workers=1, progress=False)
    b = nicsim.sweep.sweep("ortiz2008-offload", GRID_2x4, sets={"workload.netpipe.target_ps": "5 ms"}, store=tmp_path / "b", workers=2, progress=False)
    cols = ["key", "latency_us", "peak_throughput_mbps", "events"]
    assert a[cols].equals(b[cols])


def test_bad_grid_value_names_the_key():
    with pytest.raises(ConfigError, match="nic_cpu.speed_fraction"):
        nicsim.sweep.sweep("ortiz2008-offload", {"nic_cpu.speed_fraction": "0:1:0"}, progress=False)


def test_hpcbench_gamma_sweep_has_throughput_and_laws_columns(gamma_store):
    from nicsim.sweep import Store

    with Store(gamma_store, readonly=True) as st:
        df = st.frame()
    assert len(df) == 6 and (df.status == "ok").all()
    assert {"gamma", "throughput_mbps", "laws.o", "laws.gamma_realised"} <= set(df.columns)
    assert sorted(df.gamma.unique()) == [0.0, 0.5, 1.0]
