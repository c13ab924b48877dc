"""`python -m runtime.cli ...`: the `codeplan` console script without installing it."""

import sys

from runtime.cli import main

sys.exit(main())
