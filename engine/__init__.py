"""PipeLab's engine: scenarios, the scheduler, the immutable Schedule and what derives from it.

Pure Python + numpy. No Qt, no CuPy (an import-linter contract enforces this).
"""
