import sys

from bodoge.cli import main

sys.exit(main())
