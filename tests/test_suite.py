"""`nicsim validate --suite ortiz2008`: the catalogue keeps the calibration rows as they are,
holds every other figure out, fills references by id, and reports (docs/validation.md)."""
import json

import pytest

from nicsim import cli
from nicsim.suite import run_suite, select
from nicsim.suite_rows import catalogue
from nicsim.validation import BUILTIN

SMALL = "E5,T1"  # five short NetPIPE runs


def run_cli(capsys, *args):
    with pytest.raises(SystemExit) as e:
        cli.main(["validate", "--suite", "ortiz2008", *args])
    out = capsys.readouterr()
    return e.value.code, out.out, out.err


def test_the_calibration_rows_keep_their_roles_and_references():
    rows = {r.id: r for r in catalogue()}
    for b in BUILTIN:
        r = rows[b.id]
        assert (r.role, r.reference, r.tolerance, r.preset, r.command, r.metric) == (b.role, b.value, b.tolerance, b.preset, b.command, b.metric)
    others = [r for r in rows.values() if r.id not in {b.id for b in BUILTIN}]
    assert others and all(r.role == "held-out" and r.reference is None for r in others)


def test_row_ids_are_unique_and_name_their_experiment():
    rows = catalogue()
    assert len({r.id for r in rows}) == len(rows)
    for r in rows:
        if r.role == "held-out":
            assert r.id.startswith(r.experiment + "."), r.id
    assert {"E1", "E2", "E3", "E4", "E5", "E6", "E7", "E8", "E9", "E10", "E12", "E13", "E14", "E15", "E16"} <= {r.experiment for r in rows}


def test_only_selects_experiments_and_prefixes():
    rows = catalogue()
    assert {r.id for r in select(rows, "E5")} == {"E5.nic100.peak_mbps", "E5.nic75.peak_mbps", "E5.nic50.peak_mbps", "E5.nic25.peak_mbps"}
    assert {r.id for r in select(rows, "E4.x1")} == {"E4.x1.latency_us", "E4.x1.peak_mbps"}  # not E4.x10


def test_held_out_rows_have_null_reference_and_verdict():
    doc = run_suite(only=SMALL)
    by = {r["id"]: r for r in doc["rows"]}
    assert by["T1"]["role"] == "target" and by["T1"]["reference"] == 68.0 and isinstance(by["T1"]["passed"], bool)
    for rid in ("E5.nic100.peak_mbps", "E5.nic25.peak_mbps"):
        assert by[rid]["role"] == "held-out"
        assert by[rid]["reference"] is None and by[rid]["passed"] is None and by[rid]["error"] is None
        assert by[rid]["model"] > 0


def test_a_slower_nic_processor_does_not_stream_faster():
    by = {r["id"]: r["model"] for r in run_suite(only="E5")["rows"]}
    assert by["E5.nic25.peak_mbps"] <= by["E5.nic50.peak_mbps"] <= by["E5.nic100.peak_mbps"]


def test_a_reference_file_fills_a_held_out_row_by_id(tmp_path, capsys):
    model = {r["id"]: r["model"] for r in run_suite(only="E5.nic25")["rows"]}["E5.nic25.peak_mbps"]
    f = tmp_path / "ref.csv"
    f.write_text(f"id,value,tolerance\nE5.nic25.peak_mbps,{2 * model},10%\nE5.nic50.peak_mbps,{model},>=0\n")
    code, out, _ = run_cli(capsys, "--only", "E5", "--reference", str(f), "--json")
    by = {r["id"]: r for r in json.loads(out)["rows"]}
    r = by["E5.nic25.peak_mbps"]
    assert r["reference"] == pytest.approx(2 * model) and r["passed"] is False
    assert r["error"] == pytest.approx(-0.5)
    assert by["E5.nic50.peak_mbps"]["passed"] is True
    assert by["E5.nic75.peak_mbps"]["passed"] is None
    assert code == 1  # a row with a reference failed


def test_a_toml_reference_works_too(tmp_path, capsys):
    f = tmp_path / "ref.toml"
    f.write_text('[[row]]\nid = "E5.nic100.peak_mbps"\nvalue = 1.0\ntolerance = ">=0.5"\n')
    code, out, _ = run_cli(capsys, "--only", "E5.nic100", "--reference", str(f), "--json")
    (r,) = json.loads(out)["rows"]
    assert r["passed"] is True and r["reference"] == 1.0 and code == 0


@pytest.mark.parametrize("args, text, needle", [
    (["--reference", "REF"], "id,value,tolerance\nE99.nope,1,5%\n", "'E99.nope'"),
    (["--reference", "REF"], "id,value\nE5.nic25.peak_mbps,3\n", "lacks tolerance"),
    (["--reference", "REF"], "value,tolerance\n3,5%\n", "has no id"),
    (["--only", "E99"], None, "'E99' matches no row"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys, args, text, needle):
    f = tmp_path / "ref.csv"
    if text is not None:
        f.write_text(text)
    args = [str(f) if a == "REF" else a for a in args]
    code, out, err = run_cli(capsys, "--only", "E5", *args) if args[0] != "--only" else run_cli(capsys, *args)
    assert code == 2 and needle in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_an_unknown_suite_is_one_line(capsys):
    with pytest.raises(SystemExit) as e:
        cli.main(["validate", "--suite", "ortiz2009"])
    err = capsys.readouterr().err
    assert e.value.code == 2 and "unknown suite" in err and len(err.strip().splitlines()) == 1


def test_json_has_the_documented_keys(capsys):
    code, out, _ = run_cli(capsys, "--only", SMALL, "--json")
    doc = json.loads(out)
    assert {"suite", "only", "reference_file", "rows", "checked", "passed", "total", "held_out_unchecked", "runs", "wall_s"} <= set(doc)
    assert doc["total"] == len(doc["rows"]) == 5 and doc["checked"] == 1
    for r in doc["rows"]:
        assert {"id", "experiment", "table", "description", "preset", "sets", "command", "metric", "unit", "model",
                "reference", "tolerance", "error", "role", "passed", "source"} <= set(r)


def test_the_text_groups_rows_by_thesis_table(capsys):
    code, out, _ = run_cli(capsys, "--only", SMALL)
    assert "== E5 | Fig. 4.6" in out and "== E8 | Tables 4.9, 4.10" in out
    assert out.index("T1") < out.index("E5.nic100.peak_mbps")
    assert "held-out" in out


def test_the_report_writes_a_page_and_plots(tmp_path, capsys):
    f = tmp_path / "ref.csv"
    f.write_text("id,value,tolerance\nE5.nic50.peak_mbps,300,10%\n")
    out_dir = tmp_path / "rep"
    run_cli(capsys, "--only", "E5", "--reference", str(f), "--report", str(out_dir))
    page = (out_dir / "index.html").read_text()
    pngs = list(out_dir.glob("*.png"))
    assert pngs and all(p.stat().st_size > 1000 for p in pngs)
    assert "E5.nic50.peak_mbps" in page and pngs[0].name in page


def test_an_unusable_report_path_fails_before_any_run(tmp_path, capsys):
    f = tmp_path / "file"
    f.write_text("x")
    code, out, err = run_cli(capsys, "--only", "E5", "--report", str(f))
    assert code == 2 and "--report" in err and out == ""


def test_plain_validate_is_unchanged_by_the_suite_options(capsys):
    with pytest.raises(SystemExit) as e:
        cli.main(["validate", "--only", "E5"])
    assert e.value.code == 2 and "--suite" in capsys.readouterr().err


def test_docs_list_every_row_and_the_json_keys():
    from pathlib import Path

    docs = Path(__file__).resolve().parents[1] / "docs"
    text = docs.joinpath("validation.md").read_text().split("## The ortiz2008 suite", 1)[1]
    missing = [r.id for r in catalogue() if f"| `{r.id}` |" not in text]
    assert not missing, f"docs/validation.md does not list: {missing[:5]}"
    out = docs.joinpath("output.md").read_text().split("## `nicsim validate --suite ortiz2008 --json`", 1)[1]
    for key in ("held_out_unchecked", "rows[].role", "rows[].passed", "rows[].experiment"):
        assert f"`{key}" in out
