#!/usr/bin/env python3
"""atheris target `sweep_spec` (`targets.sweep_spec`); see fuzz.py."""

from fuzz import main

main("sweep_spec")
