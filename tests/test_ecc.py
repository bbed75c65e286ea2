"""BCH calculators and the seed 001 ECC reproduction."""

import math

import pytest

from xlssd import _core
from xlssd.reproduce import tecs15_ecc


def test_every_table_cell_within_tolerance_of_the_paper():
    cells = tecs15_ecc.cells()
    assert len(cells) == 45
    for c in cells:
        assert c.within_tolerance, c
    # The hardware limit cells: the paper prints ">93"; they must come out above 93.
    beyond = [c for c in cells if c.paper is None]
    assert len(beyond) == 3 and all(c.ours > 93 for c in beyond)


def test_required_t_grows_along_each_row_and_with_stricter_targets():
    cells = tecs15_ecc.cells()
    by = {(c.uber, c.algorithm, c.pe): c.ours for c in cells}
    for uber in tecs15_ecc.PAPER_T:
        for alg in tecs15_ecc.ALGORITHMS:
            row = [by[(uber, alg, pe)] for pe in tecs15_ecc.PE_CYCLES]
            assert row == sorted(row), (uber, alg, row)
    for alg in tecs15_ecc.ALGORITHMS:
        for pe in tecs15_ecc.PE_CYCLES:
            assert by[(1e-11, alg, pe)] <= by[(1e-13, alg, pe)] <= by[(1e-15, alg, pe)]


def test_required_t_meets_the_target_and_one_less_does_not():
    for rber in (1e-5, 3.052e-4, 1.526e-3, 9.0332e-3):
        t, m, parity, decode_ns = _core.ecc_required_t(rber, 1e-13)
        assert _core.ecc_uber(rber, t) <= 1e-13 < _core.ecc_uber(rber, t - 1)
        assert parity == m * t
        assert decode_ns > 0


def test_uber_matches_a_direct_binomial_sum_for_a_small_code():
    # k = 16 bytes: n = 128 bits, small enough to sum exactly.
    n, p, t = 128, 0.02, 5
    exact = sum(math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(t + 1, n + 1)) / n
    assert _core.ecc_uber(p, t, 16) == pytest.approx(exact, rel=1e-9)


def test_uber_is_stable_at_the_extremes():
    assert 0 < _core.ecc_uber(0.1, 500) < 1
    assert _core.ecc_uber(1e-9, 500) >= 0.0
    assert _core.ecc_required_t(0.1, 1e-15) is None or _core.ecc_required_t(0.1, 1e-15)[0] > 3000


def test_cli_ecc_commands_and_their_errors(cli):
    p = cli("ecc", "required-t", "--rber", "1e-3", "--uber", "1e-13")
    assert p.returncode == 0 and p.stdout.startswith("t = ")
    t = int(p.stdout.split()[2])
    assert abs(t - 70) <= 2  # seed 001 Table II, ISPP-SV at 100,000 P/E
    p = cli("ecc", "uber", "--rber", "1e-3", "--t", str(t))
    assert p.returncode == 0 and float(p.stdout.split("=")[1]) <= 1e-13
    bad = cli("ecc", "required-t", "--rber", "0.7", "--uber", "1e-13")
    assert bad.returncode == 2 and "--rber" in bad.stderr and "Traceback" not in bad.stderr
