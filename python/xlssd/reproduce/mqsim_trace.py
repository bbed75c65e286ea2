"""Writing generated workloads as MQSim traces (five space-separated columns: arrival ns,
device, first sector, sectors, 1 for a read and 0 for a write), atomically."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

from xlssd.atomic import atomic_path


def write(path: Path, times, lba, sectors, is_read) -> Path:
    n = len(times)
    table = pa.table({"t": np.asarray(times, dtype=np.int64), "dev": np.zeros(n, dtype=np.int64),
                      "lba": np.asarray(lba, dtype=np.int64), "size": np.asarray(sectors, dtype=np.int64),
                      "op": np.asarray(is_read, dtype=np.int64)})
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_path(path) as tmp:
        pacsv.write_csv(table, tmp, pacsv.WriteOptions(include_header=False, delimiter=" ", quoting_style="none"))
    return path
