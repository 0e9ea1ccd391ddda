/*
 * annotate.h — write a model back with its analysis inside, for viewers
 * (Netron) and for tools that read value_info.
 *
 * The file is rewritten at the wire level, never decoded into messages:
 * every field is copied as bytes (weights included, external data left
 * where it is) except what is added:
 *   - graph.value_info: the inferred type and shape of every node output of
 *     the main graph that the file does not declare already (graph outputs
 *     keep their own declaration). A dim is a number only when the analysis
 *     knows it does not depend on an unbound dim; one that does is written
 *     as its formula ("batch*sequence") as a dim_param, or left unknown.
 *   - each node's metadata_props: onnxcost.params, .macs, .flops,
 *     .activation_bytes, .bytes_read, .bytes_written (numbers, or formulas
 *     in the unbound dims where they were fitted: then the byte counts and
 *     times, which have no formula, are left out), .time_us and .bound with
 *     a GPU, or
 *     onnxcost.status saying why a node has no cost; and a one-line summary
 *     appended to its doc_string for viewers that show only that.
 *   - the model's metadata_props: the totals, whether they are complete, the
 *     bindings and the GPU.
 * Entries from an earlier annotation (keys "onnxcost.*", the doc_string
 * line, value_info whose doc_string is "onnxcost: inferred") are replaced,
 * not repeated or kept.
 */
#ifndef OC_ANNOTATE_H
#define OC_ANNOTATE_H

#include "../analyzer/analyze.h"
#include "perf/perf.h"
#include "../analyzer/symbolic.h"
#include "range.h"

#include <stdio.h>

struct oc_annotate_stats {
    int32_t n_value_info;       /* value_info entries added                      */
    int32_t n_value_info_kept;  /* node outputs the file already declared        */
    int32_t n_nodes;            /* nodes annotated                               */
    int32_t n_external;         /* initializers whose data lives in other files  */
    const char *external_location; /* the first such file (as written), or NULL  */
    uint64_t bytes_in, bytes_out;
};

struct oc_annotate_opts {
    const struct oc_symbolic *sym; /* formulas when dims were left unbound, or NULL */
    const struct oc_gpu *gpu;      /* predictions to record, or NULL              */
    const struct oc_perf *perf;
    const struct oc_range_result *ranges; /* --dim NAME=LO:HI: each node's and the
                                      model's [min, max] over the box beside the
                                      formulas (the ranged dims left unbound), or
                                      NULL                                      */
    bool no_shapes;                /* costs only, no value_info: ONNX Runtime's
                                      optimizer then sees the graph as it was (with
                                      the shapes it may fuse more, which changes
                                      float rounding; docs/ANNOTATE.md)   */
};

/* Reads the model file from in (the bytes m was loaded from, seekable: a
 * file, or fmemopen over a buffer) and writes it with the analysis an of m
 * to out. On failure returns a status with a one-line reason in d (out then
 * holds a partial file: write it somewhere temporary). */
enum oc_status oc_annotate_write(FILE *in, const struct oc_model *m, const struct oc_analysis *an,
                                 const struct oc_annotate_opts *o, FILE *out, struct oc_annotate_stats *stats,
                                 struct oc_diag *d);

/* The same into the file out_path, which may be the input, as outfile.h
 * writes every output: a regular file replaced whole by rename (owner, group
 * and mode kept), a device or FIFO written through, anything else refused.
 * On failure nothing is left behind; OC_ERR_IO or OC_ERR_USAGE when the
 * output cannot be written, with the reason (without the file name) in d. */
enum oc_status oc_annotate_file(FILE *in, const struct oc_model *m, const struct oc_analysis *an,
                                const struct oc_annotate_opts *o, const char *out_path,
                                struct oc_annotate_stats *stats, struct oc_diag *d);

#endif
