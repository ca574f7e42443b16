/* The scheduler's event loop, compiled (and the critical path's walk, below; the idle
 * spans' pass is in engine/_idle_pass.c, rows put in time order in engine/_row_order.c):
 * engine/fast_scheduler.py holds the same algorithm in Python (the fallback when this
 * module is not built) and explains it. Both reproduce
 * engine.scheduler.simulate_reference bit for bit: the only arithmetic is `end = now + d`,
 * done in double precision exactly where the reference does it, and every choice (which
 * ready stage, which idle worker, which completion first) follows the reference's order.
 *
 * Simulated time only moves forward, so each unit's ready stages arrive in (time, op) order
 * except for ties at the current instant: the ready queues are arrays kept sorted by
 * insertion from the tail (almost always a plain append). Heaps are left only for the
 * running tasks and each unit's idle workers: O(N log k) for N ops and k workers.
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

typedef struct {
    double end;
    Py_ssize_t op;
    int stage;
    int worker;
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

/* Ready stages of one unit in (time, op) order. Every op enters once, so n entries suffice. */
typedef struct {
    double *time;
    Py_ssize_t *op;
    Py_ssize_t head, tail;
} Ready;

static void ready_insert(Ready *q, double now, Py_ssize_t op) {
    /* Entries already queued are ready at or before `now`; only those ready at `now` with a
     * higher op go after the new one. */
    Py_ssize_t i = q->tail++;
    while (i > q->head && q->time[i - 1] == now && q->op[i - 1] > op) {
        q->time[i] = q->time[i - 1];
        q->op[i] = q->op[i - 1];
        i--;
    }
    q->time[i] = now;
    q->op[i] = op;
}

typedef struct {
    const double *durations; /* [op * 3 + stage] */
    Py_ssize_t n, buffers;
    double *starts;          /* out: [op * 3 + stage] */
    int64_t *workers;        /* out: [op * 3 + stage] */
    double *grant;           /* out: [op] */
    Ready ready[3];          /* ready[0] unused: reads are ops read_head .. next_op - 1 */
    Idle idle[3];
    Task *running;
    Py_ssize_t n_running, next_op, read_head, in_use;
} Sim;

static int grant_slots(Sim *s, double now) {
    int granted = 0;
    while (s->next_op < s->n && (s->buffers == 0 || s->in_use < s->buffers)) {
        s->grant[s->next_op++] = now;
        s->in_use++;
        granted = 1;
    }
    return granted;
}

/* Units are served in stage order; a zero-length stage completes on the spot, readying the
 * next stage at `now`, and a zero-length write frees its slot: then go round again. */
static void dispatch(Sim *s, double now) {
    int again = 1;
    while (again) {
        again = 0;
        for (int stage = 0; stage < 3; stage++) {
            Idle *idle = &s->idle[stage];
            Ready *q = &s->ready[stage];
            for (;;) {
                Py_ssize_t op;
                if (idle->size == 0) break;
                if (stage == 0) {
                    if (s->read_head == s->next_op) break;
                    op = s->read_head++;
                } else {
                    if (q->head == q->tail) break;
                    op = q->op[q->head++];
                }
                int worker = idle_pop(idle);
                Py_ssize_t task = 3 * op + stage;
                s->starts[task] = now;
                s->workers[task] = worker;
                double end = now + s->durations[task];
                if (end > now) { /* (a denormal duration added to `now` is zero too) */
                    Task t = {end, op, stage, worker};
                    running_push(s->running, &s->n_running, t);
                    continue;
                }
                idle_push(idle, worker);
                if (stage < 2) {
                    ready_insert(&s->ready[stage + 1], now, op);
                } else {
                    s->in_use--;
                    if (grant_slots(s, now)) again = 1;
                }
            }
        }
    }
}

static void simulate(Sim *s) {
    grant_slots(s, 0.0);
    dispatch(s, 0.0);
    while (s->n_running > 0) {
        double now = s->running[0].end;
        while (s->n_running > 0 && s->running[0].end <= now) {
            Task t = running_pop(s->running, &s->n_running);
            idle_push(&s->idle[t.stage], t.worker);
            if (t.stage < 2) {
                ready_insert(&s->ready[t.stage + 1], now, t.op);
            } else {
                s->in_use--;
            }
        }
        grant_slots(s, now);
        dispatch(s, now);
    }
}

/* Allocates the working memory and simulates; -1 when memory runs out. No Python calls. */
static int run(Sim *s, const long k[3]) {
    int status = -1;
    Py_ssize_t slots = (s->n > 0 ? s->n : 1);
    memset(s->ready, 0, sizeof s->ready);
    memset(s->idle, 0, sizeof s->idle);
    s->running = malloc(sizeof(Task) * (size_t)(k[0] + k[1] + k[2]));
    if (s->running == NULL) goto done;
    for (int u = 0; u < 3; u++) {
        s->idle[u].items = malloc(sizeof(int) * (size_t)k[u]);
        if (s->idle[u].items == NULL) goto done;
        for (int w = 0; w < (int)k[u]; w++) s->idle[u].items[w] = w; /* sorted: a heap */
        s->idle[u].size = (int)k[u];
    }
    for (int u = 1; u < 3; u++) {
        s->ready[u].time = malloc(sizeof(double) * (size_t)slots);
        s->ready[u].op = malloc(sizeof(Py_ssize_t) * (size_t)slots);
        if (s->ready[u].time == NULL || s->ready[u].op == NULL) goto done;
    }
    s->n_running = s->next_op = s->read_head = s->in_use = 0;
    simulate(s);
    status = 0;
done:
    free(s->running);
    for (int u = 0; u < 3; u++) {
        free(s->idle[u].items);
        free(s->ready[u].time);
        free(s->ready[u].op);
    }
    return status;
}

static PyObject *schedule(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *objects[4];
    long k[3];
    Py_ssize_t buffers;
    if (!PyArg_ParseTuple(args, "O(lll)nOOO:schedule", &objects[0], &k[0], &k[1], &k[2],
                          &buffers, &objects[1], &objects[2], &objects[3]))
        return NULL;
    for (int u = 0; u < 3; u++) {
        if (k[u] < 1 || k[u] > INT_MAX / 4) {
            PyErr_SetString(PyExc_ValueError, "every unit needs 1 to 2^29 workers");
            return NULL;
        }
    }
    if (buffers < 0) {
        PyErr_SetString(PyExc_ValueError, "buffers must be 0 (unlimited) or more");
        return NULL;
    }
    static const char *what[4] = {"durations", "starts", "workers", "grant"};
    static const char *codes[4] = {"d", "d", "lq", "d"};
    Py_buffer views[4];
    int got = 0, status;
    Py_ssize_t n;
    Sim sim;
    PyObject *result = NULL;
    for (; got < 4; got++) {
        int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (got ? PyBUF_WRITABLE : 0);
        if (PyObject_GetBuffer(objects[got], &views[got], flags) < 0) goto done;
        if (!holds_items(&views[got], 8, codes[got])) {
            PyErr_Format(PyExc_TypeError, "%s must hold %s", what[got],
                         got == 2 ? "64-bit integers" : "64-bit floats");
            got++;
            goto done;
        }
    }
    n = views[0].len / 24;
    if (views[0].len != 24 * n || views[1].len != 24 * n || views[2].len != 24 * n ||
        views[3].len != 8 * n) {
        PyErr_SetString(PyExc_ValueError,
                        "durations, starts and workers need 3 entries per op, grant one");
        goto done;
    }
    sim.durations = views[0].buf;
    sim.n = n;
    sim.buffers = buffers;
    sim.starts = views[1].buf;
    sim.workers = views[2].buf;
    sim.grant = views[3].buf;
    Py_BEGIN_ALLOW_THREADS
    status = run(&sim, k);
    Py_END_ALLOW_THREADS
    if (status < 0) {
        PyErr_NoMemory();
        goto done;
    }
    result = Py_None;
    Py_INCREF(result);
done:
    while (got-- > 0) PyBuffer_Release(&views[got]);
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

/* The critical path (engine/critical_path.py explains it and holds the same loop in
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
 * engine.critical_path._slot_releases finds it. Op i gets the slot of the (i - B)-th
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

/* engine/_idle_pass.c */
PyObject *fastsched_rows_pass(PyObject *self, PyObject *args);
/* engine/_row_order.c */
PyObject *fastsched_rows_in_time_order(PyObject *self, PyObject *args);
PyObject *fastsched_block_extremes(PyObject *self, PyObject *args);
PyObject *fastsched_sorted_common(PyObject *self, PyObject *args);
PyObject *fastsched_busy_until_row(PyObject *self, PyObject *args);
PyObject *fastsched_merge_times(PyObject *self, PyObject *args);

static PyMethodDef methods[] = {
    {"schedule", schedule, METH_VARARGS,
     "schedule(durations, (k_load, k_compute, k_store), buffers, starts, workers, grant)\n"
     "--\n\n"
     "Simulate the pipeline; fills starts, workers (op-major, 3 per op) and grant (per op)."},
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
    "The scheduler's event loop, compiled (see engine/fast_scheduler.py).", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__fastsched(void) { return PyModule_Create(&module); }
