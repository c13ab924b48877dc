"""`python -m runtime.cli ...` is `codeplan ...` (for launchers that take a module, such as
`accelerate launch -m runtime.cli train detector ...`)."""

import sys

from runtime.cli import main

sys.exit(main())
