"""The registered reasoning methods. Each module holds one method's control loop.

Entries are imported on first use, so `kgtool methods` lists them without
loading any model code.
"""
from kgtool.core.registry import Registry

METHODS = Registry("method")
METHODS.register("care", "kgtool.reason.methods.care:Care", version="1",
                 description="CARE: planner, selector over the top-K facts of each hop, critic with bounded "
                             "backtracking (reselect the next stored candidate, else grounded generation)")
