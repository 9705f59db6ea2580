"""The registered reasoning methods. Each module holds one method's control loop.

Entries are imported on first use, so `kgtool methods` lists them without
loading any model code.
"""
from kgtool.reason.method_registry import DEFAULT_METHOD, METHODS  # noqa: F401
