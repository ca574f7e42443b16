"""Warp latency hiding: one SM's warps simulated as a Schedule (warps), the same run a chunk
at a time in bounded memory (warp_stream), and what a warp row's idle gaps mean (warp_idle).

The top of the engine: may import engine.analysis and everything below it.
"""
