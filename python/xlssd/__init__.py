"""xlssd: a white-box, cross-layer NAND-flash SSD simulator.

The simulator core is Rust (``xlssd._core``); this package loads configurations, runs
simulations and presents their reports::

    import xlssd
    report = xlssd.simulate("tiny", "rw=randread,n=10000,iodepth=8")
    print(report["host.read.latency_us.p99"])
"""

from xlssd._core import (
    ConfigError,
    SimulationError,
    TraceError,
    WorkloadError,
    XlssdError,
    __version__,
)
from xlssd.config import load_config, preset_names, resolve
from xlssd.report import Report
from xlssd.run import simulate
from xlssd.workload import Trace, synthetic

__all__ = [
    "ConfigError",
    "Report",
    "SimulationError",
    "Trace",
    "TraceError",
    "WorkloadError",
    "XlssdError",
    "__version__",
    "load_config",
    "preset_names",
    "resolve",
    "simulate",
    "synthetic",
]
