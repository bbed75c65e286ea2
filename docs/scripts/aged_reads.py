#!/usr/bin/env python3
"""Read latency of aged data: mean and p99.99 of a read-only workload as P/E cycles and
retention age grow, with the power-law RBER model and the LDPC read path.

    .venv/bin/python docs/scripts/aged_reads.py [--out docs/img/aged-reads.png]

Prints a Markdown table and draws the figure used in docs/physics.md.
"""

from __future__ import annotations

import argparse

import xlssd

PE = [1, 1_000, 3_000, 10_000, 20_000]
AGES_H = [0, 720, 8_760, 3 * 8_760]
# One read at a time over the preconditioned half of the device, so that each latency is
# exactly what its decoding stages take.
WORKLOAD = "rw=randread,bs=4k,n=5000,iodepth=1,span=0.5"


def point(pe: int, age_h: int) -> xlssd.Report:
    cfg = xlssd.config.load_preset("tiny")
    cfg = xlssd.config.merge(cfg, {
        "physics": {"model": "power-law"},
        "ecc": {"scheme": "ldpc"},
        "aging": {"initial_pe": pe, "data_age_h": age_h},
    })
    return xlssd.simulate(cfg, WORKLOAD)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", default="docs/img/aged-reads.png")
    args = ap.parse_args()
    rows = {(pe, age): point(pe, age) for pe in PE for age in AGES_H}
    print("| P/E cycles | data age | mean RBER | hard / soft / RAID reads | mean read (us) | p99.99 read (us) |")
    print("|---|---|---|---|---|---|")
    for (pe, age), r in rows.items():
        d = r["reliability.decode"]
        print(f"| {pe:,} | {age:,} h | {r['reliability.rber.mean']:.2e} | {d['hard']:,} / {sum(d['soft']):,} / {d['raid']:,} "
              f"| {r['host.read.latency_us.mean']:,.1f} | {r['host.read.latency_us.p99_99']:,.1f} |")

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharex=True)
    for age in AGES_H:
        means = [rows[(pe, age)]["host.read.latency_us.mean"] for pe in PE]
        tails = [rows[(pe, age)]["host.read.latency_us.p99_99"] for pe in PE]
        label = f"data {age:,} h old"
        axes[0].plot(PE, means, marker="o", label=label)
        axes[1].plot(PE, tails, marker="o", label=label)
    for ax, title in zip(axes, ("mean read latency", "p99.99 read latency")):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("P/E cycles")
        ax.set_ylabel("us")
        ax.set_title(title)
        ax.grid(True, which="both", alpha=0.3)
    axes[0].legend()
    fig.suptitle("tiny preset, power-law RBER, LDPC read path, one random 4 KiB read at a time")
    fig.tight_layout()
    fig.savefig(args.out, dpi=110)
    print(f"\nfigure: {args.out}")


if __name__ == "__main__":
    main()
