/*
 * _core.c — the C library in process for Python (the onnxcost package).
 *
 * One type, _core.Handle: a loaded model with its analysis, symbolic
 * formulas, modules and GPU prediction, kept until the handle is released.
 * Its values come from the same walk that writes the JSON report
 * (oc_json_members), converted from jansson values to Python objects
 * directly: no text is printed and parsed back. A member is built only when
 * asked for (the node rows are most of the cost). Its reports (text, json,
 * md, csv, html) are rendered into memory by reports/ as the CLI renders
 * them to a file.
 *
 * Errors: a file the analyzer refuses raises _core.ModelError with the
 * CLI's one line ("NAME: reason"); out of memory raises MemoryError; bad
 * arguments raise ValueError or TypeError.
 *
 * The GIL is released while the library works (loading, analysis, a
 * report, an annotated copy; not while members are converted to Python
 * values): the library keeps no global mutable state and
 * each handle owns its model, so threads may analyze models side by side.
 * A handle itself is not shared between threads while one of its calls
 * runs.
 */
#define PY_SSIZE_T_CLEAN
/* the stable ABI of CPython 3.9: one abi3 wheel serves 3.9 and every
   later CPython (docs/PYTHON.md) */
#ifndef Py_LIMITED_API
#define Py_LIMITED_API 0x03090000
#endif
#include <Python.h>

#include "analyze.h"
#include "annotate.h"
#include "derive.h"
#include "dtype.h"
#include "perf/perf.h"
#include "model.h"
#include "modules.h"
#include "symbolic.h"

#include "../cli/cli.h"
#include "../reports/report.h"

#include <jansson.h>
#include <pythread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static PyObject *oc_py_error;       /* _core.Error: base of the package's exceptions */
static PyObject *oc_py_model_error; /* _core.ModelError: the file was refused          */

typedef struct {
    PyObject_HEAD
    PyObject *source;        /* the bytes a buffer model was loaded from, or NULL */
    char *name;              /* the path or the name given, shown in reports      */
    char *path;              /* the file a path model was loaded from, or NULL    */
    struct oc_model *model;
    struct oc_analysis *an;
    struct oc_symbolic *sym;
    struct oc_module *mods;  /* --depth rows (in the analysis' arena), or NULL    */
    int32_t n_mods;
    const struct oc_gpu *gpu;
    struct oc_gpu custom;    /* a gpu_spec file's device (gpu points at it)        */
    char custom_name[512];   /* its strings                                       */
    struct oc_ktables tables; /* its measured kernel tables (custom.tables)        */
    char *spec_path;         /* the gpu_spec file, or NULL                         */
    struct oc_perf perf;
    char dtype_name[16];     /* --dtype in force, or ""                           */
    struct oc_binding *dims;
    int32_t n_dims;
} oc_handle;

static void oc_handle_dealloc(oc_handle *h) {
    oc_perf_free(&h->perf);
    oc_ktables_free(&h->tables);
    oc_symbolic_free(h->sym);
    oc_analysis_free(h->an);
    oc_model_free(h->model);
    for (int32_t i = 0; i < h->n_dims; i++)
        PyMem_Free((void *)h->dims[i].name);
    PyMem_Free(h->dims);
    PyMem_Free(h->name);
    PyMem_Free(h->path);
    PyMem_Free(h->spec_path);
    Py_XDECREF(h->source);
    PyTypeObject *tp = Py_TYPE(h); /* a heap type: its instances hold a reference to it */
    freefunc free_fn = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    free_fn(h);
    Py_DECREF(tp);
}

/* o's type's name, for messages (the limited API has no tp_name) */
static PyObject *oc_py_type_name(PyObject *o) {
    return PyObject_GetAttrString((PyObject *)Py_TYPE(o), "__name__");
}

/* Raises the exception for a failed status: MemoryError, or ModelError
 * with "NAME: reason". Returns NULL. */
static PyObject *oc_py_raise(const oc_handle *h, enum oc_status st, const char *msg) {
    if (PyErr_Occurred())
        return NULL;
    if (st == OC_ERR_NOMEM)
        return PyErr_NoMemory();
    PyObject *e = PyUnicode_FromFormat("%s: %s", h->name, msg && *msg ? msg : oc_status_str(st));
    if (e) {
        PyErr_SetObject(oc_py_model_error, e);
        Py_DECREF(e);
    }
    return NULL;
}

/* ---- jansson values to Python objects -------------------------------------- */

static PyObject *oc_py_from_json(const json_t *j) {
    switch (json_typeof(j)) {
    case JSON_OBJECT: {
        PyObject *d = PyDict_New();
        const char *key;
        json_t *v;
        json_object_foreach((json_t *)j, key, v) {
            PyObject *pv = d ? oc_py_from_json(v) : NULL;
            if (!pv || PyDict_SetItemString(d, key, pv) < 0) {
                Py_XDECREF(pv);
                Py_XDECREF(d);
                return NULL;
            }
            Py_DECREF(pv);
        }
        return d;
    }
    case JSON_ARRAY: {
        size_t n = json_array_size(j);
        PyObject *l = PyList_New((Py_ssize_t)n);
        for (size_t i = 0; l && i < n; i++) {
            PyObject *pv = oc_py_from_json(json_array_get(j, i));
            if (!pv) {
                Py_DECREF(l);
                return NULL;
            }
            if (PyList_SetItem(l, (Py_ssize_t)i, pv) < 0) { /* steals pv */
                Py_DECREF(l);
                return NULL;
            }
        }
        return l;
    }
    case JSON_STRING:
        return PyUnicode_DecodeUTF8(json_string_value(j), (Py_ssize_t)json_string_length(j), "replace");
    case JSON_INTEGER:
        return PyLong_FromLongLong(json_integer_value(j));
    case JSON_REAL:
        return PyFloat_FromDouble(json_real_value(j));
    case JSON_TRUE:
        Py_RETURN_TRUE;
    case JSON_FALSE:
        Py_RETURN_FALSE;
    default:
        Py_RETURN_NONE;
    }
}

struct oc_py_members {
    PyObject *dict;  /* key -> value, in document order */
    PyObject *nodes; /* the "nodes" list being filled   */
};

/* Each member converted as the walk hands it over (the GIL held: jansson's
 * values are released right after, so memory stays at one node's worth). */
static enum oc_status oc_py_member(void *arg, const char *key, int32_t index, const struct json_t *value,
                                   struct oc_diag *d) {
    struct oc_py_members *m = arg;
    PyObject *v = oc_py_from_json(value);
    bool ok = v != NULL;
    if (ok && index >= 0)
        ok = m->nodes && PyList_Append(m->nodes, v) == 0;
    else if (ok)
        ok = PyDict_SetItemString(m->dict, key, v) == 0;
    if (ok && index < 0 && strcmp(key, "nodes") == 0)
        m->nodes = v; /* borrowed: the dict holds it */
    Py_XDECREF(v);
    return ok ? OC_OK : oc_diag_set(d, OC_ERR_NOMEM, "out of memory");
}

/* ---- reports into memory ---------------------------------------------------- */

struct oc_py_text {
    char *p;
    size_t n, cap;
};

static int oc_py_text_write(void *arg, const char *data, size_t n) {
    struct oc_py_text *t = arg;
    if (t->n + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 1 << 16;
        while (cap < t->n + n + 1)
            cap *= 2;
        char *p = realloc(t->p, cap); /* called without the GIL */
        if (!p)
            return 1;
        t->p = p;
        t->cap = cap;
    }
    memcpy(t->p + t->n, data, n);
    t->n += n;
    return 0;
}

static struct oc_report_spec oc_handle_spec(oc_handle *h, enum oc_format f, struct oc_gpu_report *gr) {
    *gr = (struct oc_gpu_report){&h->perf, NULL, NULL, OC_BALANCE_TIME, NULL, h->spec_path, NULL};
    struct oc_report_spec spec = {.version = 1,
                                  .format = f,
                                  .model_path = h->name,
                                  .sym = h->sym,
                                  .sort = OC_SORT_NONE,
                                  .modules = h->mods,
                                  .n_modules = h->n_mods,
                                  .dtype_name = h->dtype_name[0] ? h->dtype_name : NULL,
                                  .gpu = h->gpu ? gr : NULL};
    return spec;
}

static PyObject *oc_handle_render(oc_handle *h, PyObject *args) {
    const char *fmt, *columns = NULL;
    int width = 0;
    enum oc_format f;
    uint32_t cols = 0;
    char err[128];
    if (!PyArg_ParseTuple(args, "s|iz:render", &fmt, &width, &columns))
        return NULL;
    if (!oc_format_parse(fmt, &f))
        return PyErr_Format(PyExc_ValueError, "unknown format '%s' (text, json, csv, md or html)", fmt);
    if (columns && !oc_columns_parse(columns, &cols, err, sizeof err))
        return PyErr_Format(PyExc_ValueError, "columns: %s (input, output, params, params%%, macs, macs%%, flops, "
                            "bytes)", err);
    if (cols & OC_COLS_SHAPES && h->mods)
        return PyErr_Format(PyExc_ValueError, "columns input/output: module rows (depth) have no shapes");
    struct oc_gpu_report gr;
    struct oc_report_spec spec = oc_handle_spec(h, f, &gr);
    struct oc_py_text t = {0};
    struct oc_diag d = {0};
    spec.write = oc_py_text_write;
    spec.write_arg = &t;
    spec.width = width > 0 ? width : 0;
    spec.columns = f == OC_FORMAT_TEXT ? cols : 0;
    enum oc_status st;
    Py_BEGIN_ALLOW_THREADS
    st = oc_report_render(h->an, &spec, &d);
    Py_END_ALLOW_THREADS
    PyObject *r = st == OC_OK ? PyUnicode_DecodeUTF8(t.p ? t.p : "", (Py_ssize_t)t.n, "replace") : NULL;
    free(t.p);
    if (st != OC_OK)
        return st == OC_ERR_IO ? PyErr_NoMemory() : oc_py_raise(h, st, d.msg);
    return r;
}

static PyObject *oc_handle_members(oc_handle *h, PyObject *args) {
    const char *only = NULL;
    if (!PyArg_ParseTuple(args, "|z:members", &only))
        return NULL;
    struct oc_gpu_report gr;
    struct oc_report_spec spec = oc_handle_spec(h, OC_FORMAT_JSON, &gr);
    struct oc_py_members m = {PyDict_New(), NULL};
    struct oc_diag d = {0};
    if (!m.dict)
        return NULL;
    enum oc_status st = oc_json_members(h->an, &spec, only, oc_py_member, &m, &d);
    if (st != OC_OK) {
        Py_DECREF(m.dict);
        return oc_py_raise(h, st, d.msg);
    }
    return m.dict;
}

/* annotate(out_path, shapes) -> dict: the model written with its analysis
 * (views/annotate.h) to out_path, beside it and renamed into place. */
static PyObject *oc_handle_annotate(oc_handle *h, PyObject *args) {
    PyObject *out_obj;
    int shapes = 1;
    if (!PyArg_ParseTuple(args, "O&|p:annotate", PyUnicode_FSConverter, &out_obj, &shapes))
        return NULL;
    FILE *in = h->path ? fopen(h->path, "rb")
                       : fmemopen(PyBytes_AsString(h->source), (size_t)PyBytes_Size(h->source), "rb");
    struct oc_annotate_opts ao = {.sym = h->sym, .gpu = h->gpu, .perf = h->gpu ? &h->perf : NULL, .no_shapes = !shapes};
    struct oc_annotate_stats stats;
    struct oc_diag d = {0};
    enum oc_status st;
    if (!in) {
        st = oc_diag_set(&d, OC_ERR_IO, "cannot read the model again to copy it");
    } else {
        Py_BEGIN_ALLOW_THREADS
        st = oc_annotate_file(in, h->model, h->an, &ao, PyBytes_AsString(out_obj), &stats, &d);
        Py_END_ALLOW_THREADS
        fclose(in);
    }
    if (st == OC_ERR_MODEL || st == OC_ERR_PARSE || st == OC_ERR_UNSUPPORTED) { /* about the model */
        Py_DECREF(out_obj);
        return oc_py_raise(h, st, d.msg);
    }
    if (st != OC_OK) {
        PyErr_Format(st == OC_ERR_NOMEM ? PyExc_MemoryError : PyExc_OSError, "%s: %s", PyBytes_AsString(out_obj),
                     d.msg);
        Py_DECREF(out_obj);
        return NULL;
    }
    Py_DECREF(out_obj);
    const char *loc = stats.external_location;
    PyObject *where = loc ? PyUnicode_DecodeUTF8(loc, (Py_ssize_t)strlen(loc), "replace") : Py_NewRef(Py_None);
    if (!where)
        return NULL;
    return Py_BuildValue("{s:i,s:i,s:i,s:i,s:N,s:K}", "nodes", stats.n_nodes, "shapes_added", stats.n_value_info,
                         "shapes_declared", stats.n_value_info_kept, "external_tensors", stats.n_external,
                         "external_location", where, "bytes", (unsigned long long)stats.bytes_out);
}

static PyMethodDef oc_handle_methods[] = {
    {"annotate", (PyCFunction)oc_handle_annotate, METH_VARARGS,
     "annotate(out_path, shapes=True) -> dict: the model with shapes and costs inside (onnxcost annotate)"},
    {"render", (PyCFunction)oc_handle_render, METH_VARARGS,
     "render(format, width=0, columns=None) -> str: the report as the CLI writes it (text, json, csv, md or "
     "html); columns: the text table's, as --columns"},
    {"members", (PyCFunction)oc_handle_members, METH_VARARGS,
     "members(only=None) -> dict: the JSON report's members (docs/JSON.md) as Python values; only: just that one"},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot oc_handle_slots[] = {
    {Py_tp_dealloc, (void *)oc_handle_dealloc},
    {Py_tp_methods, oc_handle_methods},
    {Py_tp_doc, "A model loaded and analyzed by the onnxcost C library (made by _core.analyze)."},
    {0, NULL},
};
static PyType_Spec oc_handle_type_spec = {"onnxcost._core.Handle", sizeof(oc_handle), 0, Py_TPFLAGS_DEFAULT,
                                     oc_handle_slots};
static PyTypeObject *oc_handle_type; /* made from the spec at import */

/* dims: a dict {name: int >= 1} into h->dims (names copied). */
static bool oc_handle_dims(oc_handle *h, PyObject *dims) {
    if (dims == Py_None)
        return true;
    if (!PyDict_Check(dims)) {
        PyErr_SetString(PyExc_TypeError, "dims must be a dict {name: size}");
        return false;
    }
    Py_ssize_t n = PyDict_Size(dims), pos = 0;
    h->dims = PyMem_Calloc(n ? (size_t)n : 1, sizeof *h->dims);
    if (!h->dims) {
        PyErr_NoMemory();
        return false;
    }
    PyObject *k, *v;
    while (PyDict_Next(dims, &pos, &k, &v)) {
        if (!PyUnicode_Check(k)) {
            PyErr_SetString(PyExc_TypeError, "dims: names must be str");
            return false;
        }
        /* as --dim NAME=N: a positive int (a bool is not a size; 2**63 overflows) */
        long long value = PyLong_Check(v) && !PyBool_Check(v) ? PyLong_AsLongLong(v) : -1;
        if (value < 1) {
            PyErr_Clear();
            PyErr_Format(PyExc_ValueError, "dims: %R must be a positive int below 2**63, not %R", k, v);
            return false;
        }
        PyObject *utf8 = PyUnicode_AsUTF8String(k); /* 3.9's stable ABI has no PyUnicode_AsUTF8AndSize */
        const char *name = utf8 ? PyBytes_AsString(utf8) : NULL;
        if (name && (Py_ssize_t)strlen(name) != PyBytes_Size(utf8)) {
            PyErr_Format(PyExc_ValueError, "dims: %R holds a NUL character", k);
            Py_DECREF(utf8);
            return false;
        }
        char *copy = name ? PyMem_Malloc(strlen(name) + 1) : NULL;
        if (!copy) {
            if (name)
                PyErr_NoMemory();
            Py_XDECREF(utf8);
            return false;
        }
        strcpy(copy, name);
        Py_DECREF(utf8);
        h->dims[h->n_dims++] = (struct oc_binding){copy, value};
    }
    return true;
}

/* analyze(source, name, dims, batch, gpu, dtype, depth, symbolic, gpu_spec) -> Handle.
 * source is a path (str) or the file's bytes; gpu_spec a --gpu-spec file. */
static PyObject *oc_py_analyze(PyObject *self, PyObject *args, PyObject *kw) {
    (void)self;
    static char *kwlist[] = {"source", "name", "dims", "batch", "gpu", "dtype", "depth", "symbolic", "gpu_spec", NULL};
    PyObject *source, *dims = Py_None;
    const char *name, *gpu = NULL, *dtype = NULL, *gpu_spec = NULL;
    long long batch = 0;
    int depth = 0, symbolic = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "Os|OLzzipz:analyze", kwlist, &source, &name, &dims, &batch, &gpu,
                                     &dtype, &depth, &symbolic, &gpu_spec))
        return NULL;
    if (gpu && gpu_spec)
        return PyErr_Format(PyExc_ValueError, "gpu and gpu_spec: give one (a built-in GPU or a spec file)");
    if (batch < 0)
        return PyErr_Format(PyExc_ValueError, "batch must be >= 0 (0: none), not %lld", batch);
    if (depth < 0 || depth > 64)
        return PyErr_Format(PyExc_ValueError, "depth must be from 0 (no modules) to 64, not %d", depth);
    if (!PyUnicode_Check(source) && !PyBytes_Check(source)) {
        PyObject *tn = oc_py_type_name(source);
        if (tn) {
            PyErr_Format(PyExc_TypeError, "source must be a path (str) or bytes, not %U", tn);
            Py_DECREF(tn);
        }
        return NULL;
    }

    oc_handle *h = PyObject_New(oc_handle, oc_handle_type);
    if (!h)
        return NULL;
    memset((char *)h + sizeof(PyObject), 0, sizeof *h - sizeof(PyObject));
    h->name = PyMem_Malloc(strlen(name) + 1);
    if (!h->name) {
        Py_DECREF(h);
        return PyErr_NoMemory();
    }
    strcpy(h->name, name);
    if (!oc_handle_dims(h, dims)) {
        Py_DECREF(h);
        return NULL;
    }
    struct oc_analyze_opts opts = {.dims = h->dims, .n_dims = h->n_dims, .batch = batch};
    struct oc_perf_opts popts;
    oc_perf_defaults(&popts);
    if (dtype) {
        int32_t bits, code;
        if (!oc_dtype_price_parse(dtype, &bits, &code)) {
            Py_DECREF(h);
            return PyErr_Format(PyExc_ValueError, "unknown dtype '%s' (fp64, fp32, fp16, bf16, fp8, int8 or int4)",
                                dtype);
        }
        opts.price_bits = bits;
        popts.dtype = code;
        snprintf(h->dtype_name, sizeof h->dtype_name, "%s", dtype);
    }
    if (gpu && !(h->gpu = oc_gpu_find(gpu))) {
        Py_DECREF(h);
        return PyErr_Format(PyExc_ValueError, "unknown GPU '%s' (onnxcost.gpus() lists them)", gpu);
    }
    if (gpu_spec) { /* as --gpu-spec: the device, and the factors a calibrated file measured */
        char err[256];
        h->spec_path = PyMem_Malloc(strlen(gpu_spec) + 1);
        if (!h->spec_path) {
            Py_DECREF(h);
            return PyErr_NoMemory();
        }
        strcpy(h->spec_path, gpu_spec);
        if (!oc_gpu_spec_load(gpu_spec, &h->custom, h->custom_name, sizeof h->custom_name, err, sizeof err) ||
            !oc_gpu_spec_load_tables(gpu_spec, &h->tables, err, sizeof err)) {
            Py_DECREF(h);
            return PyErr_Format(PyExc_ValueError, "%s: %s", gpu_spec, err);
        }
        h->custom.tables = h->tables.n ? &h->tables : NULL;
        h->gpu = &h->custom;
        oc_perf_use_measured(&h->custom, 0, &popts);
    }

    if (PyBytes_Check(source)) {
        Py_INCREF(source);
        h->source = source;
    } else {
        PyObject *fs = PyUnicode_EncodeFSDefault(source);
        if (!fs) {
            Py_DECREF(h);
            return NULL;
        }
        h->path = PyMem_Malloc((size_t)PyBytes_Size(fs) + 1);
        if (h->path)
            strcpy(h->path, PyBytes_AsString(fs));
        Py_DECREF(fs);
        if (!h->path) {
            Py_DECREF(h);
            return PyErr_NoMemory();
        }
    }
    struct oc_diag d = {0};
    struct oc_load_opts lopts = {0};
    enum oc_status st;
    const char *data = h->source ? PyBytes_AsString(h->source) : NULL;
    size_t size = h->source ? (size_t)PyBytes_Size(h->source) : 0;
    Py_BEGIN_ALLOW_THREADS
    st = data ? oc_model_load_buffer(data, size, &lopts, &h->model, &d) : oc_model_load(h->path, &lopts, &h->model, &d);
    opts.keep_built = symbolic; /* the formulas' probes fork the graph as built */
    if (st == OC_OK)
        st = oc_analyze(h->model, &opts, &h->an, &d);
    if (st == OC_OK && symbolic) { /* unbound dims kept as formulas, as the CLI does */
        struct oc_diag sd = {0};
        /* the formulas, exact or fitted */
        if (oc_symbolic_wanted(h->an) && oc_symbolic_derive(h->model, &opts, h->an, &h->sym, &sd) == OC_ERR_NOMEM)
            st = OC_ERR_NOMEM;
    }
    if (st == OC_OK && depth > 0) {
        st = oc_modules_build(h->an, depth, &h->mods, &h->n_mods, &d);
        if (st == OC_OK && h->sym)
            st = oc_modules_symbolic(h->sym, h->mods, h->n_mods);
    }
    if (st == OC_OK && h->gpu)
        st = oc_perf_estimate(h->an, h->gpu, &popts, &h->perf);
    Py_END_ALLOW_THREADS
    if (st != OC_OK) {
        oc_py_raise(h, st, d.msg);
        Py_DECREF(h);
        return NULL;
    }
    return (PyObject *)h;
}

static PyObject *oc_py_gpus(PyObject *self, PyObject *unused) {
    (void)self;
    (void)unused;
    PyObject *l = PyList_New(0);
    for (int32_t i = 0; l && i < oc_gpu_count(); i++) {
        PyObject *s = PyUnicode_FromString(oc_gpu_at(i)->id);
        if (!s || PyList_Append(l, s) < 0) {
            Py_XDECREF(s);
            Py_DECREF(l);
            return NULL;
        }
        Py_DECREF(s);
    }
    return l;
}

/* ---- _core.main: a command line of the CLI, run in this process ---- */

static PyThread_type_lock oc_cli_lock; /* the CLI's streams are its one state: one run at a time */

/* The progress callback: the Python callable gets (what, done, total); an
 * exception it raises is reported as unraisable and the run goes on. */
static void oc_py_progress(void *arg, const char *what, int64_t done, int64_t total) {
    PyGILState_STATE g = PyGILState_Ensure();
    PyObject *r = PyObject_CallFunction((PyObject *)arg, "sLL", what, (long long)done, (long long)total);
    if (r)
        Py_DECREF(r);
    else
        PyErr_WriteUnraisable((PyObject *)arg);
    PyGILState_Release(g);
}

/* One command line, the GIL released, one run at a time. */
static int oc_py_run_cli(int argc, char **argv, const struct oc_cli_io *io) {
    int rc;
    Py_BEGIN_ALLOW_THREADS
    PyThread_acquire_lock(oc_cli_lock, WAIT_LOCK);
    rc = oc_cli_main(argc, argv, io);
    PyThread_release_lock(oc_cli_lock);
    Py_END_ALLOW_THREADS
    return rc;
}

static PyObject *oc_py_main(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *argv_obj, *progress = Py_None;
    int capture = 1;
    if (!PyArg_ParseTuple(args, "O|Op:main", &argv_obj, &progress, &capture))
        return NULL;
    if (progress != Py_None && !PyCallable_Check(progress))
        return PyErr_Format(PyExc_TypeError, "progress must be callable or None");
    PyObject *seq = PySequence_Tuple(argv_obj);
    if (!seq) {
        PyErr_Clear();
        return PyErr_Format(PyExc_TypeError, "argv must be a sequence of str");
    }
    Py_ssize_t n = PyTuple_Size(seq);
    if (n > 100000) {
        Py_DECREF(seq);
        return PyErr_Format(PyExc_ValueError, "argv has %zd arguments", n);
    }
    char **argv = PyMem_Calloc((size_t)n + 2, sizeof *argv);
    PyObject **keep = PyMem_Calloc((size_t)n + 1, sizeof *keep);
    PyObject *result = NULL;
    if (!argv || !keep) {
        PyErr_NoMemory();
        goto done;
    }
    argv[0] = "onnxcost";
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *a = PyTuple_GetItem(seq, i); /* borrowed */
        if (!PyUnicode_Check(a) && !PyBytes_Check(a)) {
            PyObject *tn = oc_py_type_name(a);
            if (tn) {
                PyErr_Format(PyExc_TypeError, "argv[%zd] must be str, not %U", i, tn);
                Py_DECREF(tn);
            }
            goto done;
        }
        keep[i] = PyUnicode_Check(a) ? PyUnicode_EncodeFSDefault(a) : (Py_INCREF(a), a);
        if (!keep[i])
            goto done;
        argv[i + 1] = PyBytes_AsString(keep[i]);
        if (strlen(argv[i + 1]) != (size_t)PyBytes_Size(keep[i])) {
            PyErr_Format(PyExc_ValueError, "argv[%zd] contains a NUL byte", i);
            goto done;
        }
    }
    if (!capture) { /* the console script: the process's own streams, as the executable */
        struct oc_cli_io io = {stdout, stderr, NULL, NULL};
        result = Py_BuildValue("(iys)", oc_py_run_cli((int)n + 1, argv, &io), "", "");
        goto done;
    }
    char *out_buf = NULL, *err_buf = NULL;
    size_t out_n = 0, err_n = 0;
    FILE *out = open_memstream(&out_buf, &out_n);
    FILE *err = out ? open_memstream(&err_buf, &err_n) : NULL;
    if (!out || !err) {
        if (out)
            fclose(out);
        free(out_buf);
        PyErr_NoMemory();
        goto done;
    }
    struct oc_cli_io io = {out, err, progress != Py_None ? oc_py_progress : NULL, progress};
    int rc = oc_py_run_cli((int)n + 1, argv, &io);
    bool closed = fclose(out) == 0;
    closed = fclose(err) == 0 && closed;
    if (!closed) {
        PyErr_NoMemory();
    } else {
        PyObject *o = PyBytes_FromStringAndSize(out_buf ? out_buf : "", (Py_ssize_t)out_n);
        PyObject *e = o ? PyUnicode_DecodeUTF8(err_buf ? err_buf : "", (Py_ssize_t)err_n, "replace") : NULL;
        if (o && e)
            result = Py_BuildValue("(iOO)", rc, o, e);
        Py_XDECREF(o);
        Py_XDECREF(e);
    }
    free(out_buf);
    free(err_buf);
done:
    for (Py_ssize_t i = 0; keep && i < n; i++)
        Py_XDECREF(keep[i]);
    PyMem_Free(keep);
    PyMem_Free(argv);
    Py_DECREF(seq);
    return result;
}

static PyMethodDef oc_py_functions[] = {
    {"analyze", (PyCFunction)(void (*)(void))oc_py_analyze, METH_VARARGS | METH_KEYWORDS,
     "analyze(source, name, dims=None, batch=0, gpu=None, dtype=None, depth=0, symbolic=True) -> Handle"},
    {"gpus", oc_py_gpus, METH_NOARGS, "gpus() -> list of the built-in GPU names"},
    {"main", oc_py_main, METH_VARARGS,
     "main(argv, progress=None, capture=True) -> (exit_code, report: bytes, diagnostics: str): the\n"
     "command line argv (without the program's name) run as the onnxcost executable runs it, its\n"
     "report and its stderr lines captured; progress(what, done, total) is called during sweep,\n"
     "measure, replay. capture=False: the process's stdout and stderr (the console script)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef oc_py_module = {
    PyModuleDef_HEAD_INIT, "_core", "The onnxcost C library in process (use the onnxcost package).", -1,
    oc_py_functions, NULL, NULL, NULL, NULL,
};

/* PyModule_AddObjectRef, which 3.9's stable ABI lacks: the module gets its
 * own reference to value, the caller keeps its own */
static int oc_py_module_add(PyObject *m, const char *name, PyObject *value) {
    Py_INCREF(value);
    if (PyModule_AddObject(m, name, value) < 0) {
        Py_DECREF(value);
        return -1;
    }
    return 0;
}

PyMODINIT_FUNC PyInit__core(void);
PyMODINIT_FUNC PyInit__core(void) {
    if (!oc_handle_type && !(oc_handle_type = (PyTypeObject *)PyType_FromSpec(&oc_handle_type_spec)))
        return NULL;
    if (!oc_cli_lock && !(oc_cli_lock = PyThread_allocate_lock()))
        return PyErr_NoMemory();
    PyObject *m = PyModule_Create(&oc_py_module);
    if (!m)
        return NULL;
    oc_py_error = PyErr_NewExceptionWithDoc("onnxcost.Error", "Base of the errors onnxcost raises.", NULL, NULL);
    PyObject *bases = oc_py_error ? PyTuple_Pack(2, oc_py_error, PyExc_ValueError) : NULL;
    oc_py_model_error = bases ? PyErr_NewExceptionWithDoc("onnxcost.ModelError",
                                                          "The model file was refused: not ONNX, damaged, or beyond "
                                                          "a limit. The message is the CLI's one line.",
                                                          bases, NULL)
                              : NULL;
    Py_XDECREF(bases);
    if (!oc_py_model_error || oc_py_module_add(m, "Error", oc_py_error) < 0 ||
        oc_py_module_add(m, "ModelError", oc_py_model_error) < 0 ||
        oc_py_module_add(m, "Handle", (PyObject *)oc_handle_type) < 0 ||
        PyModule_AddStringConstant(m, "version", ONNXCOST_VERSION) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
