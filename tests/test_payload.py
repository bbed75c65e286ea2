"""Payload mode: real bytes on the device, returned with the errors no decoder corrected."""

import pytest

import xlssd
from xlssd import ConfigError

AGED_APPROXIMATE = {
    "base": "tiny",
    "physics": {"model": "vth", "program_mode": "approx-vmax", "read_disturb": False},
    "aging": {"initial_pe": 10_000, "data_age_h": 1_000},
    "precondition": {"occupancy": 1.0},
    "ecc": {"scheme": "ldpc", "skip_approximate": True},
}
DATA = bytes((i * 37 + (i >> 8)) & 0xFF for i in range(8 * 4096))
SEQUENTIAL_READS = "rw=read,bs=4k,n=64"


def flipped_bits(a: bytes, b: bytes) -> int:
    return sum(bin(x ^ y).count("1") for x, y in zip(a, b))


def test_error_free_device_returns_the_data_as_written():
    r = xlssd.simulate("tiny", SEQUENTIAL_READS, payload=DATA)
    assert r.payload == DATA
    assert r["payload.enabled"] and r["payload.pages_read"] > 0 and r["payload.bits_flipped"] == 0


def test_approximate_pages_read_raw_come_back_with_bit_errors():
    r = xlssd.simulate(AGED_APPROXIMATE, SEQUENTIAL_READS, payload=DATA)
    assert len(r.payload) == len(DATA)
    assert flipped_bits(r.payload, DATA) == r["payload.bits_flipped"] > 0
    # Same inputs, same flips.
    again = xlssd.simulate(AGED_APPROXIMATE, SEQUENTIAL_READS, payload=DATA)
    assert again.payload == r.payload
    # Decoded instead of read raw: every bit corrected.
    decoded = {**AGED_APPROXIMATE, "ecc": {"scheme": "ldpc", "skip_approximate": False}}
    assert xlssd.simulate(decoded, SEQUENTIAL_READS, payload=DATA).payload == DATA


def test_payload_errors_are_named():
    with pytest.raises(ConfigError, match="payload.lba"):
        xlssd.simulate("tiny", "n=10", payload=DATA, payload_lba=3)
    with pytest.raises(ConfigError, match="payload.data"):
        xlssd.simulate("tiny", "n=10", payload=b"")


def test_cli_writes_what_the_host_reads_back(cli, tmp_path):
    src = tmp_path / "in.bin"
    src.write_bytes(DATA)
    out = tmp_path / "out.bin"
    p = cli("run", "--workload", SEQUENTIAL_READS, "--payload", str(src), "--payload-out", str(out), "--quiet")
    assert p.returncode == 0, p.stderr
    assert out.read_bytes() == DATA
    missing = cli("run", "--payload", str(tmp_path / "nope.bin"), "--payload-out", str(out))
    assert missing.returncode == 2 and "--payload" in missing.stderr
    bad = cli("run", "--payload", str(src), "--payload-lba", "5", "--payload-out", str(tmp_path / "bad.bin"))
    assert bad.returncode == 2 and "payload.lba" in bad.stderr and not (tmp_path / "bad.bin").exists()
