"""Indexes over one Schedule's tasks that the views search: the tasks on each row by time
(span_index) and their busy share per pixel (density), the union of runs' event times
(event_union) and which shared-memory slot each op holds (assembly_slots). Each is built
once per Schedule and kept by its `engine.analysis.derived.Derived` (docs/derived.md).

May import engine.model, engine.base and engine.compiled; names `Derived` only as a type.
"""
