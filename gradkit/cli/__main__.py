"""``python -m gradkit.cli``: the ``gradkit`` command."""

import sys

from . import main

sys.exit(main())
