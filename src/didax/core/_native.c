/* didax.core._native: jit's hit path and Array.block_until_ready, in C.
 *
 * Why C: after a program over megabytes the interpreter's own data has left
 * the CPU's caches, and each Python frame on the path of a jitted call then
 * costs microseconds (docs/performance.md, "Dispatch internals"). JAX's call
 * makes no Python frame: jaxlib's C++ dispatch checks the arguments, launches
 * the program and wraps its result. didax's repeat call does the same here.
 *
 * Each function below is a translation of a Python reference, which runs
 * wherever this module was not built (or DIDAX_NO_NATIVE=1 is set):
 * ``HitPath.__call__`` of ``PyHitPath`` (src/didax/api/hit_path.py) and
 * ``Array.block_until_ready`` (src/didax/core/array.py). Tests hold the two
 * to the same decisions (tests/api/test_hit_path.py).
 *
 * Nothing here imports didax: the objects the code reads are handed in once,
 * at import, by ``array_methods`` (the Array type, its slots, the deleted
 * marker, its module's namespace) and ``configure_hit_path`` (the dispatch
 * mode's cell, the thread's overrides and trace, the eager trace).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

#if PY_VERSION_HEX < 0x030D0000 /* PyObject_GetOptionalAttr is 3.13's name */
#define PyObject_GetOptionalAttr _PyObject_LookupAttr
#endif

/* What ``array_methods`` hands in (strong references, kept for the process). */
static PyTypeObject *array_type;           /* didax.core.array.Array */
static Py_ssize_t off_aval, off_key, off_host, off_buffer; /* its slots */
static PyObject *deleted;                  /* a deleted Array's ``_buffer`` */
static PyObject *array_globals;            /* didax.core.array's namespace */
/* What ``configure_hit_path`` hands in; NULL until then (every call misses). */
static PyObject *global_dispatch;          /* config.GLOBAL_DISPATCH: [mode] */
static PyObject *thread_overrides;         /* config.THREAD_OVERRIDES */
static PyObject *thread_context;           /* trace.THREAD_CONTEXT */
static PyObject *eval_trace;               /* evaluation.EVAL_TRACE */

static PyObject *one; /* the hit count's step */
static PyObject *str_recent, *str_hot, *str_hits, *str_values, *str_trace,
    *str_miss, *str_note_oom, *str_backend, *str_block, *str_deleted_error;

#define SLOT(obj, off) (*(PyObject **)((char *)(obj) + (off)))

/* The offset of a ``__slots__`` member of ``type`` named ``name``. */
static int slot_offset(PyTypeObject *type, const char *name, Py_ssize_t *off) {
    PyObject *d = PyObject_GetAttrString((PyObject *)type, name);
    if (d == NULL) return -1;
    if (!Py_IS_TYPE(d, &PyMemberDescr_Type)) {
        PyErr_Format(PyExc_TypeError, "%s.%s is not a __slots__ member", type->tp_name, name);
        Py_DECREF(d);
        return -1;
    }
    *off = ((PyMemberDescrObject *)d)->d_member->offset;
    Py_DECREF(d);
    return 0;
}

/* ---- jit's hit path ------------------------------------------------------ */

typedef struct {
    PyObject_HEAD
    PyObject *cache; /* the trace cache (``_cache``): its ``recent`` item */
} HitPathObject;

/* The hit: ``values`` (the program's arguments) are ready and ``hot`` is the
 * entry's HotCall; counts the hit, runs, and wraps the one result. */
static PyObject *run_hot(PyObject *cache, PyObject *hot, PyObject **values, Py_ssize_t n) {
    PyObject *hits = PyObject_GetAttr(cache, str_hits);
    if (hits == NULL) return NULL;
    PyObject *more = PyNumber_Add(hits, one);
    Py_DECREF(hits);
    if (more == NULL) return NULL;
    int failed = PyObject_SetAttr(cache, str_hits, more);
    Py_DECREF(more);
    if (failed) return NULL;

    PyObject *results = PyObject_Vectorcall(PyTuple_GET_ITEM(hot, 0), values, n, NULL);
    if (results == NULL) {
        if (PyErr_ExceptionMatches(PyExc_RuntimeError)) {
            /* hot.program.note_out_of_memory(e); raise */
            PyObject *type, *value, *tb;
            PyErr_Fetch(&type, &value, &tb);
            PyErr_NormalizeException(&type, &value, &tb);
            if (tb != NULL) PyException_SetTraceback(value, tb);
            PyObject *r = PyObject_CallMethodOneArg(PyTuple_GET_ITEM(hot, 3), str_note_oom, value);
            if (r == NULL) {
                Py_XDECREF(type);
                Py_XDECREF(value);
                Py_XDECREF(tb);
                return NULL;
            }
            Py_DECREF(r);
            PyErr_Restore(type, value, tb);
        }
        return NULL;
    }
    /* (result,) = results */
    PyObject *seq = PySequence_Fast(results, "the program's results are not a sequence");
    Py_DECREF(results);
    if (seq == NULL) return NULL;
    if (PySequence_Fast_GET_SIZE(seq) != 1) { /* Python's own unpacking errors */
        if (PySequence_Fast_GET_SIZE(seq) == 0)
            PyErr_SetString(PyExc_ValueError, "not enough values to unpack (expected 1, got 0)");
        else
            PyErr_SetString(PyExc_ValueError, "too many values to unpack (expected 1)");
        Py_DECREF(seq);
        return NULL;
    }
    PyObject *buffer = PySequence_Fast_GET_ITEM(seq, 0);
    /* ``Array.from_buffer`` written out: object.__new__(Array), its slots set. */
    PyObject *out = array_type->tp_alloc(array_type, 0);
    if (out == NULL) {
        Py_DECREF(seq);
        return NULL;
    }
    PyObject *aval = PyTuple_GET_ITEM(hot, 2);
    Py_INCREF(aval);
    SLOT(out, off_aval) = aval;
    Py_INCREF(aval);
    SLOT(out, off_key) = aval;
    Py_INCREF(Py_None);
    SLOT(out, off_host) = Py_None;
    Py_INCREF(buffer);
    SLOT(out, off_buffer) = buffer;
    Py_DECREF(seq);
    return out;
}

#define FEW 16 /* arguments whose buffers fit on the stack */

/* The hit path, or NULL with no error set where it does not apply (then the
 * call takes the Python path, which says why: a miss, a host value, ...). */
static PyObject *hit(HitPathObject *self, PyObject *args, PyObject *kwargs) {
    if (global_dispatch == NULL || array_type == NULL) return NULL; /* not configured */
    if (self->cache == NULL || (kwargs != NULL && PyDict_GET_SIZE(kwargs))) return NULL;
    PyObject *recent = PyObject_GetAttr(self->cache, str_recent);
    if (recent == NULL) return NULL;
    PyObject *result = NULL, *hot = NULL, *values_heap = NULL;
    PyObject *stack[FEW];
    PyObject **values = stack;
    Py_ssize_t n = 0;
    if (!PyTuple_CheckExact(recent) || PyTuple_GET_SIZE(recent) != 2) goto done;
    /* A plain key is (mode, one signature per argument): see Jitted._cache_key. */
    PyObject *key = PyTuple_GET_ITEM(recent, 0);
    hot = PyObject_GetAttr(PyTuple_GET_ITEM(recent, 1), str_hot);
    if (hot == NULL || hot == Py_None) goto done;
    Py_ssize_t nargs = PyTuple_GET_SIZE(args);
    if (!PyTuple_CheckExact(key) || PyTuple_GET_SIZE(key) != nargs + 1) goto done;
    if (!PyTuple_Check(hot) || PyTuple_GET_SIZE(hot) != 4) goto done;
    /* The mode: GLOBAL_DISPATCH's while this thread overrides no option. */
    PyObject *mode = PyList_GET_ITEM(global_dispatch, 0);
    PyObject *key_mode = PyTuple_GET_ITEM(key, 0);
    if (key_mode != mode) {
        if (mode == Py_None) goto done;
        Py_INCREF(mode); /* an __eq__ may let another thread replace the cell's item */
        int eq = PyObject_RichCompareBool(key_mode, mode, Py_EQ);
        Py_DECREF(mode);
        if (eq <= 0) goto done;
    }
    PyObject *overrides = PyObject_GetAttr(thread_overrides, str_values);
    if (overrides == NULL) goto done;
    int overridden = PyObject_IsTrue(overrides);
    Py_DECREF(overrides);
    if (overridden) goto done;
    /* Eager evaluation: ``getattr(THREAD_CONTEXT, "trace", None) is EVAL_TRACE``. */
    PyObject *trace;
    if (PyObject_GetOptionalAttr(thread_context, str_trace, &trace) < 0) goto done;
    Py_XDECREF(trace); /* only its identity is compared */
    if (trace != eval_trace) goto done;

    PyObject *consts = PyTuple_GET_ITEM(hot, 1);
    if (!PyTuple_CheckExact(consts)) goto done;
    Py_ssize_t nconst = PyTuple_GET_SIZE(consts);
    if (nconst + nargs > FEW) {
        values_heap = PyTuple_New(nconst + nargs); /* owns the references */
        if (values_heap == NULL) goto done;
        values = &PyTuple_GET_ITEM(values_heap, 0);
    }
    for (Py_ssize_t i = 0; i < nconst; i++) {
        PyObject *c = PyTuple_GET_ITEM(consts, i);
        Py_INCREF(c);
        values[n++] = c;
    }
    for (Py_ssize_t i = 0; i < nargs; i++) {
        PyObject *x = PyTuple_GET_ITEM(args, i);
        if (Py_TYPE(x) != array_type) goto done;
        PyObject *k = SLOT(x, off_key), *expected = PyTuple_GET_ITEM(key, i + 1);
        if (k == NULL) goto done;
        if (k != expected) {
            Py_INCREF(k);
            int eq = PyObject_RichCompareBool(k, expected, Py_EQ);
            Py_DECREF(k);
            if (eq <= 0) goto done;
        }
        PyObject *buffer = SLOT(x, off_buffer);
        /* On the host, or deleted: the Python path says which. */
        if (buffer == NULL || buffer == Py_None || buffer == deleted) goto done;
        Py_INCREF(buffer);
        values[n++] = buffer;
    }
    result = run_hot(self->cache, hot, values, n);
done:
    if (values_heap != NULL) {
        Py_DECREF(values_heap); /* its unfilled items are NULL */
    } else {
        for (Py_ssize_t i = 0; i < n; i++) Py_DECREF(values[i]);
    }
    Py_XDECREF(hot);
    Py_DECREF(recent);
    return result;
}

static PyObject *hit_path_call(PyObject *self, PyObject *args, PyObject *kwargs) {
    PyObject *result = hit((HitPathObject *)self, args, kwargs);
    if (result != NULL || PyErr_Occurred()) return result;
    PyObject *miss = PyObject_GetAttr(self, str_miss);
    if (miss == NULL) return NULL;
    result = PyObject_Call(miss, args, kwargs);
    Py_DECREF(miss);
    return result;
}

static int hit_path_traverse(PyObject *self, visitproc visit, void *arg) {
    Py_VISIT(((HitPathObject *)self)->cache);
    Py_VISIT(Py_TYPE(self));
    return 0;
}

static int hit_path_clear(PyObject *self) {
    Py_CLEAR(((HitPathObject *)self)->cache);
    return 0;
}

static void hit_path_dealloc(PyObject *self) {
    PyTypeObject *type = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    hit_path_clear(self);
    type->tp_free(self);
    Py_DECREF(type);
}

static PyMemberDef hit_path_members[] = {
    {"_cache", T_OBJECT, offsetof(HitPathObject, cache), 0,
     "the trace cache whose most recent entry the hit path reads"},
    {NULL},
};

static PyType_Slot hit_path_slots[] = {
    {Py_tp_doc, "A callable whose call takes jit's hit path, else ``self._miss(*args, **kwargs)``."},
    {Py_tp_call, hit_path_call},
    {Py_tp_traverse, hit_path_traverse},
    {Py_tp_clear, hit_path_clear},
    {Py_tp_dealloc, hit_path_dealloc},
    {Py_tp_members, hit_path_members},
    {0, NULL},
};

static PyType_Spec hit_path_spec = {
    .name = "didax.core._native.HitPath",
    .basicsize = sizeof(HitPathObject),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .slots = hit_path_slots,
};

/* ---- Array.block_until_ready ------------------------------------------- */

static PyObject *array_block_until_ready(PyObject *self, PyObject *unused) {
    PyObject *buffer = SLOT(self, off_buffer);
    if (buffer == NULL) {
        PyErr_SetString(PyExc_AttributeError, "_buffer");
        return NULL;
    }
    if (buffer != Py_None) {
        if (buffer == deleted) {
            PyObject *error = PyObject_CallMethodNoArgs(self, str_deleted_error);
            if (error != NULL) {
                PyErr_SetObject((PyObject *)Py_TYPE(error), error);
                Py_DECREF(error);
            }
            return NULL;
        }
        PyObject *backend = PyDict_GetItemWithError(array_globals, str_backend);
        if (backend == NULL) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "no device backend");
            return NULL;
        }
        PyObject *r = PyObject_CallMethodOneArg(backend, str_block, buffer);
        if (r == NULL) return NULL;
        Py_DECREF(r);
    }
    Py_INCREF(self);
    return self;
}

static PyMethodDef block_until_ready_def = {
    "block_until_ready", array_block_until_ready, METH_NOARGS,
    "Waits until the Array's value is computed, and returns the Array.",
};

/* ---- the module ---------------------------------------------------------- */

static PyObject *array_methods(PyObject *module, PyObject *args) {
    PyObject *type, *marker, *namespace;
    if (!PyArg_ParseTuple(args, "O!OO!:array_methods", &PyType_Type, &type, &marker,
                          &PyDict_Type, &namespace))
        return NULL;
    if (array_type != NULL) {
        PyErr_SetString(PyExc_RuntimeError, "array_methods was already called");
        return NULL;
    }
    PyTypeObject *t = (PyTypeObject *)type;
    if (slot_offset(t, "_aval", &off_aval) || slot_offset(t, "_key", &off_key) ||
        slot_offset(t, "_host", &off_host) || slot_offset(t, "_buffer", &off_buffer))
        return NULL;
    /* A method descriptor: bound and called as a method defined in Python is. */
    PyObject *method = PyDescr_NewMethod(t, &block_until_ready_def);
    if (method == NULL) return NULL;
    Py_INCREF(type);
    array_type = t;
    Py_INCREF(marker);
    deleted = marker;
    Py_INCREF(namespace);
    array_globals = namespace;
    return method;
}

static PyObject *configure_hit_path(PyObject *module, PyObject *args) {
    PyObject *cell, *overrides, *context, *trace;
    if (!PyArg_ParseTuple(args, "O!OOO:configure_hit_path", &PyList_Type, &cell, &overrides,
                          &context, &trace))
        return NULL;
    if (global_dispatch != NULL) {
        PyErr_SetString(PyExc_RuntimeError, "configure_hit_path was already called");
        return NULL;
    }
    if (PyList_GET_SIZE(cell) != 1) {
        /* The cell is read in place, never resized (config.GLOBAL_DISPATCH). */
        PyErr_SetString(PyExc_ValueError, "the dispatch mode's cell must hold one item");
        return NULL;
    }
    Py_INCREF(overrides);
    thread_overrides = overrides;
    Py_INCREF(context);
    thread_context = context;
    Py_INCREF(trace);
    eval_trace = trace;
    Py_INCREF(cell);
    global_dispatch = cell; /* last: the hit path reads it as "configured" */
    Py_RETURN_NONE;
}

static PyMethodDef module_methods[] = {
    {"array_methods", array_methods, METH_VARARGS,
     "array_methods(Array, DELETED, namespace): the Array type, its deleted marker and "
     "its module's namespace (whose ``_backend`` waits); returns Array.block_until_ready."},
    {"configure_hit_path", configure_hit_path, METH_VARARGS,
     "configure_hit_path(GLOBAL_DISPATCH, THREAD_OVERRIDES, THREAD_CONTEXT, EVAL_TRACE): "
     "what HitPath's call reads besides the Array type."},
    {NULL},
};

static int module_exec(PyObject *module) {
    if ((one = PyLong_FromLong(1)) == NULL) return -1;
#define INTERN(var, text) \
    if ((var = PyUnicode_InternFromString(text)) == NULL) return -1;
    INTERN(str_recent, "recent");
    INTERN(str_hot, "hot");
    INTERN(str_hits, "hits");
    INTERN(str_values, "values");
    INTERN(str_trace, "trace");
    INTERN(str_miss, "_miss");
    INTERN(str_note_oom, "note_out_of_memory");
    INTERN(str_backend, "_backend");
    INTERN(str_block, "block_until_ready");
    INTERN(str_deleted_error, "_deleted_error");
#undef INTERN
    PyObject *hit_path = PyType_FromModuleAndSpec(module, &hit_path_spec, NULL);
    if (hit_path == NULL) return -1;
    return PyModule_AddObject(module, "HitPath", hit_path) ? (Py_DECREF(hit_path), -1) : 0;
}

static PyModuleDef_Slot module_slots[] = {
    {Py_mod_exec, module_exec},
#if PY_VERSION_HEX >= 0x030C0000
    /* Its state is the process's (static), as jaxlib's: one interpreter only. */
    {Py_mod_multiple_interpreters, Py_MOD_MULTIPLE_INTERPRETERS_NOT_SUPPORTED},
#endif
    {0, NULL},
};

static struct PyModuleDef native_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "didax.core._native",
    .m_doc = "jit's hit path and Array.block_until_ready in C (see hit_path.py).",
    .m_size = 0,
    .m_methods = module_methods,
    .m_slots = module_slots,
};

PyMODINIT_FUNC PyInit__native(void) { return PyModuleDef_Init(&native_module); }
