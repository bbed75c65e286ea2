"""Device-physics calculators: calibration points of each model and monotonicity."""

import pytest

from xlssd import _core, ConfigError


def rber(model, **kw):
    return _core.physics_rber(model, **kw)[0]


def test_power_law_at_zero_retention_is_seed_001_table_ii():
    # ISPP-RV at 10,000 cycles: 1.526e-3; ISPP-DV at 1,000: 3.052e-5.
    assert rber("power-law", pe=10_000, algorithm="rv") == pytest.approx(1.526e-3, rel=1e-9)
    assert rber("power-law", pe=1_000, algorithm="dv") == pytest.approx(3.052e-5, rel=1e-9)


@pytest.mark.parametrize("model", ["power-law", "exp-linear", "vth"])
def test_rber_never_falls_as_wear_retention_or_reads_grow(model):
    grid_pe = [0, 1, 10, 100, 1_000, 3_000, 10_000, 30_000]
    grid_t = [0, 1, 24, 720, 8_760]
    grid_r = [0, 1_000, 10_000, 40_000]
    for t in grid_t:
        values = [rber(model, pe=pe, retention_h=t) for pe in grid_pe]
        assert values == sorted(values), (model, t, values)
    for pe in grid_pe:
        values = [rber(model, pe=pe, retention_h=t) for t in grid_t]
        assert values == sorted(values), (model, pe, values)
        values = [rber(model, pe=pe, reads=r) for r in grid_r]
        assert values == sorted(values), (model, pe, values)


def test_read_disturbance_budget_depends_on_page_type_and_read_mode():
    # A fresh block: its reads-before-limit is an output, larger for LSB pages and for
    # lowered read voltages (seed 003 Table 5).
    _, _, msb = _core.physics_rber("exp-linear", page_type=2, read_mode=0)
    _, _, lsb = _core.physics_rber("exp-linear", page_type=0, read_mode=0)
    _, _, msb_low_v = _core.physics_rber("exp-linear", page_type=2, read_mode=2)
    assert lsb == pytest.approx(4 * msb)
    assert msb_low_v == pytest.approx(5 * msb)
    # Worn data leaves less room for read disturbance.
    _, _, worn = _core.physics_rber("exp-linear", pe=2_000, page_type=2, read_mode=0)
    assert worn < msb


def test_cli_physics_rber_and_bad_input(cli):
    p = cli("physics", "rber", "--model", "power-law", "--pe", "10000", "--algorithm", "rv")
    assert p.returncode == 0 and "RBER = 1.5260e-03" in p.stdout
    bad = cli("physics", "rber", "--model", "power-law", "--pe", "-5")
    assert bad.returncode == 2 and "--pe" in bad.stderr and "Traceback" not in bad.stderr
    with pytest.raises(ConfigError):
        _core.physics_rber("power-law", page_type=7)
    # The command line's --page-type takes 0, 1 or 2 only; the core checks its own range too.
    with pytest.raises(ConfigError, match=r"--page-type: value -1 is out of range: expected 0 to 2"):
        _core.physics_rber("vth", page_type=-1)


def test_vth_model_reproduces_seed_000_and_rewards_approximate_neighbours():
    at = dict(pe=10_000, retention_h=1_000)
    precise = rber("vth", **at)
    approx = rber("vth", mode="approx-vmax", **at)
    assert precise == pytest.approx(1e-8, rel=0.25)
    assert approx == pytest.approx(7.2e-4, rel=0.15)
    relieved = rber("vth", y_neighbour="approx-vmax", z_neighbour="approx-vmax", **at)
    alone = rber("vth", y_neighbour="none", z_neighbour="none", **at)
    assert alone < relieved < precise


def test_cli_vth_options_and_bad_input(cli):
    p = cli("physics", "rber", "--model", "vth", "--pe", "10000", "--retention", "1000", "--mode", "approx-vmax")
    assert p.returncode == 0 and "RBER = 7." in p.stdout
    with pytest.raises(ConfigError, match="--y-neighbour"):
        _core.physics_rber("vth", y_neighbour="sideways")


def test_program_times_and_step_levels_come_from_the_core_with_clear_errors():
    # Table I's ISPP-SV at cycle 1 (calibrated), ISPP-DV predicted: 21 x 8.095 + 42 x 30 us;
    # 20% fewer pulses at 100,000 cycles by default.
    assert _core.ispp_program_us("sv") == pytest.approx(800.0)
    assert _core.ispp_program_us("dv") == pytest.approx(21 * (800 / 21 - 30) + 42 * 30)
    assert _core.ispp_program_us("sv", 100_000.0) == pytest.approx(640.0)
    assert _core.ispp_program_us("sv", 100_000.0, 0.0) == pytest.approx(800.0)
    for args, message in ((("xx",), "--algorithm: unknown `xx`"), (("sv", -1.0), "--pe: value -1"),
                          (("sv", 1.0, 1.5), "speedup_at_100k: value 1.5")):
        with pytest.raises(ConfigError, match=message):
            _core.ispp_program_us(*args)
    # Sequential programming keeps the precise step; fewer later neighbours allow a coarser one.
    assert _core.vth_step_level("precise", "precise")[0] == 0
    chb, none = _core.vth_step_level("approx-vmax", "approx-vmax"), _core.vth_step_level("none", "none")
    assert 0 < chb[0] < none[0] and 0 < chb[2] < none[2] < 1
    assert none[1] == pytest.approx(1 + none[0] / 32)
    with pytest.raises(ConfigError, match="--y-neighbour: unknown `bogus`"):
        _core.vth_step_level("bogus", "none")
