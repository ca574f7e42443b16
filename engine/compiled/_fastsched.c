/* The scheduler's event loop, compiled (and the critical path's walk, below; the idle
 * spans' pass is in engine/compiled/_idle_pass.c, rows put in time order in engine/compiled/_row_order.c):
 * any pipeline shape, the book's included. It reproduces engine.model.shape.shape_tasks (the
 * reference, which explains the rules) bit for bit: the only arithmetic is `end = now + d`,
 * done in double precision exactly where the reference does it, and every choice (which
 * slot, which ready stage, which idle worker, which completion first) follows the
 * reference's order.
 *
 * Simulated time only moves forward, so each unit's ready stages arrive in (time, task)
 * order except for ties at the current instant: the ready queues are arrays kept sorted by
 * insertion from the tail (almost always a plain append), where the reference keeps heaps.
 * Heaps are left only for the running tasks and each unit's idle workers.
 *
 * Plain CPython C API and the buffer protocol (no numpy headers); the GIL is released while
 * simulating.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "_buffers.h"

/* Gets `n` buffers of 8-byte items (struct codes per buffer; code "i": 4-byte items), the
 * last `writable` of them writable; on failure releases those it got and returns -1 with
 * the exception set. */
static int get_views(PyObject *const *objects, Py_buffer *views, int n, const char *const *codes,
                     int writable, const char *what) {
    for (int got = 0; got < n; got++) {
        Py_ssize_t size = strcmp(codes[got], "i") == 0 ? 4 : 8;
        if (get_array(objects[got], &views[got], size, codes[got], got >= n - writable, what) <
            0) {
            while (got-- > 0) PyBuffer_Release(&views[got]);
            return -1;
        }
    }
    return 0;
}

/* A running task: its end, op, stage and worker. */
typedef struct {
    double end;
    Py_ssize_t op;
    int stage, worker;
} Task;

/* The reference's running-task order: (end, op, stage). */
static int task_before(const Task *a, const Task *b) {
    if (a->end != b->end) return a->end < b->end;
    if (a->op != b->op) return a->op < b->op;
    return a->stage < b->stage;
}

static void running_push(Task *heap, Py_ssize_t *size, Task task) {
    Py_ssize_t i = (*size)++;
    while (i > 0) {
        Py_ssize_t parent = (i - 1) / 2;
        if (!task_before(&task, &heap[parent])) break;
        heap[i] = heap[parent];
        i = parent;
    }
    heap[i] = task;
}

static Task running_pop(Task *heap, Py_ssize_t *size) {
    Task top = heap[0];
    Task last = heap[--(*size)];
    Py_ssize_t i = 0, n = *size;
    for (;;) {
        Py_ssize_t child = 2 * i + 1;
        if (child >= n) break;
        if (child + 1 < n && task_before(&heap[child + 1], &heap[child])) child++;
        if (!task_before(&heap[child], &last)) break;
        heap[i] = heap[child];
        i = child;
    }
    if (n > 0) heap[i] = last;
    return top;
}

/* A unit's idle workers: a min-heap of worker indices (the lowest idle worker goes first). */
typedef struct {
    int *items;
    int size;
} Idle;

static void idle_push(Idle *idle, int worker) {
    int i = idle->size++;
    while (i > 0) {
        int parent = (i - 1) / 2;
        if (idle->items[parent] <= worker) break;
        idle->items[i] = idle->items[parent];
        i = parent;
    }
    idle->items[i] = worker;
}

static int idle_pop(Idle *idle) {
    int top = idle->items[0];
    int last = idle->items[--idle->size];
    int i = 0, n = idle->size;
    for (;;) {
        int child = 2 * i + 1;
        if (child >= n) break;
        if (child + 1 < n && idle->items[child + 1] < idle->items[child]) child++;
        if (idle->items[child] >= last) break;
        idle->items[i] = idle->items[child];
        i = child;
    }
    if (n > 0) idle->items[i] = last;
    return top;
}

/* A unit's ready stages (but first stages) in the reference heap's (time, op, stage)
 * order. Each of its tasks enters once, so room for them all suffices. */
typedef struct {
    double time;
    Py_ssize_t op;
    int stage;
} Entry;

typedef struct {
    Entry *entries;
    Py_ssize_t head, tail;
} Ready;

static void ready_insert(Ready *q, double now, Py_ssize_t op, int stage) {
    /* Entries already queued are ready at or before `now`; only those ready at `now` with a
     * higher (op, stage) go after the new one. */
    Entry *e = q->entries;
    Py_ssize_t i = q->tail++;
    while (i > q->head && e[i - 1].time == now &&
           (e[i - 1].op > op || (e[i - 1].op == op && e[i - 1].stage > stage))) {
        e[i] = e[i - 1];
        i--;
    }
    e[i] = (Entry){now, op, stage};
}

enum { MAX_STAGES = 8, MAX_UNITS = 64, MAX_POOLS = 64 };

typedef struct {
    const double *durations; /* [op * stages + stage] */
    Py_ssize_t n;
    int stages, units, pools;
    int unit_of[MAX_STAGES], serving[MAX_STAGES], n_serving;
    int asks[MAX_STAGES];        /* the first pool taken at each stage, -1: none */
    int then[MAX_POOLS];         /* the pool taken after each at the same stage, -1: none */
    int first[MAX_POOLS], last[MAX_POOLS];
    int frees[MAX_STAGES];       /* whether some pool is freed at each stage's end */
    Py_ssize_t size[MAX_POOLS], in_use[MAX_POOLS], next_op[MAX_POOLS];
    char *asked[MAX_POOLS];      /* [op]: op has asked for the pool (entry n: never) */
    double *starts;              /* out: [op * stages + stage] */
    int64_t *workers;            /* out: [op * stages + stage] */
    double *grants;              /* out: [op * pools + pool] */
    Ready *ready;                /* per unit */
    Idle *idle;                  /* per unit */
    /* Ops ready for their first stage, in op order at nondecreasing times: arrived_head ..
     * arrived_tail - 1, each at `arrival` (0, or its grant of the last pool taken there). */
    Py_ssize_t arrived_head, arrived_tail;
    int arrival;                 /* that pool, -1: every op arrives at 0 */
    Task *running;
    Py_ssize_t n_running;
} Sim;

/* Stage `stage` of `op` ends at `now`: free its pools; the next stage asks or is ready. */
static void finish(Sim *s, Py_ssize_t op, int stage, double now) {
    for (int p = 0; s->frees[stage] && p < s->pools; p++) {
        if (s->last[p] == stage) s->in_use[p]--;
    }
    if (++stage < s->stages) {
        int p = s->asks[stage];
        if (p < 0) ready_insert(&s->ready[s->unit_of[stage]], now, op, stage);
        else s->asked[p][op] = 1;
    }
}

/* The ring: each pool's slots to the op whose turn it is, once it has asked and a slot is
 * free; pools in their order (a grant may ask for the next pool). */
static void grant(Sim *s, double now) {
    for (int p = 0; p < s->pools; p++) {
        const char *wants = s->asked[p];
        Py_ssize_t op = s->next_op[p];
        while (wants[op] && s->in_use[p] < s->size[p]) {
            s->grants[op * s->pools + p] = now;
            s->in_use[p]++;
            if (s->then[p] >= 0) s->asked[s->then[p]][op] = 1;
            else if (s->first[p] > 0)
                ready_insert(&s->ready[s->unit_of[s->first[p]]], now, op, s->first[p]);
            else s->arrived_tail++; /* (op is the next to arrive: grants go in op order) */
            op++;
        }
        s->next_op[p] = op;
    }
}

/* Each unit, in the order of its first stage, hands its free workers to its ready stages,
 * earliest first (lower op, then earlier stage, on ties); a zero-length stage ends on the
 * spot. Returns whether one did: else nothing was freed or readied, and the reference's
 * next grant and dispatch at this instant would do nothing. */
static int dispatch(Sim *s, double now) {
    int ended = 0;
    for (int i = 0; i < s->n_serving; i++) {
        int unit = s->serving[i];
        Ready *q = &s->ready[unit];
        Idle *idle = &s->idle[unit];
        int firsts = unit == s->unit_of[0];
        while (idle->size > 0) {
            int queued = q->head < q->tail;
            int arrived = firsts && s->arrived_head < s->arrived_tail;
            Py_ssize_t op = s->arrived_head;
            int stage = 0;
            if (arrived) {
                double at = s->arrival < 0 ? 0.0 : s->grants[op * s->pools + s->arrival];
                const Entry *next = &q->entries[q->head];
                arrived = !queued || at < next->time || (at == next->time && op < next->op);
            }
            if (arrived) {
                s->arrived_head++;
            } else if (queued) {
                op = q->entries[q->head].op;
                stage = q->entries[q->head++].stage;
            } else {
                break;
            }
            int worker = idle_pop(idle);
            Py_ssize_t task = op * s->stages + stage;
            s->starts[task] = now;
            s->workers[task] = worker;
            double end = now + s->durations[task];
            if (end > now) { /* (a denormal duration added to `now` is zero too) */
                Task t = {end, op, stage, worker};
                running_push(s->running, &s->n_running, t);
                continue;
            }
            idle_push(idle, worker);
            finish(s, op, stage, now);
            ended = 1;
        }
    }
    return ended;
}

static void settle(Sim *s, double now) {
    grant(s, now);
    while (dispatch(s, now)) grant(s, now); /* (zero-length stages free and ready now) */
}

/* Returns 1 when every op got every slot, 0 when the pipeline stops (the ring rules it
 * out: a check, not a case). */
static int simulate(Sim *s) {
    if (s->asks[0] < 0) s->arrived_tail = s->n;
    else memset(s->asked[s->asks[0]], 1, (size_t)s->n);
    settle(s, 0.0);
    while (s->n_running > 0) {
        double now = s->running[0].end;
        while (s->n_running > 0 && s->running[0].end <= now) {
            Task t = running_pop(s->running, &s->n_running);
            idle_push(&s->idle[s->unit_of[t.stage]], t.worker);
            finish(s, t.op, t.stage, now);
        }
        settle(s, now);
    }
    for (int p = 0; p < s->pools; p++) {
        if (s->next_op[p] < s->n) return 0;
    }
    return 1;
}

/* Allocates the working memory and simulates: 1 or 0 as `simulate`, -1 when memory runs
 * out. No Python calls. */
static int run(Sim *s, const int64_t *k) {
    int status = -1;
    Py_ssize_t total = 0;
    s->ready = calloc((size_t)s->units, sizeof(Ready));
    s->idle = calloc((size_t)s->units, sizeof(Idle));
    for (int p = 0; p < s->pools; p++) s->asked[p] = NULL;
    if (s->ready == NULL || s->idle == NULL) goto done;
    for (int u = 0; u < s->units; u++) {
        Py_ssize_t room = 1;
        for (int stage = 1; stage < s->stages; stage++) room += s->n * (s->unit_of[stage] == u);
        total += k[u];
        s->idle[u].items = malloc(sizeof(int) * (size_t)k[u]);
        s->ready[u].entries = malloc(sizeof(Entry) * (size_t)room);
        if (!s->idle[u].items || !s->ready[u].entries) goto done;
        for (int w = 0; w < (int)k[u]; w++) s->idle[u].items[w] = w; /* sorted: a heap */
        s->idle[u].size = (int)k[u];
    }
    for (int p = 0; p < s->pools; p++) {
        s->asked[p] = calloc((size_t)s->n + 1, 1);
        if (s->asked[p] == NULL) goto done;
    }
    s->running = malloc(sizeof(Task) * (size_t)total);
    if (s->running == NULL) goto done;
    status = simulate(s);
done:
    free(s->running);
    for (int p = 0; p < s->pools; p++) free(s->asked[p]);
    for (int u = 0; s->ready && s->idle && u < s->units; u++) {
        free(s->idle[u].items);
        free(s->ready[u].entries);
    }
    free(s->ready);
    free(s->idle);
    return status;
}

/* schedule(durations, stage_units, workers, pools, starts, workers_out, grants): see the
 * method table. */
static PyObject *schedule(PyObject *self, PyObject *args) {
    (void)self;
    enum { N = 7 };
    PyObject *objects[N];
    if (!PyArg_ParseTuple(args, "OOOOOOO:schedule", &objects[0], &objects[1], &objects[2],
                          &objects[3], &objects[4], &objects[5], &objects[6]))
        return NULL;
    static const char *const codes[N] = {"d", "lq", "lq", "lq", "d", "lq", "d"};
    Py_buffer views[N];
    PyObject *result = NULL;
    Sim sim;
    int status;
    memset(&sim, 0, sizeof sim);
    if (get_views(objects, views, N, codes, 3, "schedule") < 0) return NULL;
    {
        const int64_t *unit_of = views[1].buf, *k = views[2].buf, *pools = views[3].buf;
        Py_ssize_t stages = views[1].len / 8, units = views[2].len / 8;
        Py_ssize_t n_pools = views[3].len / 24;
        Py_ssize_t n = stages > 0 ? views[0].len / 8 / stages : 0;
        int fits = stages >= 1 && stages <= MAX_STAGES && units >= 1 && units <= MAX_UNITS &&
                   n_pools <= MAX_POOLS && views[3].len == 24 * n_pools &&
                   views[0].len == 8 * n * stages && views[4].len == 8 * n * stages &&
                   views[5].len == 8 * n * stages && views[6].len == 8 * n * n_pools;
        for (Py_ssize_t u = 0; fits && u < units; u++) fits = k[u] >= 1 && k[u] <= INT_MAX / 4;
        for (Py_ssize_t st = 0; fits && st < stages; st++) {
            fits = unit_of[st] >= 0 && unit_of[st] < units;
        }
        for (Py_ssize_t p = 0; fits && p < n_pools; p++) {
            const int64_t *pool = pools + 3 * p;
            fits = pool[0] >= 0 && pool[1] >= 0 && pool[1] <= pool[2] && pool[2] < stages;
        }
        if (!fits) {
            PyErr_SetString(PyExc_ValueError,
                            "schedule: 1 to 8 stages on their units, 1 or more workers a "
                            "unit, pools (size, first, last) and n rows of each");
            goto done;
        }
        sim.durations = views[0].buf;
        sim.n = n;
        sim.stages = (int)stages;
        sim.units = (int)units;
        sim.pools = (int)n_pools;
        sim.starts = views[4].buf;
        sim.workers = views[5].buf;
        sim.grants = views[6].buf;
        sim.arrival = -1;
        /* Units in the order of their first stage (one without stages has no work). */
        for (int st = 0; st < sim.stages; st++) {
            int seen = 0;
            sim.unit_of[st] = (int)unit_of[st];
            sim.asks[st] = -1;
            for (int before = 0; before < st; before++) seen |= unit_of[before] == unit_of[st];
            if (!seen) sim.serving[sim.n_serving++] = sim.unit_of[st];
        }
        int taken_last[MAX_STAGES];
        for (int st = 0; st < sim.stages; st++) taken_last[st] = -1;
        for (int p = 0; p < sim.pools; p++) {
            int at = (int)pools[3 * p + 1];
            sim.size[p] = pools[3 * p] ? pools[3 * p] : n; /* (0: unlimited; n slots are) */
            sim.first[p] = at;
            sim.last[p] = (int)pools[3 * p + 2];
            sim.frees[sim.last[p]] = 1;
            sim.then[p] = -1;
            if (taken_last[at] < 0) sim.asks[at] = p;
            else sim.then[taken_last[at]] = p;
            taken_last[at] = p;
        }
        sim.arrival = taken_last[0];
        Py_BEGIN_ALLOW_THREADS
        status = run(&sim, k);
        Py_END_ALLOW_THREADS
        if (status < 0) {
            PyErr_NoMemory();
            goto done;
        }
        result = PyBool_FromLong(status);
    }
done:
    for (int i = N - 1; i >= 0; i--) PyBuffer_Release(&views[i]);
    return result;
}


/* Each task's candidates for what it waited for last: the worker's previous task, the
 * op's previous stage, the write that freed its slot (-1: none). Given as three arrays
 * (`critical_path`), or worked out as the walk needs them (`critical_path_rows`). */
typedef struct {
    const int64_t *worker;     /* per task */
    const int64_t *data;       /* per task; NULL: op-major, task - 1 but for the op's first stage */
    Py_ssize_t stages;
    const int64_t *slot;       /* per task; NULL: slot_of_op[op] for a first stage, else none */
    const int64_t *slot_of_op; /* per op */
    const int64_t *stage;      /* per task */
} Candidates;

static int64_t candidate(const Candidates *c, int which, Py_ssize_t task, const int64_t *op) {
    if (which == 0) return c->worker[task];
    if (which == 1) {
        if (c->data != NULL) return c->data[task];
        return task % c->stages == 0 ? -1 : (int64_t)task - 1;
    }
    if (c->slot != NULL) return c->slot[task];
    return c->stage[task] == 0 ? c->slot_of_op[op[task]] : -1;
}

/* The critical path (engine/reasons/critical_path.py explains it and holds the same loop in
 * Python): from task `last`, step to the predecessor each task waited for last. Of its
 * candidates (the worker's previous task, the op's previous stage, the write that freed
 * its slot, in that order), the one ending latest at most `tolerance` after the task's
 * start is taken; ties keep the earlier candidate. Each task's time is charged to its unit,
 * or to the slots (sums[3]) while the path runs through the stages of the op a slot edge
 * led to; waits between tasks go to overhead (sums[4]). Fills `path` (room for `n`, the
 * tasks: a path visits each at most once) from `last` back and returns its length. */
static Py_ssize_t walk_path(const double *start, const double *end, const int64_t *unit,
                            const int64_t *op, const Candidates *candidates,
                            Py_ssize_t last, double tolerance, int64_t *path,
                            double *sums, Py_ssize_t n) {
    Py_ssize_t length = 0;
    int64_t releasing = -1;
    Py_ssize_t task = last;
    while (task >= 0 && length < n) {
        path[length++] = task;
        sums[op[task] == releasing ? 3 : unit[task]] += end[task] - start[task];
        Py_ssize_t before = -1;
        int link = -1;
        double best = -HUGE_VAL;
        for (int c = 0; c < 3; c++) {
            int64_t other = candidate(candidates, c, task, op);
            if (other < 0) continue;
            double e = end[other];
            if (e <= start[task] + tolerance && e > best) {
                best = e;
                before = (Py_ssize_t)other;
                link = c;
            }
        }
        if (before < 0) {
            if (start[task] > 0) sums[4] += start[task];
            break;
        }
        if (start[task] > end[before]) sums[4] += start[task] - end[before];
        if (link == 2) releasing = op[before];
        else if (link == 0) releasing = -1;
        task = before;
    }
    return length;
}

static PyObject *critical(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *objects[9];
    Py_ssize_t last;
    double tolerance;
    if (!PyArg_ParseTuple(args, "OOOOOOOndOO:critical_path", &objects[0], &objects[1],
                          &objects[2], &objects[3], &objects[4], &objects[5], &objects[6],
                          &last, &tolerance, &objects[7], &objects[8]))
        return NULL;
    static const char *const codes[9] = {"d", "d", "lq", "lq", "lq", "lq", "lq", "lq", "d"};
    Py_buffer views[9];
    PyObject *result = NULL;
    Py_ssize_t n, length;
    if (get_views(objects, views, 9, codes, 2, "critical_path") < 0) return NULL;
    n = views[0].len / 8;
    for (int i = 1; i < 8; i++) {
        if (views[i].len != 8 * n) {
            PyErr_SetString(PyExc_ValueError, "critical_path: one entry per task needed");
            goto done;
        }
    }
    if (views[8].len != 40 || last < -1 || last >= n) {
        PyErr_SetString(PyExc_ValueError, "critical_path: five sums and a task needed");
        goto done;
    }
    {
        const int64_t *given[3] = {views[4].buf, views[5].buf, views[6].buf};
        const int64_t *unit = views[2].buf;
        for (Py_ssize_t t = 0; t < n; t++) {
            if (unit[t] < 0 || unit[t] > 2) {
                PyErr_SetString(PyExc_ValueError, "critical_path: units 0, 1 and 2 only");
                goto done;
            }
            for (int c = 0; c < 3; c++) {
                if (given[c][t] < -1 || given[c][t] >= n) {
                    PyErr_SetString(PyExc_ValueError, "critical_path: a task out of range");
                    goto done;
                }
            }
        }
        Candidates candidates = {given[0], given[1], 0, given[2], NULL, NULL};
        Py_BEGIN_ALLOW_THREADS
        length = walk_path(views[0].buf, views[1].buf, unit, views[3].buf, &candidates, last,
                           tolerance, views[7].buf, views[8].buf, n);
        Py_END_ALLOW_THREADS
    }
    result = PyLong_FromSsize_t(length);
done:
    for (int i = 8; i >= 0; i--) PyBuffer_Release(&views[i]);
    return result;
}

/* Per op of an op-major pipeline (`stages` tasks an op) with `slots` slots granted in op
 * order: the write that freed the slot it was granted (-1: none), as
 * engine.reasons.critical_path._slot_releases finds it. Op i gets the slot of the (i - B)-th
 * release (`by_release`: the ops in the order they released, NULL: op order), or waits
 * for op i - 1's grant: the release that set each grant is the one at the latest position
 * holding the running maximum. */
static void slot_releases(const double *end, Py_ssize_t n_ops, Py_ssize_t stages,
                          Py_ssize_t slots, const int64_t *by_release, int64_t *released) {
    double highest = -HUGE_VAL;
    Py_ssize_t position = 0;
    for (Py_ssize_t i = 0; i < n_ops; i++) {
        double freeing = -HUGE_VAL;
        if (slots > 0 && slots < n_ops && i >= slots) {
            Py_ssize_t op = by_release ? by_release[i - slots] : i - slots;
            freeing = end[op * stages + stages - 1];
        }
        if (freeing > highest) highest = freeing;
        if (freeing >= highest) position = i;
        released[i] = -1;
        if (slots > 0 && slots < n_ops && position >= slots) {
            Py_ssize_t op = by_release ? by_release[position - slots] : position - slots;
            released[i] = op * stages + stages - 1;
        }
    }
}

/* critical_path_rows(start, end, unit, op, stage, order, bounds, by_release, stages, slots,
 *                    last, tolerance, path, sums): `critical_path` of an op-major pipeline
 * (`stages` tasks an op, `slots` slots) with the worker's previous task read off
 * `Schedule.by_row` (order, bounds), the op's previous stage by arithmetic and the slot's
 * release per op worked out here (`by_release`: the ops in release order, None: op order):
 * no candidate array of n tasks is made but one, freed before it returns. */
static PyObject *critical_rows(PyObject *self, PyObject *args) {
    (void)self;
    enum { N = 10 };
    PyObject *objects[N];
    Py_ssize_t last, stages, slots;
    double tolerance;
    if (!PyArg_ParseTuple(args, "OOOOOOOOnnndOO:critical_path_rows", &objects[0], &objects[1],
                          &objects[2], &objects[3], &objects[4], &objects[5], &objects[6],
                          &objects[7], &stages, &slots, &last, &tolerance, &objects[8],
                          &objects[9]))
        return NULL;
    static const char *const codes[N] = {"d", "d", "lq", "lq", "lq", "i", "lq", "lq", "lq", "d"};
    int ordered = objects[7] == Py_None;
    if (ordered) objects[7] = objects[6]; /* (a placeholder, not read) */
    Py_buffer views[N];
    PyObject *result = NULL;
    Py_ssize_t length = 0;
    int64_t *worker = NULL, *released = NULL;
    if (get_views(objects, views, N, codes, 2, "critical_path_rows") < 0) return NULL;
    {
        Py_ssize_t n = views[0].len / 8, n_bounds = views[6].len / 8;
        Py_ssize_t n_ops = stages >= 1 ? n / stages : 0;
        const int64_t *unit = views[2].buf, *op = views[3].buf, *stage = views[4].buf;
        const int32_t *order = views[5].buf; /* Schedule.by_row's order: 32-bit */
        const int64_t *bounds = views[6].buf;
        const int64_t *by_release = ordered ? NULL : views[7].buf;
        int fits = stages >= 1 && n == n_ops * stages && n_bounds >= 1 &&
                   views[8].len == 8 * n && views[9].len == 40 && last >= -1 && last < n &&
                   bounds[0] == 0 && bounds[n_bounds - 1] == n &&
                   (ordered || views[7].len == 8 * n_ops);
        for (int i = 1; i <= 4; i++) fits = fits && views[i].len == 8 * n;
        fits = fits && views[5].len == 4 * n;
        for (Py_ssize_t k = 1; fits && k < n_bounds; k++) fits = bounds[k] >= bounds[k - 1];
        for (Py_ssize_t t = 0; fits && t < n; t++) {
            fits = unit[t] >= 0 && unit[t] <= 2 && op[t] >= 0 && op[t] < n_ops &&
                   order[t] >= 0 && order[t] < n && stage[t] >= 0;
        }
        for (Py_ssize_t o = 0; fits && by_release != NULL && o < n_ops; o++) {
            fits = by_release[o] >= 0 && by_release[o] < n_ops;
        }
        if (!fits) {
            PyErr_SetString(PyExc_ValueError, "critical_path_rows: columns out of range");
            goto done;
        }
        worker = malloc(sizeof(int64_t) * (size_t)(n > 0 ? n : 1));
        released = malloc(sizeof(int64_t) * (size_t)(n_ops > 0 ? n_ops : 1));
        if (worker == NULL || released == NULL) {
            PyErr_NoMemory();
            goto done;
        }
        Candidates candidates = {worker, NULL, stages, NULL, released, stage};
        Py_BEGIN_ALLOW_THREADS
        memset(worker, 0xff, sizeof(int64_t) * (size_t)n); /* -1 */
        for (Py_ssize_t k = 0; k + 1 < n_bounds; k++) {
            for (Py_ssize_t i = bounds[k] + 1; i < bounds[k + 1]; i++) {
                worker[order[i]] = order[i - 1];
            }
        }
        slot_releases(views[1].buf, n_ops, stages, slots, by_release, released);
        length = walk_path(views[0].buf, views[1].buf, unit, op, &candidates, last, tolerance,
                           views[8].buf, views[9].buf, n);
        Py_END_ALLOW_THREADS
    }
    result = PyLong_FromSsize_t(length);
done:
    free(worker);
    free(released);
    for (int i = N - 1; i >= 0; i--) PyBuffer_Release(&views[i]);
    return result;
}

/* chain_roots(owner): each entry, an earlier index (or itself), replaced in place by the
 * root of its chain, in one pass in index order (an entry's owner is final before it is
 * read): what pointer jumping `owner = owner[owner]` until nothing changes ends with. */
static PyObject *chain_roots(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *object;
    if (!PyArg_ParseTuple(args, "O:chain_roots", &object)) return NULL;
    static const char *const codes[1] = {"lq"};
    Py_buffer view;
    if (get_views(&object, &view, 1, codes, 1, "chain_roots") < 0) return NULL;
    int64_t *owner = view.buf;
    Py_ssize_t n = view.len / 8;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (owner[i] < 0 || owner[i] > i) {
            PyBuffer_Release(&view);
            PyErr_SetString(PyExc_ValueError, "chain_roots: each owner must be an earlier index");
            return NULL;
        }
    }
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; i++) owner[i] = owner[owner[i]];
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&view);
    Py_RETURN_NONE;
}

/* engine/compiled/_idle_pass.c */
PyObject *fastsched_rows_pass(PyObject *self, PyObject *args);
/* engine/compiled/_row_order.c */
PyObject *fastsched_rows_in_time_order(PyObject *self, PyObject *args);
PyObject *fastsched_block_extremes(PyObject *self, PyObject *args);
PyObject *fastsched_sorted_common(PyObject *self, PyObject *args);
PyObject *fastsched_busy_until_row(PyObject *self, PyObject *args);
PyObject *fastsched_merge_times(PyObject *self, PyObject *args);

static PyMethodDef methods[] = {
    {"schedule", schedule, METH_VARARGS,
     "schedule(durations, stage_units, workers, pools, starts, workers_out, grants)\n"
     "--\n\n"
     "Simulate a pipeline shape (engine.model.shape.shape_tasks' loop): durations (n, stages),\n"
     "each stage's unit, each unit's workers, pools as (size, first, last) rows; fills\n"
     "starts and workers_out (n, stages) and grants (n, pools). Returns whether every op\n"
     "got every slot."},
    {"critical_path", critical, METH_VARARGS,
     "critical_path(start, end, unit, op, worker_pred, data_pred, slot_pred, last, tolerance,\n"
     "              path, sums)\n"
     "--\n\n"
     "Walk the critical path back from task `last`; fills path and sums, returns the length."},
    {"critical_path_rows", critical_rows, METH_VARARGS,
     "critical_path_rows(start, end, unit, op, stage, order, bounds, by_release, stages,\n"
     "                   slots, last, tolerance, path, sums)\n"
     "--\n\n"
     "critical_path of an op-major pipeline, its candidates read off by_row and the slot\n"
     "releases worked out per op."},
    {"rows_pass", fastsched_rows_pass, METH_VARARGS,
     "rows_pass(row_starts, reach, bounds, first_row, n_rows, span, points, starts, tasks,\n"
     "          hold_lo, hold_hi, slots, (input, slot, done), budget,\n"
     "          out_row, out_start, out_end, out_reason, out_task, totals[, counts, longest])\n"
     "--\n\n"
     "One unit's idle gaps, found row by row and cut at the points: counted (out columns\n"
     "None), written with each piece's awaited task and reason, and/or summed per row and\n"
     "reason (totals, counts, longest); returns (gaps, cuts)."},
    {"rows_in_time_order", fastsched_rows_in_time_order, METH_VARARGS,
     "rows_in_time_order(start, end, row, n_rows, order, bounds, starts, ends, resorted)\n"
     "--\n\n"
     "Spans sorted by (row, start, end; then index): fills the order, the row bounds, the\n"
     "starts and ends in that order, and which rows were not in order already."},
    {"block_extremes", fastsched_block_extremes, METH_VARARGS,
     "block_extremes(start, end, block, longest, shortest)\n"
     "--\n\n"
     "Each block's longest and shortest span (end - start), spans in index order."},
    {"busy_until_row", fastsched_busy_until_row, METH_VARARGS,
     "busy_until_row(starts, ends, order, offset, fences, fence, times, out)\n"
     "--\n\n"
     "A row of disjoint spans' busy time before each of times, from the fences kept every\n"
     "fence spans; written to out."},
    {"sorted_common", fastsched_sorted_common, METH_VARARGS,
     "sorted_common(a, b, out)\n"
     "--\n\n"
     "The values ascending arrays a and b share, ascending, written to out; returns how many."},
    {"merge_times", fastsched_merge_times, METH_VARARGS,
     "merge_times(parts, tolerance, removed, dropped)\n"
     "--\n\n"
     "Ascending arrays' occurrences in merged order: those within tolerance above the one\n"
     "before written to removed (and to dropped where first of their value); returns the\n"
     "counts."},
    {"chain_roots", chain_roots, METH_VARARGS,
     "chain_roots(owner)\n"
     "--\n\n"
     "Each entry (an earlier index or itself) replaced in place by the root of its chain."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_fastsched",
    "The scheduler's event loop, compiled (see engine/compiled/fast_scheduler.py).", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__fastsched(void) { return PyModule_Create(&module); }
