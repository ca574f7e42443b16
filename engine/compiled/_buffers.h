/* How every function of the compiled module (engine/compiled/_fastsched.c, _idle_pass.c,
 * _row_order.c) takes an array argument: a C-contiguous buffer of native items of one size
 * and one of some struct codes, writable when asked. Plain CPython buffer protocol, no numpy
 * headers; include after <Python.h>. */
#ifndef PIPELAB_BUFFERS_H
#define PIPELAB_BUFFERS_H

#include <string.h>

/* Whether a buffer holds native `itemsize`-byte items of one of the struct codes in `codes`. */
static inline int holds_items(const Py_buffer *view, Py_ssize_t itemsize, const char *codes) {
    const char *format = view->format ? view->format : "B";
    if (*format == '@' || *format == '=') format++;
    return view->itemsize == itemsize && format[0] != '\0' && format[1] == '\0' &&
           strchr(codes, format[0]) != NULL;
}

/* Gets `object`'s buffer as above into `view`: 0 on success, -1 with the exception set
 * (a TypeError naming `what` when the items are of the wrong type). */
static inline int get_array(PyObject *object, Py_buffer *view, Py_ssize_t itemsize,
                            const char *codes, int writable, const char *what) {
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(object, view, flags) < 0) return -1;
    if (!holds_items(view, itemsize, codes)) {
        PyErr_Format(PyExc_TypeError, "%s: wrong item type", what);
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

#endif
