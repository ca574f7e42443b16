"""What PipeLab reads off a run: `Derived` (derived), which keeps every index and summary of
a Schedule; metrics and the stats table (stats); the state at any instant (timeline), on
the assembly line (assembly_model) and under the pointer (view_model); writers (JSON, trace).

May import every engine subpackage below it: reasons, indexes, model, base, compiled.
"""
