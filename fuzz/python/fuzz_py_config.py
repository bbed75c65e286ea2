#!/usr/bin/env python3
"""atheris target `py_config` (`targets.py_config`); see fuzz.py."""

from fuzz import main

main("py_config")
