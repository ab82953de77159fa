"""`nicsim report`: a self-contained HTML page, the figures as PNG and SVG, the tables."""
from __future__ import annotations

import re

import pandas as pd
import pytest

from nicsim.plot import colour
from nicsim.sweep.cli import main_sweep

NETPIPE_FIGS = ("throughput", "latency", "signature", "busy", "interrupts")


@pytest.fixture(scope="module")
def report_dir(netpipe_store, tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    assert main_sweep(["report", str(netpipe_store), "--out", str(out)]) == 0
    return out


def test_report_writes_html_figures_and_tables(report_dir):
    for name in NETPIPE_FIGS:
        png, svg = report_dir / f"{name}.png", report_dir / f"{name}.svg"
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000
        assert "<svg" in svg.read_text()[:2000]
    assert len(pd.read_csv(report_dir / "points.csv")) == 12
    assert len(pd.read_parquet(report_dir / "points.parquet")) == 12
    assert (report_dir / "netpipe_points.csv").exists()


def test_html_is_self_contained_with_every_figure_inline(report_dir):
    html = (report_dir / "report.html").read_text()
    assert html.startswith("<!DOCTYPE html>")
    imgs = re.findall(r'<img class="figure"[^>]*src="data:image/png;base64,([A-Za-z0-9+/=]+)"', html)
    assert len(imgs) == len(NETPIPE_FIGS)
    for name in NETPIPE_FIGS:
        assert f'id="fig-{name}"' in html
    # nothing fetched from elsewhere
    assert not re.search(r'(src|href)="(https?:)?//', html)


def test_figures_label_units_and_use_placement_colours(netpipe_store):
    from nicsim.sweep import report

    df, params, results, _ = report._load(netpipe_store)
    curves = report._curves(df, params, results)
    assert {c.placement for c in curves} == {"base", "offload", "onload", "hybrid"}
    fig = report.fig_netpipe(curves, "throughput_mbps")
    ax = fig.axes[0]
    assert "(bytes)" in ax.get_xlabel() and "Mbps" in ax.get_ylabel()
    for line in ax.get_lines():
        placement = line.get_label().split(",")[0]
        assert line.get_color() == colour(placement)
    for f in (report.fig_signature(curves), report.fig_interrupts(curves), report.fig_netpipe(curves, "latency_us")):
        ax = f.axes[0]
        assert re.search(r"\((µs|bytes|1/s)\)", ax.get_xlabel() + ax.get_ylabel())
    ylabel = report.fig_busy_netpipe(curves).axes[0].get_ylabel()
    assert "fraction" in ylabel


def test_gamma_report_has_delta_b_with_laws_curve(gamma_store, tmp_path):
    assert main_sweep(["report", str(gamma_store), "--out", str(tmp_path)]) == 0
    html = (tmp_path / "report.html").read_text()
    assert 'id="fig-delta_b"' in html and 'id="fig-gamma_throughput"' in html
    assert (tmp_path / "delta_b.png").exists() and (tmp_path / "delta_b.svg").exists()
    from nicsim.sweep import report

    df, params, results, _ = report._load(gamma_store)
    table = report.gamma_table(report._gamma_rows(df, params, results))
    assert sorted(r["gamma"] for r in table) == [0.0, 0.5, 1.0]
    ax = report.fig_delta_b(table).axes[0]
    labels = [ln.get_label() for ln in ax.get_lines()]
    assert any("LAWS" in lb for lb in labels) and any("simulated" in lb for lb in labels)
    assert "γ" in ax.get_xlabel() and "δb" in ax.get_ylabel()


def test_report_of_a_missing_store_is_one_line(tmp_path, capsys):
    assert main_sweep(["report", str(tmp_path / "nope.sqlite"), "--out", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not found" in err and "Traceback" not in err


def test_report_of_a_file_that_is_not_a_store_is_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.sqlite"
    bad.write_text("not sqlite")
    assert main_sweep(["report", str(bad), "--out", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not a sweep store" in err


def test_report_lists_failed_points(tmp_path):
    from nicsim.sweep import Store, build_points

    store = tmp_path / "f.sqlite"
    p = build_points("ortiz2008-base", {"cpu.count": ["1"]}, sets={"workload.netpipe.target_ps": "5 ms"})[0]
    with Store(store) as st:
        st.put(p, {"status": "failed", "error": "SimulationError: stalled", "summary": {}, "result": None}, "r1")
    assert main_sweep(["report", str(store), "--out", str(tmp_path / "r")]) == 0
    html = (tmp_path / "r" / "report.html").read_text()
    assert "Failed points" in html and "SimulationError: stalled" in html and "No successful points" in html


def test_every_swept_point_is_its_own_series_and_the_table_scrolls(tmp_path):
    """A swept max_bytes is a series like any other key (issue 19 item 7), and the points table
    sits in a sideways-scrolling box instead of overflowing the page."""
    from nicsim.sweep import sweep
    from nicsim.sweep.report import _curves, _load, write_report

    store = tmp_path / "s.sqlite"
    sweep("ortiz2008-offload", {"nic_cpu.speed_fraction": [0.5, 1.0], "workload.netpipe.max_bytes": ["1 KiB", "2 KiB"]},
          store=store, sets={"workload.netpipe.target_ps": "2 ms"}, workers=2, progress=False)
    df, params, results, _ = _load(store)
    assert len(_curves(df, params, results)) == 4
    html = write_report(store, tmp_path / "rep").read_text()
    assert '<div class="wide"><table' in html and ".wide{overflow-x:auto" in html


def test_a_sweep_over_memory_modes_reports_the_receivers_hit_rates(tmp_path):
    from nicsim.sweep import run_sweep

    store, out = tmp_path / "modes.sqlite", tmp_path / "report"
    run_sweep("ortiz2008-onload", {"mem.mode": "mean,detailed"}, store, progress=False, workers=1,
              sets={"workload.netpipe.target_ps": "4 ms", "workload.netpipe.sizes_bytes": "1 KiB,64 KiB"})
    assert main_sweep(["report", str(store), "--out", str(out)]) == 0
    caches = pd.read_csv(out / "caches.csv")
    # Only the detailed curve has caches: one row per receiver host CPU.
    assert sorted(caches.processor) == ["node1.cpu0", "node1.cpu1"]
    assert caches.configuration.str.contains("mode=detailed").all()
    assert ((caches["L1I rd"] >= 0) & (caches["L1I rd"] <= 1)).all()
    assert "Caches (mode B)" in (out / "report.html").read_text()
