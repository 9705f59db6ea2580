"""`python -m kgtool.cli ...` runs the same command line as `kgtool ...`."""
from kgtool.cli import main

main()
