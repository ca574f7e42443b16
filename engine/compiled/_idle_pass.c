/* The idle spans of one unit in one pass, compiled (part of engine.compiled._fastsched; the same
 * pieces as the numpy code of engine/reasons/idle_cuts.py, which explains them and is the fallback).
 *
 * A unit's idle gaps, sorted by (row, start), are cut at the given points strictly inside
 * them (the unit's distinct starts, its last start only, or none). Each piece gets the rank
 * of the first of the unit's tasks starting after the piece's start (as
 * `searchsorted(starts, piece start, "right")`), that task (-1 past the last: done), and its
 * reason: done past the last task, slot where at least `slots` slot holds contain the
 * piece's middle, else input. Every search steps from the previous answer (galloping), so a
 * row's pieces cost O(1) each, and a search across rows O(log n).
 *
 * Plain CPython C API and the buffer protocol (no numpy headers); the GIL is released while
 * the pieces are written.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "_buffers.h"

/* How many of the sorted `values` lie before `x`: at or below it (`left` 0, as
 * searchsorted "right"), or strictly below (`left` 1, "left"), searched outwards from
 * `guess`: doubling steps, then bisection. */
static inline Py_ssize_t gallop(const double *values, Py_ssize_t n, double x, int left,
                         Py_ssize_t guess) {
#define BEFORE(i) (left ? values[i] < x : values[i] <= x)
    Py_ssize_t a, b, step = 1;
    if (guess < 0) guess = 0;
    if (guess > n) guess = n;
    if (guess < n && BEFORE(guess)) { /* the answer lies above guess */
        a = guess + 1;
        for (;;) {
            b = a + step - 1;
            if (b >= n) {
                b = n;
                break;
            }
            if (!BEFORE(b)) break;
            a = b + 1;
            step *= 2;
        }
    } else if (guess > 0 && !BEFORE(guess - 1)) { /* the answer lies below guess */
        b = guess - 1;
        for (;;) {
            Py_ssize_t t = b - step;
            if (t < 0) {
                a = 0;
                break;
            }
            if (BEFORE(t)) {
                a = t + 1;
                break;
            }
            b = t;
            step *= 2;
        }
    } else {
        return guess;
    }
    while (a < b) { /* the answer is in [a, b]: the first index not before x */
        Py_ssize_t mid = a + (b - a) / 2;
        if (BEFORE(mid))
            a = mid + 1;
        else
            b = mid;
    }
    return a;
#undef BEFORE
}

typedef struct {
    const double *row_starts, *reach; /* Schedule.row_starts, row_reach[0]: by_row order */
    const double *end;                /* reach NULL: each task's own end, end[order[i]] */
    const int32_t *order;
    const int64_t *bounds;            /* Schedule.by_row's bounds */
    Py_ssize_t first_row, n_rows;     /* the unit's rows */
    double span;                      /* the makespan: every row's gaps end by it */
    const double *points;             /* where gaps are cut (sorted) */
    Py_ssize_t n_points;
    int points_are_starts;            /* the points are the unit's starts (all distinct) */
    const double *starts;             /* the unit's starts, sorted, and their tasks */
    const int64_t *tasks;
    Py_ssize_t n_starts;
    const double *hold_lo, *hold_hi;  /* slot holds' starts and ends, both sorted */
    Py_ssize_t n_holds, slots;
    int8_t input, slot, done;
    int64_t *out_row; /* NULL: the pieces' rows, starts and ends are not written */
    double *out_start, *out_end;
    int8_t *out_reason;
    int32_t *out_task;
    Py_ssize_t capacity; /* entries in each out column */
    double *totals;      /* NULL, or per (row, reason): the idle time, added piece by piece */
    int64_t *counts;     /* NULL, or per (row, reason): the pieces */
    double *longest;     /* NULL, or per row: the longest piece */
    Py_ssize_t n_reasons;
} Pass;

typedef struct {
    Py_ssize_t gaps, cuts, pieces;
    Py_ssize_t point, rank, started, ended; /* where the last searches ended */
} Walk;

/* One gap [lo, hi) of `row`: counted (its cuts too, while within `budget`), or cut into
 * pieces that are walked: written where there are out columns, summed where there are
 * totals. -1: past the budget (counting) or the capacity (writing). */
static int visit_gap(const Pass *p, Walk *w, int walking, Py_ssize_t budget, int64_t row,
                     double lo, double hi) {
    int writing = p->out_reason != NULL;
    w->gaps++;
    w->point = gallop(p->points, p->n_points, lo, 0, w->point);
    if (!walking) {
        Py_ssize_t inside = gallop(p->points, p->n_points, hi, 1, w->point) - w->point;
        if (inside > 0) w->cuts += inside;
        return w->cuts > budget ? -1 : 0;
    }
    double piece_start = lo;
    for (;;) {
        if (writing && w->pieces >= p->capacity) return -1;
        Py_ssize_t at = w->pieces++;
        int cut = w->point < p->n_points && p->points[w->point] < hi;
        double piece_end = cut ? p->points[w->point] : hi;
        if (p->out_row != NULL) {
            p->out_row[at] = row;
            p->out_start[at] = piece_start;
            p->out_end[at] = piece_end;
        }
        /* (cut at every start, all distinct: the starts up to the piece's are the points
         * up to it) */
        w->rank = p->points_are_starts ? w->point
                                       : gallop(p->starts, p->n_starts, piece_start, 0, w->rank);
        int8_t reason;
        if (w->rank >= p->n_starts) {
            reason = p->done;
            if (writing) p->out_task[at] = -1;
        } else {
            reason = p->input;
            if (writing) p->out_task[at] = (int32_t)p->tasks[w->rank];
            if (p->slots > 0) {
                double middle = piece_start + piece_end;
                middle *= 0.5;
                w->started = gallop(p->hold_lo, p->n_holds, middle, 0, w->started);
                w->ended = gallop(p->hold_hi, p->n_holds, middle, 0, w->ended);
                if (w->started - w->ended >= p->slots) reason = p->slot;
            }
        }
        if (writing) p->out_reason[at] = reason;
        double length = piece_end - piece_start;
        if (p->totals != NULL) p->totals[row * p->n_reasons + reason] += length;
        if (p->counts != NULL) p->counts[row * p->n_reasons + reason] += 1;
        if (p->longest != NULL && length > p->longest[row]) p->longest[row] = length;
        if (!cut) return 0;
        w->cuts++;
        piece_start = p->points[w->point++];
    }
}

/* Every gap of the unit's rows, row by row, in time order: before each task that starts
 * after everything before it on its row ended (the row's first: after 0), then the row's
 * tail up to the makespan (engine.reasons.wait_index.WaitIndex.gaps says the same). */
static int walk_rows(const Pass *p, Walk *w, int walking, Py_ssize_t budget) {
    memset(w, 0, sizeof *w);
    for (Py_ssize_t r = p->first_row; r < p->first_row + p->n_rows; r++) {
        double reached = 0.0;
        for (Py_ssize_t i = p->bounds[r]; i < p->bounds[r + 1]; i++) {
            if (p->row_starts[i] > reached &&
                visit_gap(p, w, walking, budget, r, reached, p->row_starts[i]) < 0)
                return -1;
            reached = p->reach != NULL ? p->reach[i] : p->end[p->order[i]];
        }
        if (p->span > reached && visit_gap(p, w, walking, budget, r, reached, p->span) < 0)
            return -1;
    }
    return 0;
}

/* rows_pass(row_starts, reach, bounds, first_row, n_rows, span, points, starts, tasks,
 *           hold_lo, hold_hi, slots, (input, slot, done), budget,
 *           out_row, out_start, out_end, out_reason, out_task, totals[, counts, longest])
 * `tasks` None: no out columns (only they read the tasks).
 * `reach`: an array in by_row order, or (end, order) where rows do not overlap: each
 * task's reach is its own end, read as end[order[i]] (order: 32-bit, every entry checked).
 * With every out column and totals None: counts, returning (gaps, cuts), cuts -1 past
 * `budget`. With out_reason and out_task (and out_row, out_start, out_end, or all three
 * None): writes the pieces (their tasks as 32-bit integers), returning (gaps, cuts) again.
 * Either way with `totals` (rows × reasons), adds each piece's length to its row's and
 * reason's entry, in the pieces' order: the sums `np.bincount(row * reasons + reason,
 * end - start)` makes; `counts` (rows × reasons, int64) counts the pieces, `longest` (per
 * row) keeps the longest. With totals and no out columns, the pieces are only summed (a
 * summary: nothing is stored). */
PyObject *fastsched_rows_pass(PyObject *self, PyObject *args) {
    (void)self;
    enum { INPUTS = 9, N = 17 };
    static const char *what[N] = {"row_starts", "reach",     "bounds",  "points",  "starts",
                                  "tasks",      "hold_lo",   "hold_hi", "",        "out_row",
                                  "out_start",  "out_end",   "out_reason", "out_task",
                                  "totals",     "counts",    "longest"};
    static const Py_ssize_t size[N] = {8, 8, 8, 8, 8, 8, 8, 8, 0, 8, 8, 8, 1, 4, 8, 8, 8};
    static const char *codes[N] = {"d", "d", "lq", "d", "d", "lq", "d", "d", "",
                                   "lq", "d", "d", "b", "i", "d", "lq", "d"};
    PyObject *objects[N];
    Py_ssize_t first_row, n_rows, slots, budget;
    double span;
    int input, slot, done_code;
    objects[8] = objects[15] = objects[16] = Py_None;
    PyObject *reach_of[2] = {NULL, NULL}; /* (end, order) given for the reach */
    Py_buffer reach_views[2];
    int reach_got = 0;
    if (!PyArg_ParseTuple(args, "OOOnndOOOOOn(iii)nOOOOOO|OO:rows_pass", &objects[0], &objects[1],
                          &objects[2], &first_row, &n_rows, &span, &objects[3], &objects[4],
                          &objects[5], &objects[6], &objects[7], &slots, &input, &slot,
                          &done_code, &budget, &objects[9], &objects[10], &objects[11],
                          &objects[12], &objects[13], &objects[14], &objects[15],
                          &objects[16]))
        return NULL;
    int writing = objects[12] != Py_None;
    int geometry = objects[9] != Py_None;
    int summing = objects[14] != Py_None;
    if (geometry != (objects[10] != Py_None) || geometry != (objects[11] != Py_None) ||
        writing != (objects[13] != Py_None) || (geometry && !writing) ||
        (!summing && (objects[15] != Py_None || objects[16] != Py_None))) {
        PyErr_SetString(PyExc_TypeError, "rows_pass: out columns: all five, the last two or "
                                         "none (counts, longest: with totals)");
        return NULL;
    }
    Py_buffer views[N];
    int got[N] = {0};
    PyObject *result = NULL;
    if (PyTuple_Check(objects[1])) {
        if (PyTuple_GET_SIZE(objects[1]) != 2) {
            PyErr_SetString(PyExc_TypeError, "rows_pass: reach: an array or (end, order)");
            return NULL;
        }
        reach_of[0] = PyTuple_GET_ITEM(objects[1], 0);
        reach_of[1] = PyTuple_GET_ITEM(objects[1], 1);
        objects[1] = Py_None;
        for (; reach_got < 2; reach_got++) {
            if (get_array(reach_of[reach_got], &reach_views[reach_got], reach_got ? 4 : 8,
                          reach_got ? "i" : "d", 0, reach_got ? "order" : "end") < 0)
                goto done;
        }
    } else if (objects[1] == Py_None) {
        PyErr_SetString(PyExc_TypeError, "rows_pass: reach: an array or (end, order)");
        return NULL;
    }
    for (int i = 0; i < N; i++) {
        if (i == 8 || objects[i] == Py_None) continue;
        if (get_array(objects[i], &views[i], size[i], codes[i], i >= INPUTS, what[i]) < 0)
            goto done;
        got[i] = 1;
    }
    {
        Py_ssize_t n_tasks = views[0].len / 8, n_bounds = views[2].len / 8;
        const int64_t *bounds = views[2].buf;
        int fits = n_tasks <= INT32_MAX &&
                   (reach_got ? reach_views[1].len == 4 * n_tasks : views[1].len == views[0].len) &&
                   (got[5] ? views[5].len == views[4].len : !writing) &&
                   views[7].len == views[6].len && first_row >= 0 && n_rows >= 0 &&
                   first_row + n_rows < n_bounds && !(input < -128 || input > 127) &&
                   !(slot < -128 || slot > 127) && !(done_code < -128 || done_code > 127);
        for (Py_ssize_t r = first_row; fits && r <= first_row + n_rows; r++) {
            fits = bounds[r] >= 0 && bounds[r] <= n_tasks &&
                   (r == first_row || bounds[r] >= bounds[r - 1]);
        }
        Py_ssize_t capacity = writing ? views[13].len / 4 : 0;
        if (writing) {
            fits = fits && views[12].len == capacity;
            for (int i = 9; geometry && i <= 11; i++) fits = fits && views[i].len == 8 * capacity;
        }
        Py_ssize_t n_reasons = 0;
        if (got[14]) {
            n_reasons = (views[14].len / 8) / (n_bounds - 1 > 0 ? n_bounds - 1 : 1);
            fits = fits && n_bounds > 1 && views[14].len == 8 * n_reasons * (n_bounds - 1) &&
                   input >= 0 && input < n_reasons && slot >= 0 && slot < n_reasons &&
                   done_code >= 0 && done_code < n_reasons;
            if (got[15]) fits = fits && views[15].len == views[14].len;
            if (got[16]) fits = fits && views[16].len == 8 * (n_bounds - 1);
        }
        if (reach_got) { /* every task read through the order is one of the ends */
            const int32_t *order = reach_views[1].buf;
            Py_ssize_t n_end = reach_views[0].len / 8;
            for (Py_ssize_t i = 0; fits && i < n_tasks; i++)
                fits = order[i] >= 0 && order[i] < n_end;
        }
        if (!fits) {
            PyErr_SetString(PyExc_ValueError,
                            "rows_pass: columns of unequal lengths or rows out of range");
            goto done;
        }
        Py_ssize_t n_holds = views[6].len / 8;
        int same = views[3].buf == views[4].buf && views[3].len == views[4].len;
        Pass p = {
            views[0].buf, reach_got ? NULL : views[1].buf,
            reach_got ? reach_views[0].buf : NULL, reach_got ? reach_views[1].buf : NULL,
            bounds, first_row, n_rows, span,
            views[3].buf, views[3].len / 8, same, views[4].buf,
            got[5] ? views[5].buf : NULL, views[4].len / 8,
            views[6].buf, views[7].buf, n_holds, n_holds > 0 ? slots : 0,
            (int8_t)input, (int8_t)slot, (int8_t)done_code,
            geometry ? views[9].buf : NULL, geometry ? views[10].buf : NULL,
            geometry ? views[11].buf : NULL, writing ? views[12].buf : NULL,
            writing ? views[13].buf : NULL, capacity, got[14] ? views[14].buf : NULL,
            got[15] ? views[15].buf : NULL, got[16] ? views[16].buf : NULL, n_reasons,
        };
        Walk w;
        int status;
        Py_BEGIN_ALLOW_THREADS
        status = walk_rows(&p, &w, writing || summing, budget);
        Py_END_ALLOW_THREADS
        if (status < 0 && writing) {
            PyErr_SetString(PyExc_ValueError, "rows_pass: more pieces than the columns hold");
            goto done;
        }
        if (writing && w.pieces != capacity) {
            PyErr_SetString(PyExc_ValueError, "rows_pass: fewer pieces than the columns hold");
            goto done;
        }
        result = Py_BuildValue("nn", w.gaps, status < 0 ? (Py_ssize_t)-1 : w.cuts);
    }
done:
    for (int i = N - 1; i >= 0; i--) {
        if (got[i]) PyBuffer_Release(&views[i]);
    }
    while (reach_got-- > 0) PyBuffer_Release(&reach_views[reach_got]);
    return result;
}
