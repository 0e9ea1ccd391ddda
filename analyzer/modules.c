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
    size_t *len;      /* strlen of each module's path                   */
    int32_t *htab;    /* module index by path (open addressing), -1 free */
    uint32_t hcap;    /* power of two, kept above twice the module count */
};

static uint32_t oc_path_hash(const char *p, size_t len) {
    return oc_fnv1a(OC_FNV_INIT, p, len);
}

/* Module with this path, -1 if none: one hash probe sequence, so a graph
 * of many distinct scopes stays linear. */
static int32_t oc_mod_find(const struct oc_mod_build *b, const char *path, size_t len) {
    if (!b->hcap)
        return -1;
    for (uint32_t h = oc_path_hash(path, len) & (b->hcap - 1);; h = (h + 1) & (b->hcap - 1)) {
        int32_t m = b->htab[h];
        if (m < 0)
            return -1;
        if (b->len[m] == len && memcmp(b->mods[m].path, path, len) == 0)
            return m;
    }
}

/* Room for one more module (arrays and index). */
static bool oc_mod_reserve(struct oc_mod_build *b) {
    if (b->n == b->cap) {
        int32_t cap = b->cap ? 2 * b->cap : 64;
        struct oc_module *nm = realloc(b->mods, (size_t)cap * sizeof *nm);
        if (nm)
            b->mods = nm;
        int32_t *np = realloc(b->parent, (size_t)cap * sizeof *np);
        if (np)
            b->parent = np;
        size_t *nl = realloc(b->len, (size_t)cap * sizeof *nl);
        if (nl)
            b->len = nl;
        if (!nm || !np || !nl)
            return false;
        b->cap = cap;
    }
    if ((uint32_t)(b->n + 1) * 2 >= b->hcap) {
        uint32_t hcap = b->hcap ? 2 * b->hcap : 256;
        int32_t *t = malloc((size_t)hcap * sizeof *t);
        if (!t)
            return false;
        memset(t, 0xff, (size_t)hcap * sizeof *t);
        for (int32_t m = 0; m < b->n; m++) {
            uint32_t h = oc_path_hash(b->mods[m].path, b->len[m]) & (hcap - 1);
            while (t[h] >= 0)
                h = (h + 1) & (hcap - 1);
            t[h] = m;
        }
        free(b->htab);
        b->htab = t;
        b->hcap = hcap;
    }
    return true;
}

static void oc_mod_index(struct oc_mod_build *b, int32_t m) {
    uint32_t h = oc_path_hash(b->mods[m].path, b->len[m]) & (b->hcap - 1);
    while (b->htab[h] >= 0)
        h = (h + 1) & (b->hcap - 1);
    b->htab[h] = m;
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
                char *p = oc_mod_reserve(&b) ? oc_arena_alloc(a, len + 1) : NULL;
                if (!p) {
                    st = oc_diag_set(d, OC_ERR_NOMEM, "out of memory");
                    break;
                }
                memcpy(p, path, len);
                p[len] = 0;
                m = b.n++;
                b.mods[m] = (struct oc_module){.path = p, .depth = got ? k : 1, .first_node = ni};
                b.len[m] = len;
                b.parent[m] = k > 1 ? mod_of[(size_t)ni * (size_t)depth + (size_t)(k - 2)] : -1;
                oc_mod_index(&b, m);
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
        /* children of each module, in creation order (= first execution): a
         * counting sort by parent, so the tree is built in linear time */
        int32_t *stack = malloc(((size_t)b.n + 1) * sizeof *stack);
        int32_t *kid_at = calloc((size_t)b.n + 2, sizeof *kid_at), *kids = malloc(((size_t)b.n + 1) * sizeof *kids);
        if (st == OC_OK && (!sorted || !stack || !kid_at || !kids))
            st = oc_diag_set(d, OC_ERR_NOMEM, "out of memory");
        if (st == OC_OK) {
            for (int32_t c = 0; c < b.n; c++)
                if (b.parent[c] >= 0)
                    kid_at[b.parent[c] + 1]++;
            for (int32_t m = 0; m < b.n; m++)
                kid_at[m + 1] += kid_at[m];
            int32_t *fill = stack; /* scratch: next free slot per parent */
            memcpy(fill, kid_at, (size_t)b.n * sizeof *fill);
            for (int32_t c = 0; c < b.n; c++)
                if (b.parent[c] >= 0)
                    kids[fill[b.parent[c]]++] = c;
            /* emit each root's subtree depth-first, first child first */
            int32_t k = 0;
            for (int32_t r = 0; r < b.n; r++) {
                if (b.parent[r] >= 0)
                    continue;
                int32_t sp = 0;
                stack[sp++] = r;
                while (sp) {
                    int32_t m = stack[--sp];
                    sorted[k++] = b.mods[m];
                    for (int32_t c = kid_at[m + 1] - 1; c >= kid_at[m]; c--)
                        stack[sp++] = kids[c];
                }
            }
            *out = sorted;
            *n = k;
        }
        free(stack);
        free(kid_at);
        free(kids);
    }
    free(mod_of);
    free(b.mods);
    free(b.parent);
    free(b.len);
    free(b.htab);
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
        mods[m].formulas_proven = s->node_proven != NULL;
        for (int32_t i = 0; i < mods[m].n_nodes && mods[m].formulas_proven; i++)
            mods[m].formulas_proven = s->node_proven[mods[m].nodes[i]];
    }
    return OC_OK;
}
