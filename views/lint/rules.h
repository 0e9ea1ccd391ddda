/*
 * rules.h — what the lint rules share (views/lint/, one file a family of
 * rules: weights/, graph/, fusion/, perf/, precision/ and model/, memory/,
 * coverage/; lint.c holds the table of rules and the run, finding.c what
 * records a finding): the run's context, the helpers that record a
 * finding and its saving, and each family's rule functions. Internal to
 * views/lint/.
 */
#ifndef OC_VIEWS_LINT_RULES_H
#define OC_VIEWS_LINT_RULES_H

#include "lint.h"
#include "../../views/training.h"

#include "../../analyzer/attr.h"
#include "../../analyzer/memory.h"
#include "../../analyzer/dtype.h"
#include "../../analyzer/model.h"
#include "../../analyzer/ops.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

/* The run's context: the analysis, the options, the findings so far and
   what the rules share about the graph. */
struct oc_lint_ctx {
    const struct oc_model *m;
    const struct oc_analysis *an;
    const struct oc_graph *g;
    const struct oc_lint_opts *o;
    struct oc_lint_result *out;
    int32_t cap;
    bool *implicit_read; /* per value: read by a subgraph of a main-graph node */
    bool *live;          /* per node: an output reaches a graph output        */
    bool *needed;        /* per value: read on the way to a graph output      */
    bool *biased;        /* per node: a contraction given a bias by a fold    */
    bool *removed;       /* per value: a weight a finding already removes or
                            shrinks: no other finding counts it again       */
    bool *folded;        /* per node: in a graph/constant-foldable region     */
    int32_t *rstart;     /* readers of each value: radj[rstart[v] .. rstart[v + 1]),
                            a node once per read (inputs and subgraph reads) */
    int32_t *radj;
    struct oc_diag *d;
};

/* A new finding of rule, its message from fmt; NULL when out of memory. */
struct oc_lint_finding *oc_lint_add(struct oc_lint_ctx *c, enum oc_lint_rule_id rule, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ---- the findings and their savings (finding.c) -------------------------------------------- */

/* Records value v, or node i, in f; false when out of memory. */
bool oc_lint_value(struct oc_lint_finding *f, int32_t v);
bool oc_lint_node(struct oc_lint_finding *f, int32_t i);

/* *a + b, stopping at the ends of int64 (counts from a hostile file's dims
   can be near them). */
void oc_lint_sat_i64(int64_t *a, int64_t b);

/* Weight v's bytes and parameters, with sign (+1 removed, -1 added), into
   f's saving. A weight removed is counted once over all findings: false
   (nothing added) when another finding has it already. */
bool oc_lint_saving_weight(struct oc_lint_ctx *c, struct oc_lint_finding *f, int32_t v, int sign);

/* A node's cost as what removing it saves. */
void oc_lint_node_saving(const struct oc_lint_ctx *c, int32_t i, struct oc_lint_saving *s);

/* A value's name for a message: "(unnamed)" where it has none. */
const char *oc_lint_vname(const struct oc_value *v);

/* A value's dims as "[a, b, c]" into buf. */
void oc_lint_shape_text(const struct oc_value *v, char *buf, size_t size);

/* t += s, each figure stopping at the ends of its type. */
void oc_lint_saving_add(struct oc_lint_saving *t, const struct oc_lint_saving *s);

/* ---- weights/ (weights.c) ------------------------------------------------------------------ */

/* Each family's rules: their findings added to c->out (the run calls the
   families whose rules are enabled); OC_OK, or OC_ERR_NOMEM. */
enum oc_status oc_rule_duplicates(struct oc_lint_ctx *c);

/* ---- graph/ (graph.c) ---------------------------------------------------------------------- */

enum oc_status oc_rule_unused(struct oc_lint_ctx *c);

/* Which nodes reach a graph output, and which values they read. */
void oc_lint_liveness(const struct oc_graph *g, bool *live, bool *needed);

enum oc_status oc_rule_dead(struct oc_lint_ctx *c);

/* A Cast of a float initializer to a narrower float: precision/cast-weights'. */
bool oc_lint_narrowing_cast(const struct oc_graph *g, const struct oc_node *n);

enum oc_status oc_rule_foldable(struct oc_lint_ctx *c);

/* Whether two values have the same known dims. */
bool oc_lint_same_shape(const struct oc_value *a, const struct oc_value *b);

/* Whether value v is stored in the file (an initializer, or a Constant's
   output): not computed at this binding. */
bool oc_lint_stored(const struct oc_graph *g, int32_t v);

/* Whether node n returns its first input unchanged, from its attributes and
   the known values of its other inputs. */
bool oc_lint_is_no_op(const struct oc_graph *g, const struct oc_node *n);

enum oc_status oc_rule_no_op(struct oc_lint_ctx *c);

/* The node reading value v, when it is the only reader (and reads it as an
   input, not from a subgraph) and v no graph output. */
int32_t oc_lint_only_reader(const struct oc_lint_ctx *c, int32_t v);

/* One finding per kind of pair: Transposes, and Casts through each type. */
enum oc_status oc_rule_cancelling(struct oc_lint_ctx *c);

/* ---- fusion/ (fusion.c) -------------------------------------------------------------------- */

enum oc_status oc_rule_fold_into_weights(struct oc_lint_ctx *c);

/* Every place attention is written out is one finding: a transformer's
   layers repeat it, and one line per layer says the same thing each time
   (the nodes are all listed; the figures are summed). */
enum oc_status oc_rule_attention(struct oc_lint_ctx *c);

/* ---- perf/ (perf.c) ------------------------------------------------------------------------ */

enum oc_status oc_rule_tc_alignment(struct oc_lint_ctx *c);

/* ---- precision/ and model/ (precision.c) --------------------------------------------------- */

enum oc_status oc_rule_precision(struct oc_lint_ctx *c);

/* ---- memory/ (memory.c) -------------------------------------------------------------------- */

enum oc_status oc_rule_peak(struct oc_lint_ctx *c);

/* ---- coverage/ (coverage.c) ---------------------------------------------------------------- */

/* One finding per node that has no cost of its own making (no rule, no
   shape); the nodes without a cost only because of it are counted in its
   message: they follow once it has a rule. */
enum oc_status oc_rule_no_cost(struct oc_lint_ctx *c);

#endif
