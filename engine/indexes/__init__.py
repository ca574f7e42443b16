"""Indexes the views search, kept by a Schedule's `Derived` (docs/derived.md): tasks on rows
(span_index), busy share per pixel (density), event times (event_union), slots held
(assembly_slots).

May import engine.model, engine.base and engine.compiled; names `Derived` only as a type.
"""
