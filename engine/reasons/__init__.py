"""Why a run's time went where it did: the wait reasons for every worker's idle time and
every op's waiting (waits, over the index in wait_index, the idle spans' cuts in idle_cuts
and a shape's buffer pools in pool_waits), and the critical path with what paced each
stretch of it (critical_path).

May import engine.model, engine.base and engine.compiled; names `Derived` only as a type.
"""
