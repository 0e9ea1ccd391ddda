/*
 * ops.h — the operator registry and the contract of a shape/cost rule.
 *
 * analyzer/ops.def holds one row per operator VERSION whose shape or cost
 * semantics differ. Lookup takes the row with the largest since_version
 * that is <= the model's opset for the node's domain (read from the file).
 * The driver (analyze.c) checks input/output counts against the row before
 * calling `infer`, so rules never repeat that check.
 *
 * A rule's `infer` fills each output's dtype and dims (and, for integer
 * tensors that shapes depend on, their values). It returns:
 *   OC_OK              outputs set;
 *   OC_ERR_SHAPE       an input's shape or value is unknown: outputs stay
 *                      unknown, the node is listed, analysis continues;
 *   OC_ERR_UNSUPPORTED a form of the op onnxcost does not model (listed);
 *   OC_ERR_MODEL       the node is invalid (wrong attribute type,
 *                      incompatible shapes): the analysis stops with the
 *                      message written to ctx->diag.
 * A rule's `cost` is called only when every input and output shape is
 * known; it fills macs and flops (bytes are computed by the driver).
 */
#ifndef OC_OPS_H
#define OC_OPS_H

#include "graph.h"

struct oc_op_ctx;
struct oc_subgraph;
/* The driver's analysis of a control-flow body (see oc_subgraph_run). */
typedef enum oc_status (*oc_subgraph_fn)(struct oc_op_ctx *c, const char *attr, int32_t n_bind,
                                         const struct oc_value *const *bind, struct oc_subgraph *out);

/* A warning of the analysis about the node (an assumption a rule made),
 * prefixed with the node's label by the driver. */
typedef enum oc_status (*oc_note_fn)(struct oc_op_ctx *c, const char *text);

struct oc_op_ctx {
    struct oc_graph *g;
    struct oc_node *node;
    struct oc_arena *arena;
    struct oc_diag *diag;  /* the node's message; the driver adds the node label  */
    void *driver;          /* the analysis run, opaque to rules                    */
    oc_subgraph_fn subgraph; /* set by the driver: rules call back through it,
                                never into analyze.c by name                       */
    oc_note_fn note;         /* likewise                                           */
};

typedef enum oc_status (*oc_infer_fn)(struct oc_op_ctx *c);
typedef enum oc_status (*oc_cost_fn)(struct oc_op_ctx *c, struct oc_cost *cost);
/* Fills the outputs' contents from the inputs' known contents (fold.h). The
 * driver calls it after `infer` succeeded, only when every output's shape
 * and every present input's contents are known (input 0's alone with
 * OC_OPF_FOLD_INPUT0). It returns OC_OK whether or
 * not it folded (a value it cannot compute stays unknown); only OC_ERR_NOMEM
 * stops the analysis. */
typedef enum oc_status (*oc_fold_fn)(struct oc_op_ctx *c);

enum oc_op_flag {
    OC_OPF_NONE = 0,
    OC_OPF_ALIAS = 1u << 0,          /* output 0 is a view of input 0: no new bytes     */
    OC_OPF_NEEDS_CONST = 1u << 1,    /* output shape needs an input's integer values    */
    OC_OPF_DATA_DEPENDENT = 1u << 2, /* output shape depends on run-time data           */
    OC_OPF_META_ONLY = 1u << 3,      /* reads only its input's shape (Shape, Size)      */
    OC_OPF_NONTENSOR = 1u << 4,      /* accepts sequence/optional inputs (struct
                                        oc_ntype); without it the driver marks a node
                                        fed one unsupported and does not call infer     */
    OC_OPF_FOLD_INPUT0 = 1u << 5,    /* the fold reads only input 0's contents (the
                                        others give a type): the driver does not wait
                                        for theirs (CastLike)                           */
};

#define OC_VARIADIC 0x7fffffff

struct oc_op_def {
    const char *domain;    /* "" = ai.onnx                                         */
    const char *op_type;
    int32_t since_version;
    int32_t n_in_min, n_in_max;
    int32_t n_out_min, n_out_max;
    uint32_t flags;        /* enum oc_op_flag bits                                 */
    uint32_t buffers;      /* bit i: input i is a buffer (running mean/var), not a
                              trainable parameter                                  */
    oc_infer_fn infer;
    oc_cost_fn cost;
    oc_fold_fn fold;       /* oc_fold_none: the op's outputs are never folded      */
};

/* Row for (domain, op_type) at `opset`, NULL when none. *earliest (optional)
 * receives the earliest registered version when the op is known but the
 * opset predates it, else 0. */
const struct oc_op_def *oc_op_find(const char *domain, const char *op_type, int64_t opset,
                                   int32_t *earliest);
/* Sets every node's registry row (node->def, def_earliest) of a graph just
 * built: rows depend only on (domain, op_type, opset), so once per build,
 * not per run. */
void oc_op_resolve(struct oc_graph *g);
size_t oc_op_count(void);
const struct oc_op_def *oc_op_at(size_t i);

/* ---- helpers for rules ---------------------------------------------------- */

/* Input i, or NULL when absent (omitted optional or beyond the node's count). */
struct oc_value *oc_in(const struct oc_op_ctx *c, int32_t i);
/* Output i, or NULL when omitted. */
struct oc_value *oc_out(const struct oc_op_ctx *c, int32_t i);
/* Number of inputs as written in the node (omitted ones included). */
int32_t oc_n_in(const struct oc_op_ctx *c);

/* Sets output i's type; dims are copied. No-op for an omitted output. */
enum oc_status oc_set_out(struct oc_op_ctx *c, int32_t i, int32_t dtype, int32_t rank,
                          const struct oc_dim *dims);
/* Sets output i to a sequence or optional type (nt is shared, not copied; it
 * must live in the arena). No-op for an omitted output. */
enum oc_status oc_set_out_nt(struct oc_op_ctx *c, int32_t i, const struct oc_ntype *nt);
/* Sets output i to v's type, whatever its kind (tensor dims copied). */
enum oc_status oc_set_out_like(struct oc_op_ctx *c, int32_t i, const struct oc_value *v);
/* Same with plain int64 dims. */
enum oc_status oc_set_out_i64(struct oc_op_ctx *c, int32_t i, int32_t dtype, int32_t rank,
                              const int64_t *dims);
/* Attaches known integer contents to output i (copied). */
enum oc_status oc_set_ints(struct oc_op_ctx *c, int32_t i, const int64_t *v, int64_t n);
/* Integer contents of input i, NULL when not known (an empty tensor has known,
 * empty contents: non-NULL with *n = 0). */
const int64_t *oc_in_ints(const struct oc_op_ctx *c, int32_t i, int64_t *n);
/* Contents of a small floating-point (or integer) input i as doubles, from an
 * initializer or a Constant node; NULL when not known. Arena-allocated. */
const double *oc_in_floats(const struct oc_op_ctx *c, int32_t i, int64_t *n);
/* True when v has a known rank and every dim is known. */
bool oc_shape_known(const struct oc_value *v);
/* Elements of input/output; 0 when unknown. */
uint64_t oc_numel(const struct oc_value *v);

/* A control-flow body, analyzed. */
struct oc_subgraph {
    struct oc_graph *g;   /* the body with its inferred shapes              */
    struct oc_cost cost;  /* sum over the body's nodes with a known cost    */
    bool complete;        /* every node of the body has a known cost        */
};
/* Builds the GRAPH attribute `attr` of the node, gives its first n_bind formal
 * inputs the types of bind[i] (NULL keeps the declared type) and analyzes it
 * with enclosing names visible. Fatal errors inside are reported against the
 * node. */
static inline enum oc_status oc_subgraph_run(struct oc_op_ctx *c, const char *attr, int32_t n_bind,
                                             const struct oc_value *const *bind, struct oc_subgraph *out) {
    return c->subgraph(c, attr, n_bind, bind, out);
}

/* Shorthand for an error message on the node's diag. */
#define OC_FAIL(c, code, ...) oc_diag_set((c)->diag, (code), __VA_ARGS__)

/* ---- rules ----------------------------------------------------------------------
 * Rules live in analyzer/ops/<family>.c. Their declarations are generated from
 * ops.def (analyzer/ops/rules.h), so adding an op is one row in ops.def plus its
 * function pair: no header to edit. */
#define OC_RULE(fn) enum oc_status fn(struct oc_op_ctx *c)
#define OC_COST(fn) enum oc_status fn(struct oc_op_ctx *c, struct oc_cost *cost)
#define OC_FOLD(fn) enum oc_status fn(struct oc_op_ctx *c)
/* The fold of rows whose outputs are never folded. */
OC_FOLD(oc_fold_none);

/* ---- helpers for fold functions (see fold.h) ------------------------------------ */
struct oc_known;
struct oc_fold_out;
/* Input i's known contents; false when absent or not known. */
bool oc_fold_in(const struct oc_op_ctx *c, int32_t i, struct oc_known *k);
/* Starts filling output i (false: it cannot be folded, leave it). */
bool oc_fold_out(struct oc_op_ctx *c, int32_t i, struct oc_fold_out *o);
/* Output i's contents from the float-list attribute `name`, one value per
 * element converted to the output's type; nothing when the attribute is
 * absent, malformed or of another length. */
void oc_fold_attr_floats(struct oc_op_ctx *c, int32_t i, const char *name);

#endif
