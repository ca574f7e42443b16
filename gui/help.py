"""The short "what am I looking at" help shown in its own dock (F1)."""

from __future__ import annotations

HELP_TEXT = """
<p><b>An assembly line for data.</b> Every op is read from global memory by the
<b>load unit</b>, computed by the <b>compute unit</b> and written back by the
<b>store unit</b>. Coloured boxes are ops; a worker takes its op's colour while busy and
its bar shows how far the step is. A grey worker is idle, and its label counts the idle
time.</p>
<p><b>Shared memory</b> has B slots (the buffers). An op holds a slot from the start of
its read to the end of its write, so with one slot nothing overlaps: that is the
<i>sequential</i> run. With more slots the units work on different ops at once: the
<i>pipelined</i> run.</p>
<p>The <b>timeline</b> below draws the same runs: one row per worker, one bar per step,
hatched where a worker is idle, a dashed line at each run's end (its makespan). Drag the
red cursor to scrub; wheel to zoom, drag to pan; hover a bar for its times.</p>
<p><b>Keys:</b> Space play/pause · ← → previous/next event · Home/End · + − speed ·
Ctrl+0 reset zoom.</p>
<p><b>Try:</b> set Buffers to 1, then 2, then unlimited and watch the makespan in Stats;
add a second load worker in the memory-bound preset.</p>
<p><b>Warps</b> (second tab): the same idea inside one SM. While a warp waits for memory
the SM issues another warp's instructions; with enough warps, W ≥ (C + L) / C, the issue
unit never rests.</p>
<p><b>GPU</b> (View menu): runs the pipeline for real, with CuPy on your GPU or with CPU
threads without one, and draws the measured run beside the model's prediction.</p>
"""
