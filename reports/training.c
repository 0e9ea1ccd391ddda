/*
 * training.c — the training block (--optimizer) in words and its figures
 * under the rules the export's signs suggest, for every format: text,
 * Markdown and compare write oc_training_text's lines, HTML and compare
 * the alternatives' words, JSON the alternatives' objects.
 */
#include "report_impl.h"

#include <jansson.h>
#include <stdint.h>

void oc_saved_rule_flags(struct oc_sbuf *b, unsigned rules) {
    if (rules & OC_SAVED_FOLDED_BN)
        oc_sbuf_puts(b, " --folded-bn");
    if (rules & OC_SAVED_FUSED_POINTWISE)
        oc_sbuf_puts(b, " --fused-pointwise");
}

void oc_training_signs_text(struct oc_sbuf *b, const struct oc_export_signs *s, unsigned rule) {
    if (rule == OC_SAVED_FOLDED_BN) {
        oc_sbuf_printf(b, "if the %d Conv%s with a bias that no BatchNormalization reads carried folded "
                          "BatchNorms (an eval export folds each BatchNorm after a Conv into it)",
                       (int)s->biased_convs, s->biased_convs == 1 ? "" : "s");
        return;
    }
    oc_sbuf_printf(b, "if the %d written-out chain%s (", (int)s->chains, s->chains == 1 ? "" : "s");
    const char *sep = "";
    if (s->gelu_chains)
        oc_sbuf_printf(b, "%sGELU %d", sep, (int)s->gelu_chains), sep = ", ";
    if (s->norm_chains)
        oc_sbuf_printf(b, "%snormalization %d", sep, (int)s->norm_chains), sep = ", ";
    if (s->silu_chains)
        oc_sbuf_printf(b, "%sSiLU %d", sep, (int)s->silu_chains), sep = ", ";
    int32_t other = s->chains - s->gelu_chains - s->norm_chains - s->silu_chains;
    if (other)
        oc_sbuf_printf(b, "%sother %d", sep, (int)other);
    oc_sbuf_puts(b, ") each ran as one op (as torch.nn's GELU, SiLU and LayerNorm do)");
}

void oc_training_alt_text(struct oc_sbuf *b, const struct oc_training *tr, const struct oc_training_alt *a) {
    unsigned added = a->rules & ~tr->saved_rules;
    if (added == OC_SAVED_FOLDED_BN || added == OC_SAVED_FUSED_POINTWISE)
        oc_training_signs_text(b, &tr->signs, added);
    else
        oc_sbuf_puts(b, "with both");
    oc_sbuf_puts(b, ":");
    oc_saved_rule_flags(b, added);
}

void oc_training_text(struct oc_sbuf *b, const struct oc_training *tr) {
    char b3[48];
    oc_sbuf_printf(b, "Training step (optimizer %s", oc_optimizer_name(tr->optimizer));
    if (tr->batch > 0)
        oc_sbuf_printf(b, ", batch %lld", (long long)tr->batch);
    oc_sbuf_puts(b, "):\n");
    oc_sbuf_printf(b, "  Parameters (MiB): %.2f\n", oc_mib(tr->param_bytes));
    oc_sbuf_printf(b, "  Gradients (MiB): %.2f\n", oc_mib(tr->grad_bytes));
    oc_sbuf_printf(b, "  Optimizer state (MiB): %.2f\n", oc_mib(tr->optimizer_bytes));
    oc_sbuf_printf(b, "  Activations saved for backward (MiB): %s%.2f\n", tr->complete ? "" : ">= ",
                   oc_mib(tr->saved_bytes));
    oc_sbuf_printf(b, "    as exported%s%s; Dropout in training mode: %d%s\n",
                   tr->saved_rules & OC_SAVED_FOLDED_BN ? ", with the folded BatchNorms" : "",
                   tr->saved_rules & OC_SAVED_FUSED_POINTWISE ? ", pointwise chains fused" : "",
                   (int)tr->training_dropouts,
                   tr->training_dropouts ? "" : " (an eval export leaves the model's dropouts out)");
    for (int32_t k = 0; k < tr->n_alts; k++) { /* the export's signs, each with its figure */
        const struct oc_training_alt *a = &tr->alts[k];
        oc_sbuf_printf(b, "    %s%.2f ", a->complete ? "" : ">= ", oc_mib(a->saved_bytes));
        oc_training_alt_text(b, tr, a);
        oc_sbuf_puts(b, "\n");
    }
    oc_sbuf_printf(b, "  Total training memory (MiB): %s%.2f", tr->complete ? "" : ">= ", oc_mib(tr->total_bytes));
    for (int32_t k = 0; k < tr->n_alts; k++) {
        const struct oc_training_alt *a = &tr->alts[k];
        oc_sbuf_printf(b, "%s%s%.2f with", k ? "; " : " as exported; ", a->complete ? "" : ">= ",
                       oc_mib(a->total_bytes));
        oc_saved_rule_flags(b, a->rules & ~tr->saved_rules);
    }
    oc_sbuf_puts(b, "\n");
    const char *ge = tr->flops_complete ? "" : ">= "; /* nodes without a cost: a lower bound */
    oc_sbuf_printf(b, "  FLOPs per step: %s%s (forward + backward: 3 x contraction FLOPs + 2 x the rest)\n", ge,
                   oc_fmt_thousands(tr->step_flops, b3, sizeof b3));
    if (tr->samples > 0 && tr->batch > 0) {
        char b4[48], b5[48];
        uint64_t steps = (uint64_t)(tr->samples / tr->batch + (tr->samples % tr->batch != 0));
        oc_sbuf_printf(b, "  FLOPs per epoch (%s samples, %s steps): %s%s\n",
                       oc_fmt_thousands((uint64_t)tr->samples, b4, sizeof b4), oc_fmt_thousands(steps, b5, sizeof b5),
                       ge, oc_fmt_thousands(tr->epoch_flops, b3, sizeof b3));
    }
}

json_t *oc_saved_rules_json(unsigned rules) {
    json_t *a = json_array();
    if (a && (rules & OC_SAVED_FOLDED_BN))
        json_array_append_new(a, json_string("folded_bn"));
    if (a && (rules & OC_SAVED_FUSED_POINTWISE))
        json_array_append_new(a, json_string("fused_pointwise"));
    return a;
}

/* The export's signs (struct oc_export_signs), each rule null when the
   graph shows none or the user gave it. */
json_t *oc_export_signs_json(const struct oc_export_signs *s) {
    json_t *o = json_object();
    json_t *bn = NULL, *pw = NULL;
    if (s->rules & OC_SAVED_FOLDED_BN) {
        bn = json_object();
        json_object_set_new(bn, "convs_with_bias", json_integer(s->biased_convs));
    }
    if (s->rules & OC_SAVED_FUSED_POINTWISE) {
        pw = json_object();
        json_object_set_new(pw, "chains", json_integer(s->chains));
        json_object_set_new(pw, "gelu", json_integer(s->gelu_chains));
        json_object_set_new(pw, "normalization", json_integer(s->norm_chains));
        json_object_set_new(pw, "silu", json_integer(s->silu_chains));
    }
    json_object_set_new(o, "folded_bn", bn ? bn : json_null());
    json_object_set_new(o, "fused_pointwise", pw ? pw : json_null());
    return o;
}

json_t *oc_training_alts_json(const struct oc_training *tr) {
    json_t *alts = json_array();
    for (int32_t k = 0; k < tr->n_alts; k++) { /* the same figures under the rules the signs suggest */
        const struct oc_training_alt *a = &tr->alts[k];
        json_t *e = json_object();
        json_object_set_new(e, "saved_rules", oc_saved_rules_json(a->rules));
        json_object_set_new(e, "saved_activation_bytes", oc_jint(a->saved_bytes));
        json_object_set_new(e, "total_bytes", oc_jint(a->total_bytes));
        json_object_set_new(e, "complete", json_boolean(a->complete));
        json_array_append_new(alts, e);
    }
    return alts;
}

