"""`nicsim web --users A,B,...` (issue 37): one run per user count, a table, one JSON document,
and a plot of requests/s and response time against users."""
import json
import subprocess
import sys

import pytest

from nicsim.web import run_web, run_web_users

WINDOW = ("--duration", "100 ms", "--warmup", "50 ms")
SHORT = {"workload.web.duration_ps": "100 ms", "workload.web.warmup_ps": "50 ms"}


def cli(*args, timeout=120):
    return subprocess.run([sys.executable, "-m", "nicsim", *args], capture_output=True, text=True, timeout=timeout)


def test_each_count_is_its_own_run_and_more_users_serve_more_at_light_load():
    sweep = run_web_users("ortiz2008-base", SHORT, users=[1, 8])
    assert [p["users"] for p in sweep["users_sweep"]] == [1, 8]
    light, heavier = (p["result"]["web"] for p in sweep["users_sweep"])
    assert (light["users"], heavier["users"]) == (1, 8)
    assert heavier["requests_per_s"] > 1.1 * light["requests_per_s"]
    # The same run as a single count gives: the list changes nothing in a run.
    alone = run_web("ortiz2008-base", SHORT, users=8)["web"]
    assert alone["requests_per_s"] == heavier["requests_per_s"] and alone["response_time_ms"] == heavier["response_time_ms"]


def test_the_table_has_a_line_per_count_in_the_order_given():
    r = cli("web", "ortiz2008-base", "--users", "8,2", *WINDOW)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    head = next(i for i, line in enumerate(lines) if line.split()[:2] == ["users", "requests/s"])
    assert {"mean", "p99", "time/req", "util", "stalled"} <= set(lines[head].split())
    rows = [line.split() for line in lines[head + 1:head + 3]]
    assert [row[0] for row in rows] == ["8", "2"]
    assert all(float(row[4]) > 0 and row[5] == "node4.cpu0" and 0 < float(row[6]) <= 1 and row[7:10] == ["0", "of", "1"]
               for row in rows)
    # Each count's server processors, their busy shares.
    busy = [line for line in lines if "the server's processors busy" in line]
    assert [line.split()[0] for line in busy] == ["8", "2"] and all("cpu0" in line for line in busy)


def test_the_json_is_one_document_of_the_runs_and_vs_base_goes_with_a_list():
    r = cli("web", "ortiz2008-offload", "--users", "2,8", "--vs-base", "--json", *WINDOW)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["command"] == "web" and [p["users"] for p in doc["users_sweep"]] == [2, 8]
    for p in doc["users_sweep"]:
        assert p["result"]["web"]["users"] == p["users"]
        assert {"requests_per_s", "response_time_ms", "health"} <= set(p["result"]["web"])
        assert p["result"]["vs_base"]["requests_per_s"]["improvement_percent"] is not None


def test_the_plot_is_a_png(tmp_path):
    png = tmp_path / "users.png"
    r = cli("web", "ortiz2008-base", "--users", "2,8", "--plot", str(png), *WINDOW)
    assert r.returncode == 0, r.stderr
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("args, names", [
    (["--users", "100,abc"], "'abc' is not a whole number"),
    (["--users", "0"], "0 is below 1"),
    (["--users", "100,0"], "0 is below 1"),
    (["--users", ""], "an empty count"),
    (["--users", "100,"], "an empty count"),
    (["--users", "100,500,100"], "100 appears twice"),
    (["--users", ",".join(str(n) for n in range(1, 66))], "65 counts"),
])
def test_a_bad_list_is_one_line_naming_users_and_what_is_allowed(args, names):
    r = cli("web", "ortiz2008-base", *args, *WINDOW)
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 2 and len(lines) == 1 and r.stdout == "", r.stderr
    assert lines[0].startswith("nicsim: --users ") and names in lines[0] and "up to 64 distinct counts" in lines[0]


@pytest.mark.parametrize("args, names", [
    (["--users", "100", "--plot", "{tmp}/u.png"], "--plot draws requests/s and response time against users"),
    (["--users", "2,8", "--plot", "{tmp}/u.txt"], "the file name must end in"),
    (["--users", "2,8", "--series", "1ms"], "--series records one run"),
    (["--users", "2,8", "--pcap-out", "{tmp}/x.pcap"], "--pcap-out records one run"),
])
def test_what_does_not_go_with_a_list_is_refused_before_anything_runs(tmp_path, args, names):
    r = cli("web", "ortiz2008-base", *(a.format(tmp=tmp_path) for a in args), timeout=60)
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 2 and len(lines) == 1 and names in lines[0], r.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_failed_run_keeps_the_counts_before_it_and_names_its_count(monkeypatch):
    import nicsim.web as web
    from nicsim.errors import SimulationError

    def fake(config_source, sets, users, **options):
        if users == 3:
            raise SimulationError("stalled")
        return {"web": {"users": users}}

    monkeypatch.setattr(web, "run_web", fake)
    with pytest.raises(SimulationError, match=r"^at --users 3: stalled$") as e:
        web.run_web_users("ortiz2008-base", {}, users=[1, 2, 3, 4])
    assert [p["users"] for p in e.value.partial["users_sweep"]] == [1, 2]
