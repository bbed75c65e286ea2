import sys

from xlssd.cli import main

sys.exit(main())
