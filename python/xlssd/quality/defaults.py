"""The device `xlssd quality` evaluates when given no other. Plain data, no imports: the
CLI reads it whenever it builds its parser."""

# The state the ApproxFTL paper evaluates quality in: every page programmed approximately
# (V_max_th lowered), 10K P/E cycles, a 1,000 h bake, and approximate pages read raw
# instead of decoded. An approximate page between precise ones would have an RBER of
# 7.2e-4; between approximate ones, as here, about 2.4e-4 to 3.9e-4 (docs/quality.md).
AGED_APPROXIMATE = {
    "physics": {"model": "vth", "program_mode": "approx-vmax", "read_disturb": False},
    "aging": {"initial_pe": 10_000, "data_age_h": 1_000},
    "precondition": {"occupancy": 1.0},
    "ecc": {"scheme": "ldpc", "skip_approximate": True},
}
AGED_APPROXIMATE_BASE = "tiny"
