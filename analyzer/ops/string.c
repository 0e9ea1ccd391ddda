/*
 * ops/string.c — the string ops of the default domain (StringConcat,
 * RegexFullMatch, StringNormalizer, StringSplit) and TfIdfVectorizer.
 *
 * Shapes follow the ONNX spec and ONNX Runtime's kernels. StringNormalizer
 * with stopwords and StringSplit have an output size that depends on the
 * strings themselves: the size is set when it is forced (an empty or
 * one-element input, maxsplit = 0 with a delimiter) and otherwise left
 * OC_DIM_UNKNOWN (the rows carry OC_OPF_DATA_DEPENDENT). onnxcost reads no
 * string tensor contents, so a constant string input does not help.
 *
 * Costs: the string ops do no floating-point work (byte copies, case
 * mapping, regex matching, splitting): 0 FLOPs; their bytes are counted by
 * the driver (strings count 0 bytes, their size is not in the file).
 * TfIdfVectorizer: the n-gram extraction and pool look-ups are integer or
 * string hashing, not floating-point work, and are not counted; the
 * weighting is: TF 0 (the counts are converted), IDF numel(Y) (count > 0 ?
 * weight : 0, one select per output), TFIDF numel(Y) (count × weight).
 */
#include "../attr.h"
#include "../dtype.h"
#include "../shape.h"
#include "rules.h"

#include <string.h>

enum { OC_STR_MAX_RANK = 1024 };

static struct oc_dim *oc_str_dims(struct oc_op_ctx *c, int64_t n) {
    if (n < 0 || n > OC_STR_MAX_RANK) {
        OC_FAIL(c, OC_ERR_UNSUPPORTED, "rank %lld over the limit %d", (long long)n, OC_STR_MAX_RANK);
        return NULL;
    }
    struct oc_dim *d = oc_arena_array(c->arena, (size_t)n + 1, sizeof *d);
    if (!d)
        OC_FAIL(c, OC_ERR_NOMEM, "out of memory");
    return d;
}

/* StringConcat: Z = X + Y elementwise, numpy broadcasting, string out. */
OC_RULE(oc_string_concat_infer) {
    const struct oc_value *x = oc_in(c, 0), *y = oc_in(c, 1);
    if (!x || x->rank < 0 || !y || y->rank < 0)
        return OC_ERR_SHAPE;
    int32_t r = x->rank > y->rank ? x->rank : y->rank, ro;
    struct oc_dim *out = oc_str_dims(c, r);
    if (!out)
        return c->diag->code;
    if (oc_broadcast(x->dims, x->rank, y->dims, y->rank, out, &ro) != OC_OK)
        return OC_FAIL(c, OC_ERR_MODEL, "inputs X and Y cannot be broadcast together");
    return oc_set_out(c, 0, OC_DT_STRING, ro, out);
}

/* RegexFullMatch: a bool per input string. The pattern is not checked
 * (RE2 syntax is the runtime's business). */
OC_RULE(oc_regex_full_match_infer) {
    const struct oc_value *x = oc_in(c, 0);
    if (!x || x->rank < 0)
        return OC_ERR_SHAPE;
    return oc_set_out(c, 0, OC_DT_BOOL, x->rank, x->dims);
}

/* StringNormalizer: X is [C] or [1, C]; Y is [C'] or [1, C'] with C' the
 * strings left after removing the stopwords (C' = C without stopwords), and
 * [1] / [1, 1] holding "" when every string is removed (an empty X too).
 * With stopwords C' is known only for C <= 1 (one string is kept or
 * replaced by ""). */
OC_RULE(oc_string_normalizer_infer) {
    const struct oc_value *x = oc_in(c, 0);
    if (!x || x->rank < 0)
        return OC_ERR_SHAPE;
    if (x->rank != 1 && x->rank != 2)
        return OC_FAIL(c, OC_ERR_MODEL, "input X must be [C] or [1, C], it has rank %d", x->rank);
    if (x->rank == 2 && x->dims[0].value >= 0 && x->dims[0].value != 1)
        return OC_FAIL(c, OC_ERR_MODEL, "input X must be [C] or [1, C], its first dim is %lld",
                       (long long)x->dims[0].value);
    char action[8];
    enum oc_status st = oc_attr_string(c->node, "case_change_action", "NONE", action, sizeof action, c->diag);
    if (st != OC_OK)
        return st;
    if (strcmp(action, "NONE") != 0 && strcmp(action, "LOWER") != 0 && strcmp(action, "UPPER") != 0)
        return OC_FAIL(c, OC_ERR_MODEL, "attribute 'case_change_action' is '%s', expected NONE, LOWER or UPPER",
                       action);
    char word[2];
    int64_t n_stop;
    if ((st = oc_attr_strings_at(c->node, "stopwords", -1, word, sizeof word, &n_stop, c->diag)) != OC_OK)
        return st;
    struct oc_dim d[2] = {{1, NULL}, x->dims[x->rank - 1]};
    int64_t cnt = d[1].value;
    if (cnt == 0)
        d[1] = (struct oc_dim){1, NULL};
    else if (n_stop > 0 && cnt != 1)
        d[1] = (struct oc_dim){OC_DIM_UNKNOWN, NULL};
    return oc_set_out(c, 0, OC_DT_STRING, x->rank, x->rank == 1 ? &d[1] : d);
}

/* StringSplit: Y = X.shape + [K], K = the largest number of substrings of
 * any element (shorter lists are padded with ""); Z = X.shape, int64, the
 * number of substrings of each element. K is 0 for an empty X and 1 when
 * maxsplit = 0 with a non-empty delimiter; otherwise it depends on the
 * strings. */
OC_RULE(oc_string_split_infer) {
    const struct oc_value *x = oc_in(c, 0);
    if (!x || x->rank < 0)
        return OC_ERR_SHAPE;
    char delim[1024];
    int64_t maxsplit;
    bool has_max = oc_attr_has(c->node, "maxsplit");
    enum oc_status st = oc_attr_int(c->node, "maxsplit", 0, &maxsplit, c->diag);
    if (st != OC_OK)
        return st;
    if (has_max && maxsplit < 0)
        return OC_FAIL(c, OC_ERR_MODEL, "attribute 'maxsplit' is %lld, must be >= 0", (long long)maxsplit);
    /* unset or "": split on runs of whitespace */
    if ((st = oc_attr_string(c->node, "delimiter", "", delim, sizeof delim, c->diag)) != OC_OK)
        return st;
    bool has_delim = delim[0] != 0;
    struct oc_dim *y = oc_str_dims(c, (int64_t)x->rank + 1);
    if (!y)
        return c->diag->code;
    memcpy(y, x->dims, (size_t)x->rank * sizeof *y);
    uint64_t n;
    int64_t k = OC_DIM_UNKNOWN;
    if (oc_value_numel(x, &n) && n == 0)
        k = 0;
    else if (has_max && maxsplit == 0 && has_delim)
        k = 1;
    y[x->rank] = (struct oc_dim){k, NULL};
    if ((st = oc_set_out(c, 0, OC_DT_STRING, x->rank + 1, y)) != OC_OK)
        return st;
    return oc_set_out(c, 1, OC_DT_INT64, x->rank, x->dims);
}

/* ---- TfIdfVectorizer ---------------------------------------------------------------- */

enum oc_tfidf_mode { OC_TFIDF_TF, OC_TFIDF_IDF, OC_TFIDF_TFIDF };

static enum oc_status oc_tfidf_mode(struct oc_op_ctx *c, enum oc_tfidf_mode *m) {
    char mode[8];
    if (!oc_attr_has(c->node, "mode"))
        return OC_FAIL(c, OC_ERR_MODEL, "required attribute 'mode' is missing");
    enum oc_status st = oc_attr_string(c->node, "mode", "", mode, sizeof mode, c->diag);
    if (st != OC_OK)
        return st;
    if (strcmp(mode, "TF") == 0)
        *m = OC_TFIDF_TF;
    else if (strcmp(mode, "IDF") == 0)
        *m = OC_TFIDF_IDF;
    else if (strcmp(mode, "TFIDF") == 0)
        *m = OC_TFIDF_TFIDF;
    else
        return OC_FAIL(c, OC_ERR_MODEL, "attribute 'mode' is '%s', expected TF, IDF or TFIDF", mode);
    return OC_OK;
}

/* Y = [max(ngram_indexes) + 1] for X = [C], [N, max + 1] for X = [N, C]; float. */
OC_RULE(oc_tfidf_infer) {
    const struct oc_value *x = oc_in(c, 0);
    enum oc_tfidf_mode mode;
    enum oc_status st = oc_tfidf_mode(c, &mode);
    if (st != OC_OK)
        return st;
    const int64_t *idx;
    int64_t n_idx;
    if ((st = oc_attr_ints(c->node, "ngram_indexes", &idx, &n_idx, c->diag)) != OC_OK)
        return st;
    if (n_idx == 0)
        return OC_FAIL(c, OC_ERR_MODEL, "attribute 'ngram_indexes' is missing or empty");
    int64_t mx = -1;
    for (int64_t i = 0; i < n_idx; i++) {
        if (idx[i] < 0)
            return OC_FAIL(c, OC_ERR_MODEL, "ngram_indexes[%lld] is negative", (long long)i);
        if (idx[i] > mx)
            mx = idx[i];
    }
    if (mx == INT64_MAX)
        return OC_FAIL(c, OC_ERR_MODEL, "ngram_indexes value too large");
    if (!x || x->rank < 0)
        return OC_ERR_SHAPE;
    if (x->rank != 1 && x->rank != 2)
        return OC_FAIL(c, OC_ERR_MODEL, "input X must be 1-D or 2-D, it has rank %d", x->rank);
    struct oc_dim d[2] = {x->dims[0], {mx + 1, NULL}};
    return oc_set_out(c, 0, OC_DT_FLOAT, x->rank, x->rank == 1 ? &d[1] : d);
}

/* TF 0, IDF and TFIDF one select or multiply per output element (see the
 * file comment: the n-gram matching is not floating-point work). */
OC_COST(oc_tfidf_cost) {
    enum oc_tfidf_mode mode;
    enum oc_status st = oc_tfidf_mode(c, &mode);
    if (st != OC_OK)
        return st;
    if (mode != OC_TFIDF_TF)
        oc_cost_add_flops(cost, oc_numel(oc_out(c, 0)), 1);
    return OC_OK;
}
