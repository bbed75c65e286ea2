"""The Python API: `xlssd.simulate(config, workload) -> Report`."""

import pytest

import xlssd


def test_simulate_with_preset_and_spec():
    r = xlssd.simulate("tiny", "rw=randread,n=1000,iodepth=4")
    assert r["host.read.count"] == 1000
    assert r["host.read.latency_us.p50"] > 0
    assert "host.read.latency_us.p99_99" in r


def test_simulate_with_dict_config_and_dict_workload():
    cfg = {"geometry": {"channels": 1}, "cache": {"capacity_bytes": 0}}
    r = xlssd.simulate(cfg, {"rw": "randwrite", "n": 500, "iodepth": 1})
    assert r["config.geometry.channels"] == 1
    assert r["host.write.count"] == 500
    # Without a buffer, every write waits for its program.
    assert r["host.write.latency_us.p50"] >= r["config.timing.program_us"]


def test_report_flattening_and_missing_keys():
    r = xlssd.simulate("tiny", "n=100")
    flat = dict(r.flat())
    assert flat["host.all.count"] == 100
    with pytest.raises(KeyError):
        r["host.nothing"]


def test_bad_config_raises_config_error():
    with pytest.raises(xlssd.ConfigError, match="gc.threshold"):
        xlssd.simulate({"gc": {"threshold": 2.0}}, "n=10")


def test_progress_callback_can_stop_the_run():
    calls = []

    def stop(done, sim_ns):
        calls.append(done)
        return False

    with pytest.raises(KeyboardInterrupt):
        xlssd.simulate("tiny", "n=400000,rw=randread", progress=stop)
    assert calls


@pytest.mark.parametrize("preset", xlssd.preset_names())
def test_every_preset_is_valid_and_runs(preset):
    r = xlssd.simulate(preset, "rw=randrw,n=200,iodepth=4", check=True)
    assert r["host.all.count"] == 200
