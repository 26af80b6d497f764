"""Import every module that registers study types (the registry is filled on import)."""

from sheepsim.report import (
    panic_studies,  # noqa: F401
    race_studies,  # noqa: F401
)
