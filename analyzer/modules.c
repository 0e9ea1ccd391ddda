/*
 * modules.c — scope grouping of nodes (see modules.h).
 */
#include "modules.h"

#include "symbolic.h"

#include <stdlib.h>
#include <string.h>

/* Length of the first k path components of a node name ("/a/b/c/Op": the
 * module path is "a/b/c"); 0 when the name has no scope. *got = components. */
static size_t oc_scope_prefix(const char *name, int32_t k, int32_t *got, const char **start) {
    const char *p = name;
    while (*p == '/')
        p++;
    *start = p;
    const char *last = strrchr(p, '/');
    *got = 0;
    if (!last)
        return 0;
    size_t len = 0;
    for (const char *q = p; q < last && *got < k;) {
        const char *slash = memchr(q, '/', (size_t)(last - q));
        const char *end = slash ? slash : last;
        (*got)++;
        len = (size_t)(end - p);
        q = end + 1;
    }
    return len;
}

struct oc_mod_build {
    struct oc_module *mods;
    int32_t n, cap;
    int32_t *parent;
};

static int32_t oc_mod_find(struct oc_mod_build *b, const char *path, size_t len) {
    for (int32_t i = b->n - 1; i >= 0; i--) /* recent modules first: nodes run module by module */
        if (strlen(b->mods[i].path) == len && memcmp(b->mods[i].path, path, len) == 0)
            return i;
    return -1;
}

static int oc_cmp_i32(const void *a, const void *b) {
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return x < y ? -1 : x > y;
}

enum oc_status oc_modules_build(struct oc_analysis *an, int32_t depth, struct oc_module **out, int32_t *n,
                                struct oc_diag *d) {
    const struct oc_graph *g = an->graph;
    struct oc_arena *a = &an->arena;
    struct oc_mod_build b = {0};
    *out = NULL;
    *n = 0;
    if (depth < 1)
        return oc_diag_set(d, OC_ERR_USAGE, "depth must be at least 1");
    int32_t *mod_of = malloc(((size_t)g->n_nodes * (size_t)depth + 1) * sizeof *mod_of);
    if (!mod_of) {
        return oc_diag_set(d, OC_ERR_NOMEM, "out of memory");
    }
    enum oc_status st = OC_OK;
    for (int32_t i = 0; i < g->n_nodes && st == OC_OK; i++) {
        int32_t ni = g->order[i];
        const struct oc_node *nd = &g->nodes[ni];
        int32_t got;
        const char *start;
        oc_scope_prefix(nd->name, depth, &got, &start);
        for (int32_t k = 1; k <= depth; k++) {
            mod_of[(size_t)ni * (size_t)depth + (size_t)(k - 1)] = -1;
            if (k > (got ? got : 1))
                continue;
            int32_t kk;
            size_t len = got ? oc_scope_prefix(nd->name, k, &kk, &start) : 0;
            const char *path = got ? start : "(top level)";
            if (!got)
                len = strlen(path);
            int32_t m = oc_mod_find(&b, path, len);
            if (m < 0) {
                if (b.n == b.cap) {
                    int32_t cap = b.cap ? 2 * b.cap : 64;
                    struct oc_module *nm = realloc(b.mods, (size_t)cap * sizeof *nm);
                    int32_t *np = realloc(b.parent, (size_t)cap * sizeof *np);
                    if (!nm || !np) {
                        b.mods = nm ? nm : b.mods;
                        b.parent = np ? np : b.parent;
                        st = oc_diag_set(d, OC_ERR_NOMEM, "out of memory");
                        break;
                    }
                    b.mods = nm;
                    b.parent = np;
                    b.cap = cap;
                }
                char *p = oc_arena_alloc(a, len + 1);
                if (!p) {
                    st = oc_diag_set(d, OC_ERR_NOMEM, "out of memory");
                    break;
                }
                memcpy(p, path, len);
                p[len] = 0;
                m = b.n++;
                b.mods[m] = (struct oc_module){.path = p, .depth = got ? k : 1, .first_node = ni};
                b.parent[m] = k > 1 ? mod_of[(size_t)ni * (size_t)depth + (size_t)(k - 2)] : -1;
            }
            mod_of[(size_t)ni * (size_t)depth + (size_t)(k - 1)] = m;
            struct oc_module *mm = &b.mods[m];
            uint32_t fl = 0;
            mm->n_nodes++;
            oc_sum_u64(&mm->params, nd->params, &fl);
            oc_sum_u64(&mm->activation_bytes, nd->activation_bytes, &fl);
            if (nd->cost.flags & OC_COST_UNKNOWN) {
                mm->n_uncosted++;
            } else {
                oc_sum_u64(&mm->macs, nd->cost.macs, &fl);
                oc_sum_u64(&mm->flops, nd->cost.flops, &fl);
            }
        }
    }
    if (st == OC_OK) {
        /* node lists, then tree order: depth-first from the roots, children by first execution */
        for (int32_t m = 0; m < b.n && st == OC_OK; m++) {
            b.mods[m].nodes = oc_arena_array(a, (size_t)b.mods[m].n_nodes + 1, sizeof *b.mods[m].nodes);
            if (!b.mods[m].nodes)
                st = oc_diag_set(d, OC_ERR_NOMEM, "out of memory");
            b.mods[m].n_nodes = 0;
        }
        for (int32_t i = 0; i < g->n_nodes && st == OC_OK; i++) {
            int32_t ni = g->order[i];
            for (int32_t k = 0; k < depth; k++) {
                int32_t m = mod_of[(size_t)ni * (size_t)depth + (size_t)k];
                if (m >= 0)
                    b.mods[m].nodes[b.mods[m].n_nodes++] = ni;
            }
        }
        struct oc_module *sorted = oc_arena_array(a, (size_t)b.n + 1, sizeof *sorted);
        int32_t *stack = malloc(((size_t)b.n + 1) * sizeof *stack), *kids = malloc(((size_t)b.n + 1) * sizeof *kids);
        if (st == OC_OK && (!sorted || !stack || !kids))
            st = oc_diag_set(d, OC_ERR_NOMEM, "out of memory");
        if (st == OC_OK) {
            /* creation order already follows first execution; emit each root's subtree */
            int32_t k = 0;
            for (int32_t r = 0; r < b.n; r++) {
                if (b.parent[r] >= 0)
                    continue;
                int32_t sp = 0;
                stack[sp++] = r;
                while (sp) {
                    int32_t m = stack[--sp];
                    sorted[k++] = b.mods[m];
                    int32_t nk = 0;
                    for (int32_t c = 0; c < b.n; c++)
                        if (b.parent[c] == m)
                            kids[nk++] = c;
                    qsort(kids, (size_t)nk, sizeof *kids, oc_cmp_i32);
                    for (int32_t c = nk - 1; c >= 0; c--) /* first child on top */
                        stack[sp++] = kids[c];
                }
            }
            *out = sorted;
            *n = k;
        }
        free(stack);
        free(kids);
    }
    free(mod_of);
    free(b.mods);
    free(b.parent);
    return st;
}

enum oc_status oc_modules_symbolic(struct oc_symbolic *s, struct oc_module *mods, int32_t n) {
    for (int32_t m = 0; m < n; m++) {
        const struct oc_poly **ps = malloc(((size_t)mods[m].n_nodes + 1) * sizeof *ps);
        if (!ps)
            return OC_ERR_NOMEM;
        for (int32_t i = 0; i < mods[m].n_nodes; i++)
            ps[i] = s->nodes[mods[m].nodes[i]].macs;
        mods[m].macs_poly = oc_poly_sum(s, ps, mods[m].n_nodes);
        for (int32_t i = 0; i < mods[m].n_nodes; i++)
            ps[i] = s->nodes[mods[m].nodes[i]].flops;
        mods[m].flops_poly = oc_poly_sum(s, ps, mods[m].n_nodes);
        free(ps);
    }
    return OC_OK;
}
