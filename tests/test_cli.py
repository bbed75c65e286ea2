"""The `xlssd` command as a user meets it: output, reports, and errors."""

import json

import xlssd


def test_run_default_prints_summary_and_writes_report(cli, tmp_path):
    out = tmp_path / "r.json"
    p = cli("run", "--json", str(out), "--workload", "n=2000")
    assert p.returncode == 0, p.stderr
    assert "read" in p.stdout and "WAF" in p.stdout
    report = json.loads(out.read_text())
    assert report["host"]["all"]["count"] == 2000
    assert report["config"]["geometry"]["channels"] == 2  # the tiny preset
    assert report["version"] == xlssd.__version__


def test_json_to_stdout_is_pure_json(cli):
    p = cli("run", "--workload", "n=500,rw=randread", "--json", "-")
    assert p.returncode == 0, p.stderr
    report = json.loads(p.stdout)
    assert report["host"]["read"]["count"] == 500
    assert report["host"]["write"]["count"] == 0


def test_identical_runs_give_byte_identical_reports(cli, tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    for path in (a, b):
        p = cli("run", "--workload", "n=3000,rw=randrw", "--seed", "7", "--no-wall-clock", "--json", str(path), "--quiet")
        assert p.returncode == 0, p.stderr
    assert a.read_bytes() == b.read_bytes()
    c = tmp_path / "c.json"
    cli("run", "--workload", "n=3000,rw=randrw", "--seed", "8", "--no-wall-clock", "--json", str(c), "--quiet")
    assert c.read_bytes() != a.read_bytes()


def test_presets_are_listed(cli):
    p = cli("presets")
    assert p.returncode == 0
    names = [line.split()[0] for line in p.stdout.splitlines()]
    assert {"tiny", "mqsim-default", "approxftl-3d-128g", "tecs15-mlc-2g"} <= set(names)


def test_unknown_config_key_is_named_without_traceback(cli, tmp_path):
    out = tmp_path / "r.json"
    p = cli("run", "--set", "geometry.chanels=4", "--json", str(out))
    assert p.returncode == 2
    assert "geometry.chanels" in p.stderr
    assert "Traceback" not in p.stderr
    assert not out.exists()


def test_out_of_range_value_names_key_and_range(cli):
    p = cli("run", "--set", "ftl.overprovisioning=1.5")
    assert p.returncode == 2
    assert "ftl.overprovisioning" in p.stderr and "(0, 1)" in p.stderr


def test_wrong_type_is_named(cli):
    p = cli("run", "--set", "gc.policy=3")
    assert p.returncode == 2
    assert "gc.policy" in p.stderr


def test_config_file_with_base_preset_and_bad_toml(cli, tmp_path):
    good = tmp_path / "dev.toml"
    good.write_text('base = "tiny"\n[gc]\npolicy = "fifo"\n')
    p = cli("run", "--config", str(good), "--workload", "n=100", "--json", "-", "--quiet")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["config"]["gc"]["policy"] == "fifo"
    bad = tmp_path / "bad.toml"
    bad.write_text("[gc\npolicy = 1\n")
    p = cli("run", "--config", str(bad))
    assert p.returncode == 2 and str(bad) in p.stderr and "Traceback" not in p.stderr


def test_missing_trace_is_named(cli, tmp_path):
    p = cli("run", "--trace", str(tmp_path / "nope.trace"))
    assert p.returncode == 2
    assert "nope.trace" in p.stderr


def test_malformed_trace_line_stops_with_file_and_line(cli, tmp_path):
    trace = tmp_path / "t.trace"
    trace.write_text("0 0 0 8 1\n1000 0 8 8 0\n2000 0 banana 8 1\n3000 0 16 8 1\n")
    out = tmp_path / "r.json"
    p = cli("run", "--trace", str(trace), "--json", str(out))
    assert p.returncode == 2
    assert f"{trace}:3" in p.stderr and "banana" in p.stderr
    assert not out.exists()
    p = cli("run", "--trace", str(trace), "--skip-bad-lines", "--json", str(out), "--quiet")
    assert p.returncode == 0, p.stderr
    report = json.loads(out.read_text())
    assert report["sim"]["skipped_lines"] == 1
    assert report["host"]["all"]["count"] == 3


def test_address_beyond_capacity_is_an_error_unless_wrapped(cli, tmp_path):
    trace = tmp_path / "far.trace"
    trace.write_text("0 0 999999999 8 1\n")
    p = cli("run", "--trace", str(trace))
    assert p.returncode == 2 and "beyond the logical capacity" in p.stderr
    p = cli("run", "--trace", str(trace), "--address-mode", "wrap", "--json", "-", "--quiet")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["host"]["read"]["count"] == 1


def test_check_flag_runs_the_invariant_checker(cli):
    p = cli("run", "--check", "--workload", "n=4000,rw=randwrite", "--quiet")
    assert p.returncode == 0, p.stderr


def test_schemes_lists_every_scheme_with_its_hooks(cli):
    p = cli("schemes")
    assert p.returncode == 0, p.stderr
    for name in ("baseline", "delta_b", "vth_b", "approxftl"):
        assert name in p.stdout
    assert "placement, program_mode, cleaning, free_blocks, erase, background" in p.stdout
    rows = json.loads(cli("schemes", "--json").stdout)
    by_name = {r["name"]: r for r in rows}
    assert by_name["baseline"]["hooks"] == []
    assert by_name["vth_b"]["hooks"] == ["placement", "program_mode", "erase"]
    assert "hot_max_bytes" in by_name["approxftl"]["keys"] and "hot_max_bytes" not in by_name["delta_b"]["keys"]


def test_bad_scheme_keys_are_clear_errors(cli, tmp_path):
    out = tmp_path / "r.json"
    base = ("run", "--quiet", "--workload", "n=100", "--json", str(out), "--set", "ftl.overprovisioning=0.25")
    for sets, fragments in [
        (("scheme.name=approxftl", "scheme.approxftl.all_approx_wear=1.5"),
         ("scheme.approxftl.all_approx_wear", "1.5", "(0, 1]")),
        (("scheme.name=delta_b", "scheme.approxftl.refresh_h=10"), ("scheme.approxftl.refresh_h", "delta_b")),
        (("scheme.name=approxftl", "gc.policy=fifo"), ("gc.policy", "approxftl")),
        (("scheme.name=nope",), ("scheme.name", "unknown scheme `nope`")),
    ]:
        p = cli(*base, *[a for s in sets for a in ("--set", s)])
        assert p.returncode == 2, (sets, p.stderr)
        assert all(f in p.stderr for f in fragments), (sets, p.stderr)
        assert "Traceback" not in p.stderr and not out.exists()
