/*
 * modules.h — group nodes into the modules their names record.
 *
 * Exporters name nodes by module scope: "/layer1/layer1.0/conv1/Conv",
 * "/transformer/h.0/attn/c_attn/MatMul". The path before the last component
 * is the node's module; --depth N keeps the first N components, like
 * torchinfo's depth. Every prefix of length 1..N becomes a row with the
 * subtotals of the nodes under it, in order of first execution, so the rows
 * read as a tree. Nodes whose names carry no scope are grouped under
 * "(top level)".
 */
#ifndef OC_MODULES_H
#define OC_MODULES_H

#include "analyze.h"

struct oc_module {
    const char *path;      /* "transformer/h.0" (no leading '/'), arena-owned */
    int32_t depth;         /* number of components, 1..N                     */
    int32_t first_node;    /* node index (file order) that first runs in it  */
    int32_t n_nodes;
    int32_t n_uncosted;    /* nodes whose cost is unknown (not in the sums)  */
    uint64_t params, macs, flops, activation_bytes;
    int32_t *nodes;        /* the node indices, in execution order           */
    const struct oc_poly *macs_poly, *flops_poly; /* formulas (oc_modules_symbolic) */
    bool formulas_proven;  /* every node's formula proven (symbolic.h)       */
};

struct oc_symbolic;

/* Modules up to `depth` (>= 1), in tree order (a module right after its
 * parent, siblings in order of first execution). Owned by an's arena. */
enum oc_status oc_modules_build(struct oc_analysis *an, int32_t depth, struct oc_module **out, int32_t *n,
                                struct oc_diag *d);

/* Sums the node formulas of each module (NULL where a node has none). */
enum oc_status oc_modules_symbolic(struct oc_symbolic *s, struct oc_module *mods, int32_t n);

#endif
