"""Measurement: pipelining experiments on a CUDA device (CuPy) or on CPU threads.

Each experiment is a plain generator that yields `gpu.params.Progress` and returns a result
holding measured `engine.model.schedule.Schedule`s (source = "measured"), so the app and the CLI
draw hardware and model with the same code. Importing this package never imports CuPy: it is
loaded on first use (`gpu.detect.import_cupy`), and never Qt.
"""
