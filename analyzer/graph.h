/*
 * graph.h — the analyzer's view of an ONNX graph.
 *
 * Values (graph inputs, initializers, node outputs) and nodes with their
 * producers, consumers and a topological order (the file need not be
 * sorted). Built from a loaded model by oc_graph_build(), which also
 * validates the structure: a node input nobody produces, duplicate output
 * names, cycles, negative dims and a missing graph are errors.
 *
 * Ownership: every object lives in the caller's arena. Names and attribute
 * pointers are borrowed from the model, so a graph must not outlive the
 * struct oc_model it was built from.
 */
#ifndef OC_GRAPH_H
#define OC_GRAPH_H

#include "arena.h"
#include "cost.h"
#include "oc.h"

struct oc_model;
struct oc_op_def;

#define OC_DIM_UNKNOWN (-1)

/* One dimension: value >= 0 when known; sym names a symbolic dim ("batch")
 * and is kept after binding so reports can say where a number came from. */
struct oc_dim {
    int64_t value;
    const char *sym;
};

/* ---- values that are not tensors -------------------------------------------------
 * An ONNX value may also be a sequence of tensors, or an optional holding a
 * tensor or a sequence. Such a value keeps dtype 0 and rank -1, so code written
 * for tensors sees an unknown shape (and the driver does not run a rule on it
 * unless the rule's row has OC_OPF_NONTENSOR); `nt` describes it instead.
 * A description is immutable once attached: values share them.
 *
 * A sequence is summarized, not listed: one dtype and one shape for all its
 * tensors, a dim (or the rank) the tensors do not share being unknown, and
 * the number of tensors when known. Maps, sparse tensors and sequences of
 * non-tensors are not modelled: such values stay untyped (nt NULL, rank -1). */
enum oc_type_kind {
    OC_TYPE_TENSOR = 0,
    OC_TYPE_SEQUENCE = 1,  /* sequence of tensors                                */
    OC_TYPE_OPTIONAL = 2,  /* optional tensor or optional sequence (see `inner`) */
};

struct oc_ntype {
    enum oc_type_kind kind;  /* OC_TYPE_SEQUENCE or OC_TYPE_OPTIONAL                */
    enum oc_type_kind inner; /* OPTIONAL: what it holds, TENSOR or SEQUENCE         */
    int8_t present;          /* OPTIONAL: 1 holds a value, 0 empty, -1 not known    */
    int64_t len;             /* the sequence's number of tensors, -1 not known      */
    int64_t bytes;           /* the sequence's bytes (all its tensors), -1 unknown  */
    int32_t dtype;           /* the tensor, or the sequence's tensors: 0 unknown    */
    int32_t rank;            /* -1 unknown (for a sequence: or not shared)          */
    struct oc_dim *dims;     /* rank entries; a dim not shared is OC_DIM_UNKNOWN    */
};

enum oc_value_kind {
    OC_VALUE_INPUT,       /* graph input that is not an initializer */
    OC_VALUE_INITIALIZER, /* weight or constant stored in the file  */
    OC_VALUE_NODE,        /* output of a node                       */
    OC_VALUE_OUTER,       /* a subgraph's reference to a value of an
                             enclosing graph (see `outer`)           */
};

struct oc_value {
    const char *name;
    enum oc_value_kind kind;
    int32_t dtype;           /* ONNX data type code, 0 = unknown              */
    int32_t rank;            /* -1 = unknown                                  */
    struct oc_dim *dims;     /* rank entries                                  */
    int32_t producer;        /* node index, -1 for inputs and initializers    */
    int32_t n_consumers;     /* node inputs that read this value              */
    const void *tensor;      /* initializer TensorProto (proto boundary only) */
    const int64_t *ival;     /* known contents of an integer or bool tensor,
                                NULL if not known (fold.h)                    */
    int64_t n_ival;          /* number of elements in ival                    */
    const double *fval;      /* known contents of a float tensor, rounded to
                                its type; NULL if not known (fold.h)          */
    bool ival_tried;         /* contents already looked up in the file        */
    int32_t param_of;        /* initializer this value aliases, -1 if none    */
    bool external;           /* initializer with data_location = EXTERNAL     */
    bool overridable;        /* initializer also listed as a graph input: a
                                default a caller may feed another value for  */
    bool is_graph_output;
    struct oc_value *outer;  /* OC_VALUE_OUTER: the enclosing graph's value   */
    /* type declared by graph.input/output or value_info, used for nodes
     * without a shape rule */
    bool declared;
    int32_t decl_dtype;
    int32_t decl_rank;
    struct oc_dim *decl_dims;
    /* sequence or optional value (see struct oc_ntype), NULL for a tensor */
    const struct oc_ntype *nt;
    const struct oc_ntype *decl_nt;
};

struct oc_node {
    const char *name;        /* may be "" in the file                         */
    const char *op_type;
    const char *domain;      /* "" for the default ai.onnx domain             */
    int32_t index;           /* position in the file                          */
    int32_t n_in, n_out;
    int32_t *in, *out;       /* value indices; -1 for an omitted optional one */
    int32_t n_implicit;      /* values of this graph its subgraphs read       */
    int32_t *implicit;
    const void *proto;       /* NodeProto, for attr.c                         */
    int64_t opset;           /* opset version of the node's domain, 0 if none */
    const struct oc_op_def *def; /* registry row, NULL when none applies      */
    int32_t def_earliest;    /* def NULL: earliest registered version of the
                                op when the model's opset predates it, else 0 */
    enum oc_status status;   /* OC_OK, or why shapes/cost are missing         */
    const char *reason;      /* one-line reason when status != OC_OK          */
    bool upstream;           /* status != OC_OK only because an input's shape
                                is unknown (a node before it is the cause)    */
    bool is_call;            /* calls a model-local function (FunctionProto) */
    const struct oc_node *caller; /* inside a function body: the call node,
                                     whose attributes ref_attr_name refers to */
    struct oc_cost cost;
    uint64_t activation_bytes; /* bytes of this node's outputs in their dtypes  */
    uint64_t params;         /* float initializer elements attributed here    */
    uint64_t param_bytes;
    uint64_t nontrainable_params;
    bool shares_params;      /* reads a parameter attributed to an earlier node */
};

struct oc_opset {
    const char *domain;
    int64_t version;
};

struct oc_graph {
    const struct oc_model *model;
    const struct oc_graph *parent; /* enclosing graph of a subgraph, or NULL */
    int32_t depth;                 /* 0 for the main graph                   */
    struct oc_arena *arena;
    int32_t n_values;
    struct oc_value *values;
    int32_t n_nodes;
    struct oc_node *nodes;   /* file order                                    */
    int32_t *order;          /* topological order: node indices               */
    int32_t n_inputs, n_outputs, n_inits;
    int32_t *inputs;         /* graph inputs that are not initializers        */
    int32_t *outputs;
    int32_t *inits;
    int32_t n_opsets;
    struct oc_opset *opsets;
    int64_t ir_version;
    const char *producer_name, *producer_version, *graph_name;
    int32_t price_bits;      /* --dtype: bits of every float element, 0 = own */
    int64_t *fold_left;      /* elements value folding may still produce in
                                this analysis (shared with subgraphs; fold.h) */
    bool fold_any_size;      /* oc_analyze_opts.fold_any_size (tests)          */
    uint32_t hcap;           /* name index (open addressing)                  */
    struct oc_name_slot {
        int32_t v;           /* value index, -1 for a free slot               */
        uint32_t hash;       /* hash of the value's name                      */
    } *htab;
};

/* Builds and validates the graph of a loaded model. On error the message in
 * d names the node or value at fault. */
enum oc_status oc_graph_build(const struct oc_model *m, struct oc_arena *a, struct oc_graph **out,
                              struct oc_diag *d);

/* Builds the body of a control-flow node (If/Loop/Scan): graph_proto is
 * the GraphProto of one of its attributes. Names of enclosing graphs are
 * visible: each one read becomes an OC_VALUE_OUTER value. */
enum oc_status oc_graph_build_sub(const struct oc_graph *parent, const void *graph_proto, struct oc_arena *a,
                                  struct oc_graph **out, struct oc_diag *d);

/* The model-local function (FunctionProto) a node of (domain, op_type)
 * calls, or NULL. */
const void *oc_graph_find_function(const struct oc_graph *g, const char *domain, const char *op_type);
/* Builds the body of a function call: formal inputs untyped (the caller binds
 * them), the function's own opset imports (else the model's); every body
 * node's `caller` is `call`. Function bodies see no enclosing names. */
enum oc_status oc_graph_build_function(const struct oc_graph *parent, const void *function_proto,
                                       const struct oc_node *call, struct oc_arena *a, struct oc_graph **out,
                                       struct oc_diag *d);

/* Value index of a name, -1 if none. */
int32_t oc_graph_find(const struct oc_graph *g, const char *name);
/* The first node named name (a linear scan: for matching a few result
 * records to the graph), NULL if none or name is NULL. */
const struct oc_node *oc_graph_node_named(const struct oc_graph *g, const char *name);
/* Opset version imported for a domain ("" or "ai.onnx" = default), 0 if none. */
int64_t oc_graph_opset(const struct oc_graph *g, const char *domain);
/* The readers of each value of g: node indices (*adj)[(*start)[v] ..
 * (*start)[v + 1]), each node once per input that reads v, in node order;
 * with implicit, a node's subgraphs' reads of g's values too. Both arrays
 * malloc'd (the caller frees them); false when out of memory (both NULL). */
bool oc_graph_readers(const struct oc_graph *g, bool implicit, int32_t **start, int32_t **adj);
/* True when n is op_type of the default (ai.onnx) domain. */
bool oc_node_is(const struct oc_node *n, const char *op_type);
/* "'name' (Op)" or "#index (Op)" for unnamed nodes; into buf. */
const char *oc_node_label(const struct oc_node *n, char *buf, size_t size);

/* Elements of a value (product of dims). false when a dim is unknown or the
 * product overflows (then *n = 0 / UINT64_MAX). */
bool oc_value_numel(const struct oc_value *v, uint64_t *n);
/* Bytes of a value in its dtype (of a sequence: of all its tensors; of an
 * optional: of what it holds, 0 when empty); false when unknown. */
bool oc_value_bytes(const struct oc_value *v, uint64_t *bytes);
/* True when a value's type is fully known: a tensor's every dim; a
 * sequence's length (its tensors' dims may differ, so they need not be
 * known); an optional's presence and, when present, what it holds. */
bool oc_value_known(const struct oc_value *v);
/* Reads a TypeProto (TYPE_PROTO attribute, e.g. Optional's `type`) into a
 * tensor type (dtype/rank/dims) or, for a sequence or optional, *nt. `what`
 * and `name` label error messages. Unmodelled types leave all unknown. */
enum oc_status oc_type_from_proto(struct oc_arena *a, const void *type_proto, const char *what, const char *name,
                                  int32_t *dtype, int32_t *rank, struct oc_dim **dims,
                                  const struct oc_ntype **nt, struct oc_diag *d);
/* Same, with float elements priced at g->price_bits when set (--dtype). */
bool oc_value_bytes_priced(const struct oc_graph *g, const struct oc_value *v, uint64_t *bytes);
/* Same, but a tensor of known shape whose element or byte count passes 64
 * bits gives UINT64_MAX and sets *saturated: false only when the size is not
 * known, never 0 for a huge tensor. */
bool oc_value_bytes_saturating(const struct oc_graph *g, const struct oc_value *v, uint64_t *bytes,
                               bool *saturated);

#endif
