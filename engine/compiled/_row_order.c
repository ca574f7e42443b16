/* Spans put in time order row by row, compiled (part of engine.compiled._fastsched; the numpy code
 * of engine.model.columns.time_order is the fallback and gives the same arrays bit for bit).
 *
 * A stable counting sort by row (each row's spans in index order), then each row checked
 * in one pass and, where it is not in (start, end) order, sorted alone: the order
 * `np.lexsort((end, start, row))` gives. A row out of order is nearly in order (a worker's
 * tasks in op order, a few ops overtaken): insertion sort, O(n + moves), settles it; past
 * 8 moves a span it hands over to a merge sort, so that no row costs more than O(n log n).
 * Both only ever move a span past strictly later ones: equal spans keep their order.
 *
 * Also each block's longest and shortest span (below), for engine.indexes.span_index, and the values
 * two sorted arrays share, for engine.indexes.event_union.
 *
 * Plain CPython C API and the buffer protocol (no numpy headers); the GIL is released while
 * sorting and scanning.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "_buffers.h"

typedef struct {
    double start, end;
    int64_t index;
} Span;

/* (start, end) order; equal keys keep their order (the merge takes the left one first). */
static int span_before(const Span *a, const Span *b) {
    return a->start < b->start || (a->start == b->start && a->end < b->end);
}

/* Insertion sort of `items` (n of them); 0 when done, -1 when it gave up past `budget`
 * moves (the items are then a permutation still, equal ones in their first order). */
static int insertion_sort(Span *items, Py_ssize_t n, Py_ssize_t budget) {
    Py_ssize_t moves = 0;
    for (Py_ssize_t i = 1; i < n; i++) {
        Span item = items[i];
        Py_ssize_t j = i;
        while (j > 0 && span_before(&item, &items[j - 1])) {
            items[j] = items[j - 1];
            j--;
        }
        items[j] = item;
        moves += i - j;
        if (moves > budget) return -1;
    }
    return 0;
}

/* Stable sort of `items` (n of them), `scratch` as large: insertion-sorted runs of 32,
 * then merged bottom-up, the two buffers swapping roles; the result ends in `items`. */
static void merge_sort(Span *items, Span *scratch, Py_ssize_t n) {
    const Py_ssize_t run = 32;
    for (Py_ssize_t lo = 0; lo < n; lo += run) {
        Py_ssize_t hi = lo + run < n ? lo + run : n;
        for (Py_ssize_t i = lo + 1; i < hi; i++) {
            Span item = items[i];
            Py_ssize_t j = i;
            while (j > lo && span_before(&item, &items[j - 1])) {
                items[j] = items[j - 1];
                j--;
            }
            items[j] = item;
        }
    }
    Span *from = items, *to = scratch;
    for (Py_ssize_t width = run; width < n; width *= 2) {
        for (Py_ssize_t lo = 0; lo < n; lo += 2 * width) {
            Py_ssize_t mid = lo + width < n ? lo + width : n;
            Py_ssize_t hi = lo + 2 * width < n ? lo + 2 * width : n;
            Py_ssize_t a = lo, b = mid, k = lo;
            while (a < mid && b < hi) {
                to[k++] = span_before(&from[b], &from[a]) ? from[b++] : from[a++];
            }
            while (a < mid) to[k++] = from[a++];
            while (b < hi) to[k++] = from[b++];
        }
        Span *swap = from;
        from = to;
        to = swap;
    }
    if (from != items) memcpy(items, from, sizeof(Span) * (size_t)n);
}

typedef struct {
    const double *start, *end;
    const int64_t *row;
    Py_ssize_t n, n_rows;
    int32_t *order;          /* out: n (fewer than 2^31 spans) */
    int64_t *bounds;         /* out: n_rows + 1 */
    double *starts, *ends;   /* out: n each (ends NULL: not written, read through order) */
    uint8_t *resorted;       /* out: n_rows */
    uint8_t *overlapping;    /* out, or NULL: n_rows, whether a span starts before the
                                one before it on its row ended */
} Rows;

/* The end of the span at position i of the order. */
static inline double end_at(const Rows *r, Py_ssize_t i) {
    return r->ends != NULL ? r->ends[i] : r->end[r->order[i]];
}

/* 0, or -1 when the scratch memory could not be had. */
static int order_rows(const Rows *r) {
    memset(r->bounds, 0, sizeof(int64_t) * (size_t)(r->n_rows + 1));
    for (Py_ssize_t i = 0; i < r->n; i++) r->bounds[r->row[i] + 1]++;
    for (Py_ssize_t k = 0; k < r->n_rows; k++) r->bounds[k + 1] += r->bounds[k];
    int64_t *next = malloc(sizeof(int64_t) * (size_t)(r->n_rows > 0 ? r->n_rows : 1));
    if (next == NULL) return -1;
    memcpy(next, r->bounds, sizeof(int64_t) * (size_t)r->n_rows);
    for (Py_ssize_t i = 0; i < r->n; i++) {
        int64_t at = next[r->row[i]]++;
        r->order[at] = (int32_t)i;
        r->starts[at] = r->start[i];
        if (r->ends != NULL) r->ends[at] = r->end[i];
    }
    free(next);
    Span *items = NULL, *scratch = NULL;
    int status = 0;
    for (Py_ssize_t k = 0; k < r->n_rows; k++) {
        Py_ssize_t lo = r->bounds[k], hi = r->bounds[k + 1];
        int in_order = 1;
        for (Py_ssize_t i = lo + 1; i < hi && in_order; i++) {
            in_order = !(r->starts[i] < r->starts[i - 1] ||
                         (r->starts[i] == r->starts[i - 1] && end_at(r, i) < end_at(r, i - 1)));
        }
        r->resorted[k] = (uint8_t)!in_order;
        if (in_order) continue;
        Py_ssize_t m = hi - lo;
        Span *more = realloc(items, sizeof(Span) * (size_t)m);
        if (more == NULL) {
            status = -1;
            break;
        }
        items = more;
        for (Py_ssize_t i = 0; i < m; i++) {
            items[i].start = r->starts[lo + i];
            items[i].end = end_at(r, lo + i);
            items[i].index = r->order[lo + i];
        }
        if (insertion_sort(items, m, 8 * m) < 0) {
            more = realloc(scratch, sizeof(Span) * (size_t)m);
            if (more == NULL) {
                status = -1;
                break;
            }
            scratch = more;
            merge_sort(items, scratch, m);
        }
        for (Py_ssize_t i = 0; i < m; i++) {
            r->starts[lo + i] = items[i].start;
            if (r->ends != NULL) r->ends[lo + i] = items[i].end;
            r->order[lo + i] = (int32_t)items[i].index;
        }
    }
    free(items);
    free(scratch);
    for (Py_ssize_t k = 0; status == 0 && r->overlapping != NULL && k < r->n_rows; k++) {
        int overlaps = 0;
        for (Py_ssize_t i = r->bounds[k] + 1; i < r->bounds[k + 1] && !overlaps; i++)
            overlaps = r->starts[i] < end_at(r, i - 1);
        r->overlapping[k] = (uint8_t)overlaps;
    }
    return status;
}

/* rows_in_time_order(start, end, row, n_rows, order, bounds, starts, ends, resorted
 *                    [, overlapping]): the order as 32-bit integers (fewer than 2^31
 * spans); ends None: not written (the ends in that order are then end[order]). */
PyObject *fastsched_rows_in_time_order(PyObject *self, PyObject *args) {
    (void)self;
    enum { N = 9 };
    static const Py_ssize_t size[N] = {8, 8, 8, 4, 8, 8, 8, 1, 1};
    static const char *codes[N] = {"d", "d", "lq", "i", "lq", "d", "d", "B?", "B?"};
    PyObject *objects[N];
    Py_ssize_t n_rows;
    objects[8] = Py_None;
    if (!PyArg_ParseTuple(args, "OOOnOOOOO|O:rows_in_time_order", &objects[0], &objects[1],
                          &objects[2], &n_rows, &objects[3], &objects[4], &objects[5],
                          &objects[6], &objects[7], &objects[8]))
        return NULL;
    Py_buffer views[N];
    int got[N] = {0}, status;
    PyObject *result = NULL;
    for (int i = 0; i < N; i++) {
        if ((i == 6 || i == 8) && objects[i] == Py_None) continue; /* (optional) */
        if (get_array(objects[i], &views[i], size[i], codes[i], i >= 3,
                      "rows_in_time_order") < 0)
            goto done;
        got[i] = 1;
    }
    {
        Py_ssize_t n = views[0].len / 8;
        int fits = n_rows >= 0 && n <= INT32_MAX && views[1].len == 8 * n &&
                   views[2].len == 8 * n && views[3].len == 4 * n &&
                   views[4].len == 8 * (n_rows + 1) && views[5].len == 8 * n &&
                   (!got[6] || views[6].len == 8 * n) && views[7].len == n_rows &&
                   (!got[8] || views[8].len == n_rows);
        const int64_t *row = views[2].buf;
        for (Py_ssize_t i = 0; fits && i < n; i++) fits = row[i] >= 0 && row[i] < n_rows;
        if (!fits) {
            PyErr_SetString(PyExc_ValueError,
                            "rows_in_time_order: columns of unequal lengths or rows out of range");
            goto done;
        }
        Rows r = {views[0].buf, views[1].buf, row, n, n_rows, views[3].buf, views[4].buf,
                  views[5].buf, got[6] ? views[6].buf : NULL, views[7].buf,
                  got[8] ? views[8].buf : NULL};
        Py_BEGIN_ALLOW_THREADS
        status = order_rows(&r);
        Py_END_ALLOW_THREADS
        if (status < 0) {
            PyErr_NoMemory();
            goto done;
        }
    }
    result = Py_None;
    Py_INCREF(result);
done:
    for (int i = N - 1; i >= 0; i--) {
        if (got[i]) PyBuffer_Release(&views[i]);
    }
    return result;
}

/* block_extremes(start, end, block, longest, shortest): for each block of `block` spans
 * in index order, the longest and the shortest span (end - start), as numpy's max and min
 * of each block's lengths give them (engine.indexes.span_index finds long spans through these). */
PyObject *fastsched_block_extremes(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *objects[4];
    Py_ssize_t block;
    if (!PyArg_ParseTuple(args, "OOnOO:block_extremes", &objects[0], &objects[1], &block,
                          &objects[2], &objects[3]))
        return NULL;
    Py_buffer views[4];
    int got = 0;
    PyObject *result = NULL;
    for (; got < 4; got++) {
        if (get_array(objects[got], &views[got], 8, "d", got >= 2, "block_extremes") < 0) goto done;
    }
    {
        Py_ssize_t n = views[0].len / 8;
        Py_ssize_t blocks = block > 0 ? (n + block - 1) / block : -1;
        if (blocks < 0 || views[1].len != 8 * n || views[2].len != 8 * blocks ||
            views[3].len != 8 * blocks) {
            PyErr_SetString(PyExc_ValueError, "block_extremes: one entry per block needed");
            goto done;
        }
        const double *start = views[0].buf, *end = views[1].buf;
        double *longest = views[2].buf, *shortest = views[3].buf;
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t b = 0; b < blocks; b++) {
            Py_ssize_t lo = b * block, hi = lo + block < n ? lo + block : n;
            double most = end[lo] - start[lo], least = most;
            for (Py_ssize_t i = lo + 1; i < hi; i++) {
                double d = end[i] - start[i];
                if (d > most) most = d;
                if (d < least) least = d;
            }
            longest[b] = most;
            shortest[b] = least;
        }
        Py_END_ALLOW_THREADS
    }
    result = Py_None;
    Py_INCREF(result);
done:
    while (got-- > 0) PyBuffer_Release(&views[got]);
    return result;
}

/* sorted_common(a, b, out): the values that ascending arrays `a` and `b` both hold (equal
 * as doubles), written in ascending order to `out` (at least as long as the shorter one)
 * in one merge pass; returns how many. Within an array, equal values count once. */
PyObject *fastsched_sorted_common(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *objects[3];
    if (!PyArg_ParseTuple(args, "OOO:sorted_common", &objects[0], &objects[1], &objects[2]))
        return NULL;
    Py_buffer views[3];
    int got = 0;
    PyObject *result = NULL;
    for (; got < 2; got++) { /* the inputs may be strided (a stage's column of a Schedule) */
        if (PyObject_GetBuffer(objects[got], &views[got], PyBUF_STRIDES | PyBUF_FORMAT) < 0)
            goto done;
        if (!holds_items(&views[got], 8, "d") || views[got].ndim != 1) {
            PyErr_SetString(PyExc_TypeError, "sorted_common: a and b: 1-d arrays of doubles");
            got++;
            goto done;
        }
    }
    if (get_array(objects[2], &views[2], 8, "d", 1, "sorted_common") < 0) goto done;
    got++;
    {
        Py_ssize_t na = views[0].shape[0], nb = views[1].shape[0];
        Py_ssize_t sa = views[0].strides[0], sb = views[1].strides[0];
        if (views[2].len / 8 < (na < nb ? na : nb)) {
            PyErr_SetString(PyExc_ValueError, "sorted_common: out is shorter than the inputs");
            goto done;
        }
        const char *a = views[0].buf, *b = views[1].buf;
        double *out = views[2].buf;
        Py_ssize_t i = 0, j = 0, k = 0;
        Py_BEGIN_ALLOW_THREADS
        while (i < na && j < nb) {
            double x = *(const double *)(a + i * sa), y = *(const double *)(b + j * sb);
            if (x < y) {
                i++;
            } else if (y < x) {
                j++;
            } else {
                if (k == 0 || out[k - 1] != x) out[k++] = x;
                i++;
                j++;
            }
        }
        Py_END_ALLOW_THREADS
        result = PyLong_FromSsize_t(k);
    }
done:
    while (got-- > 0) PyBuffer_Release(&views[got]);
    return result;
}

/* merge_times(parts, tolerance, removed, dropped): every occurrence of the ascending
 * arrays in `parts` (a tuple; strided arrays read as they are) in merged order, without
 * merging them: an occurrence within `tolerance` above the one before it is written to
 * `removed`, and also to `dropped` where it is its value's first occurrence (that value
 * is then none of the times: its other occurrences follow it at 0). Returns (removed,
 * dropped) counts. engine.indexes.event_union.EventUnion does the same with a sort. */
PyObject *fastsched_merge_times(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *parts, *out_objects[2];
    double tolerance;
    if (!PyArg_ParseTuple(args, "O!dOO:merge_times", &PyTuple_Type, &parts, &tolerance,
                          &out_objects[0], &out_objects[1]))
        return NULL;
    Py_ssize_t k = PyTuple_GET_SIZE(parts), got = 0, outs = 0, total = 0;
    Py_buffer *views = PyMem_Calloc((size_t)(k > 0 ? k : 1), sizeof(Py_buffer));
    Py_ssize_t *at = PyMem_Calloc((size_t)(k > 0 ? k : 1), sizeof(Py_ssize_t));
    Py_buffer out_views[2];
    PyObject *result = NULL;
    if (views == NULL || at == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (; got < k; got++) {
        Py_buffer *view = &views[got];
        if (PyObject_GetBuffer(PyTuple_GET_ITEM(parts, got), view, PyBUF_STRIDES | PyBUF_FORMAT) < 0)
            goto done;
        if (!holds_items(view, 8, "d") || view->ndim != 1) {
            PyErr_SetString(PyExc_TypeError, "merge_times: parts: 1-d arrays of doubles");
            got++;
            goto done;
        }
        total += view->shape[0];
    }
    for (; outs < 2; outs++) {
        if (get_array(out_objects[outs], &out_views[outs], 8, "d", 1, "merge_times") < 0)
            goto done;
        if (out_views[outs].len / 8 < total) {
            PyErr_SetString(PyExc_ValueError, "merge_times: an out array shorter than the parts");
            outs++;
            goto done;
        }
    }
    {
        double *removed = out_views[0].buf, *dropped = out_views[1].buf;
        Py_ssize_t n_removed = 0, n_dropped = 0;
        double previous = 0.0;
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t seen = 0; seen < total; seen++) {
            Py_ssize_t pick = -1;
            double x = 0.0;
            for (Py_ssize_t i = 0; i < k; i++) {
                if (at[i] >= views[i].shape[0]) continue;
                double y = *(const double *)((const char *)views[i].buf + at[i] * views[i].strides[0]);
                if (pick < 0 || y < x) {
                    pick = i;
                    x = y;
                }
            }
            at[pick]++;
            if (seen > 0 && !(x - previous > tolerance)) {
                removed[n_removed++] = x;
                if (x != previous) dropped[n_dropped++] = x;
            }
            previous = x;
        }
        Py_END_ALLOW_THREADS
        result = Py_BuildValue("nn", n_removed, n_dropped);
    }
done:
    while (outs-- > 0) PyBuffer_Release(&out_views[outs]);
    while (got-- > 0) PyBuffer_Release(&views[got]);
    PyMem_Free(views);
    PyMem_Free(at);
    return result;
}

/* busy_until_row(starts, ends, order, offset, fences, fence, times, out): a row of spans
 * that do not overlap, in start order (`starts`; strided arrays read as they are), the
 * ends of span j at ends[order[j]] (order: 32- or 64-bit), or at ends[offset + j] (order
 * None); `fences`: the busy time before every `fence`-th span (0 before the first). For
 * each of `times`, the row's busy time before it: the fence before the last span starting
 * by it, the spans from the fence to that span, and the part of that span before the
 * time (0 where no span starts by it). engine.indexes.span_index.SpanIndex.busy_until in numpy. */
PyObject *fastsched_busy_until_row(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *objects[6];
    Py_ssize_t offset, fence;
    if (!PyArg_ParseTuple(args, "OOOnOnOO:busy_until_row", &objects[0], &objects[1],
                          &objects[2], &offset, &objects[3], &fence, &objects[4], &objects[5]))
        return NULL;
    Py_buffer views[6];
    int got[6] = {0};
    PyObject *result = NULL;
    for (int i = 0; i < 2; i++) { /* starts, ends: strided */
        if (PyObject_GetBuffer(objects[i], &views[i], PyBUF_STRIDES | PyBUF_FORMAT) < 0)
            goto done;
        got[i] = 1;
        if (!holds_items(&views[i], 8, "d") || views[i].ndim != 1) {
            PyErr_SetString(PyExc_TypeError, "busy_until_row: starts, ends: 1-d arrays of doubles");
            goto done;
        }
    }
    int wide = 0;
    if (objects[2] != Py_None) {
        if (PyObject_GetBuffer(objects[2], &views[2], PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
            goto done;
        got[2] = 1;
        wide = views[2].itemsize == 8;
        if (!(holds_items(&views[2], 4, "i") || holds_items(&views[2], 8, "lq"))) {
            PyErr_SetString(PyExc_TypeError, "busy_until_row: order: 32- or 64-bit integers");
            goto done;
        }
    }
    for (int i = 3; i < 6; i++) {
        if (get_array(objects[i], &views[i], 8, "d", i == 5, "busy_until_row") < 0) goto done;
        got[i] = 1;
    }
    {
        Py_ssize_t m = views[0].shape[0], n_ends = views[1].shape[0];
        Py_ssize_t n_times = views[4].len / 8, n_fences = views[3].len / 8;
        Py_ssize_t ss = views[0].strides[0], es = views[1].strides[0];
        int fits = fence > 0 && views[5].len == views[4].len &&
                   n_fences >= (m + fence - 1) / fence &&
                   (got[2] ? views[2].len / views[2].itemsize == m
                           : offset >= 0 && offset + m <= n_ends);
        if (!fits) {
            PyErr_SetString(PyExc_ValueError,
                            "busy_until_row: arrays of unequal lengths, or too few fences");
            goto done;
        }
        const char *starts = views[0].buf, *ends = views[1].buf;
        const void *order = got[2] ? views[2].buf : NULL;
        const double *fences = views[3].buf, *times = views[4].buf;
        double *out = views[5].buf;
        int bad = 0;
#define START(j) (*(const double *)(starts + (j) * ss))
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t i = 0; i < n_times && !bad; i++) {
            double t = times[i];
            Py_ssize_t lo = 0, hi = m; /* the first span starting after t */
            while (lo < hi) {
                Py_ssize_t mid = lo + (hi - lo) / 2;
                if (START(mid) <= t) lo = mid + 1;
                else hi = mid;
            }
            Py_ssize_t k = lo - 1;
            if (k < 0) {
                out[i] = 0.0;
                continue;
            }
            double before = fences[k / fence];
            for (Py_ssize_t j = k - k % fence; j <= k; j++) {
                Py_ssize_t e = order == NULL ? offset + j
                               : wide       ? (Py_ssize_t)((const int64_t *)order)[j]
                                            : (Py_ssize_t)((const int32_t *)order)[j];
                if (e < 0 || e >= n_ends) {
                    bad = 1;
                    break;
                }
                double length = *(const double *)(ends + e * es) - START(j);
                if (j < k) {
                    before += length;
                } else {
                    double part = t - START(j);
                    before += part < 0.0 ? 0.0 : (part > length ? length : part);
                }
            }
            out[i] = before;
        }
        Py_END_ALLOW_THREADS
#undef START
        if (bad) {
            PyErr_SetString(PyExc_ValueError, "busy_until_row: order out of range");
            goto done;
        }
    }
    result = Py_None;
    Py_INCREF(result);
done:
    for (int i = 5; i >= 0; i--) {
        if (got[i]) PyBuffer_Release(&views[i]);
    }
    return result;
}
