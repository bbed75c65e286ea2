"""docs/config.md names every config key and `--workload` spec key the simulator accepts, and nothing else."""

import json
import re

from conftest import REPO
from xlssd import _core

CONFIG_MD = REPO / "docs" / "config.md"


def first_column_names(row: str) -> list[str]:
    """The `quoted` names in the first column of a table row."""
    return re.findall(r"`([^`]+)`", row.split("|")[1])


def documented_keys(text: str) -> set[str]:
    """Dotted keys named in the first column of the reference's tables, each under its
    `### [section]` heading. A row may name several keys; `.n` after `power_law.b` is
    shorthand for `power_law.n`."""
    ref = text[text.index("## Reference") : text.index("## The `--workload` spec")]
    keys: set[str] = set()
    section = None
    for line in ref.splitlines():
        heading = re.match(r"### (?:`\[(.+?)\]`|Top level)", line)
        if heading:
            section = heading.group(1) or ""
            continue
        if section is None or not line.startswith("|") or line.startswith("|---"):
            continue
        previous = ""
        for name in first_column_names(line):
            if name.startswith("."):
                name = previous.rsplit(".", 1)[0] + name
            previous = name
            keys.add(f"{section}.{name}" if section else name)
    return keys


def leaves(table: dict, path: tuple = ()):
    for key, value in table.items():
        if isinstance(value, dict) and value:
            yield from leaves(value, (*path, key))
        else:
            yield ".".join((*path, key))


def accepted_keys() -> set[str]:
    """Every key of the resolved default config, and every scheme table's keys."""
    keys = set(leaves(json.loads(_core.resolve_config("{}"))))
    for scheme in json.loads(_core.schemes()):
        if scheme["table"]:
            keys |= {f"scheme.{scheme['table']}.{k}" for k in scheme["keys"]}
    return keys


def test_the_parser_reads_grouped_rows_and_shorthand():
    text = (
        "## Reference\n### Top level\n| `seed` | u64 |\n### `[physics]`\n"
        "|---|---|\n| `power_law.b`, `.n` | f64 | `2` |\n## The `--workload` spec\n"
    )
    assert documented_keys(text) == {"seed", "physics.power_law.b", "physics.power_law.n"}


def test_every_accepted_key_is_documented():
    documented = documented_keys(CONFIG_MD.read_text())
    # A scheme key that is a table of its own (access modes' `standard`) is documented by
    # its fields (`standard.algorithm`).
    missing = sorted(k for k in accepted_keys() if k not in documented and not any(d.startswith(k + ".") for d in documented))
    assert not missing, f"config keys missing from docs/config.md's reference: {missing}"


def test_every_documented_key_is_accepted():
    accepted = accepted_keys()
    stale = sorted(k for k in documented_keys(CONFIG_MD.read_text()) if k not in accepted and k.rsplit(".", 1)[0] not in accepted)
    assert not stale, f"docs/config.md documents keys the simulator does not accept: {stale}"


def test_the_workload_spec_table_names_the_keys_the_parser_knows():
    text = CONFIG_MD.read_text()
    table = text[text.index("## The `--workload` spec") : text.index("## How synthetic workloads run")]
    documented = {k for line in table.splitlines() if line.startswith("| `") for k in first_column_names(line)}
    base = json.dumps(json.loads(_core.resolve_config("{}"))["workload"])
    try:
        _core.parse_workload_spec("no_such_key=1", base)
    except _core.ConfigError as e:
        known = set(re.search(r"known keys: ([^)]*)\)", str(e)).group(1).split(", "))
    else:
        raise AssertionError("an unknown workload key was accepted")
    assert documented == known
