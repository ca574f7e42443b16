"""What PipeLab reads off a run: `Derived` (derived), the one object that builds and keeps
every index and summary of one Schedule; the metrics (metrics) and the stats table (stats);
the state of every worker and op at any instant (timeline) and on the assembly line
(assembly_model); what the pointer is over (view_model); and the writers of a run's JSON and
Perfetto trace (writers).

May import every engine subpackage below it: reasons, indexes, model, base, compiled.
"""
