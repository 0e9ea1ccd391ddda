/*
 * machine.c — `onnxcost probe`: this machine's measured roofs (probe/probe.h)
 * as a table, and as a spec file that --machine and --gpu-spec read
 * (docs/MEASURED.md "The machine's roofs").
 */
#include "report_impl.h"
#include "table.h"

#include "../probe/probe.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>

/* the device keys of a spec file (docs/GPUS.md; a CPU's kind and caches) */
void oc_spec_device_json(const struct oc_gpu *gpu, struct json_t *doc) {
    json_object_set_new(doc, "name", oc_jstr(gpu->name));
    if (gpu->cpu)
        json_object_set_new(doc, "kind", json_string("cpu"));
    for (int u = 0; u < OC_UNIT_COUNT; u++)
        if (gpu->peak[u] > 0)
            json_object_set_new(doc, oc_spec_unit_keys[u], json_real(gpu->peak[u] / 1e12));
    json_object_set_new(doc, "memory_gib", json_real((double)gpu->mem_bytes / (1024.0 * 1024.0 * 1024.0)));
    json_object_set_new(doc, "bandwidth_gbs", json_real(gpu->mem_bw / 1e9));
    if (gpu->n_caches) {
        json_t *c = json_array();
        for (int32_t k = 0; k < gpu->n_caches; k++) {
            json_t *o = json_object();
            json_object_set_new(o, "kib", json_real((double)gpu->cache_bytes[k] / 1024.0));
            json_object_set_new(o, "bandwidth_gbs", json_real(gpu->cache_bw[k] / 1e9));
            json_array_append_new(c, o);
        }
        json_object_set_new(doc, "caches", c);
    }
    if (gpu->l2_bytes)
        json_object_set_new(doc, "l2_mib", json_real((double)gpu->l2_bytes / (1024.0 * 1024.0)));
    if (gpu->sms)
        json_object_set_new(doc, "sms", json_integer(gpu->sms));
    if (gpu->boost_mhz)
        json_object_set_new(doc, "boost_mhz", json_integer(gpu->boost_mhz));
    if (!gpu->cpu) {
        json_object_set_new(doc, "link_gbs", json_real(gpu->link_bw / 1e9));
        json_object_set_new(doc, "link", oc_jstr(gpu->link));
    }
    const struct oc_cpu_scaling *s = &gpu->scaling;
    if (gpu->cpu && s->threads > 0) { /* the one-thread figures --threads scales from (a calibrated spec keeps them) */
        json_t *p = json_object(), *one = json_object(), *caches = json_array();
        json_object_set_new(p, "threads", json_integer(s->threads));
        for (int i = 0; i < OC_SPEC_ONE_THREAD_KEYS; i++) {
            const struct oc_spec_one_thread_key *k = &oc_spec_one_thread_keys[i];
            if (s->peak_one[k->unit] > 0)
                json_object_set_new(one, k->key, json_real(s->peak_one[k->unit] / 1e9));
        }
        if (s->mem_one > 0)
            json_object_set_new(one, "dram_gbs", json_real(s->mem_one / 1e9));
        json_object_set_new(p, "one_thread", one);
        for (int32_t k = 0; k < gpu->n_caches && k < 4; k++)
            if (s->cache_one[k]) {
                json_t *c = json_object();
                json_object_set_new(c, "kib", json_real((double)s->cache_one[k] / 1024.0));
                json_object_set_new(c, "shared_by", json_integer(s->shared_by[k]));
                json_object_set_new(c, "kib_all_threads", json_real((double)gpu->cache_bytes[k] / 1024.0));
                json_object_set_new(c, "one_thread_gbs", json_real(s->cache_bw_one[k] / 1e9));
                json_array_append_new(caches, c);
            }
        json_object_set_new(p, "caches", caches);
        json_object_set_new(doc, "probe", p);
    }
}

/* a spec file's "efficiency": the factors a calibration measured */
json_t *oc_spec_efficiency_json(const struct oc_gpu_efficiency *e) {
    json_t *o = json_object();
    for (int u = 0; u < OC_UNIT_COUNT; u++)
        if (e->unit[u] > 0)
            json_object_set_new(o, oc_spec_unit_keys[u], json_real(round(e->unit[u] * 1e4) / 1e4));
    for (int u = 0; u < OC_UNIT_COUNT; u++)
        if (e->conv_unit[u] > 0) {
            char key[64];
            snprintf(key, sizeof key, "conv_%s", oc_spec_unit_keys[u]);
            json_object_set_new(o, key, json_real(round(e->conv_unit[u] * 1e4) / 1e4));
        }
    if (e->parallel_outputs[0] > 0)
        json_object_set_new(o, "parallel_outputs", json_real(round(e->parallel_outputs[0])));
    if (e->parallel_outputs[1] > 0)
        json_object_set_new(o, "conv_parallel_outputs", json_real(round(e->parallel_outputs[1])));
    if (e->memory > 0)
        json_object_set_new(o, "memory", json_real(round(e->memory * 1e4) / 1e4));
    if (e->memory_cache[0] > 0 || e->memory_cache[1] > 0 || e->memory_cache[2] > 0 || e->memory_cache[3] > 0) {
        json_t *a = json_array();
        int last = 3;
        while (last > 0 && !(e->memory_cache[last] > 0))
            last--;
        for (int k = 0; k <= last; k++)
            json_array_append_new(a, json_real(round(e->memory_cache[k] * 1e4) / 1e4));
        json_object_set_new(o, "memory_caches", a);
    }
    for (int k = 0; k < OC_SPEC_US_KEYS; k++) { /* the times, in us: launch whenever measured, the others above 0 */
        double s = *(const double *)((const char *)e + oc_spec_us_keys[k].offset);
        if (k == 0 ? e->has_launch : s > 0)
            json_object_set_new(o, oc_spec_us_keys[k].key,
                                json_real(round(s * 1e6 * pow(10, oc_spec_us_keys[k].decimals)) /
                                          pow(10, oc_spec_us_keys[k].decimals)));
    }
    if (e->split_share > 0)
        json_object_set_new(o, "split_share", json_real(round(e->split_share * 1e4) / 1e4));
    if (e->pad_path > 0)
        json_object_set_new(o, "pad_path", json_real(round(e->pad_path * 1e4) / 1e4));
    if (e->ops.n > 0) { /* the ops' own factors */
        json_t *ops = json_object();
        for (int32_t k = 0; k < e->ops.n; k++)
            json_object_set_new(ops, e->ops.at[k].op, json_real(round(e->ops.at[k].factor * 1e4) / 1e4));
        json_object_set_new(o, "ops", ops);
    }
    return o;
}

static json_t *oc_machine_json(const struct oc_machine *m, const struct oc_gpu *gpu) {
    json_t *doc = json_object(), *p = json_object(), *one = json_object(), *all = json_object();
    oc_spec_device_json(gpu, doc);
    json_object_set_new(p, "tool", json_string("onnxcost probe"));
    json_object_set_new(p, "cpu", oc_jstr(m->cpu));
    json_object_set_new(p, "isa", oc_jstr(m->isa));
    json_object_set_new(p, "logical_cpus", json_integer(m->logical_cpus));
    json_object_set_new(p, "threads", json_integer(m->threads));
    json_object_set_new(p, "clock_ghz", m->clock_hz > 0 ? json_real(m->clock_hz / 1e9) : json_null());
    json_object_set_new(p, "clock_read_ghz", json_real(m->clock_read_hz / 1e9));
    for (int t = 0; t < OC_PROBE_TYPES; t++)
        if (m->peak_one[t] > 0) {
            char key[32];
            snprintf(key, sizeof key, "%s_gflops", oc_probe_type_name((enum oc_probe_type)t));
            json_object_set_new(one, key, json_real(m->peak_one[t] / 1e9));
            json_object_set_new(all, key, json_real(m->peak_all[t] / 1e9));
        }
    json_t *unm = json_array(); /* all-thread peaks that are the one-thread rate: see the text */
    for (int t = 0; t < OC_PROBE_TYPES; t++)
        if (m->all_below_one >> t & 1)
            json_array_append_new(unm, json_string(oc_probe_type_name((enum oc_probe_type)t)));
    json_object_set_new(p, "all_threads_not_measured", unm);
    json_t *lv = json_array();
    for (int32_t k = 0; k < m->n_levels; k++) {
        const struct oc_probe_level *l = &m->levels[k];
        json_t *o = json_object();
        json_object_set_new(o, "level", json_integer(l->level));
        json_object_set_new(o, "kib", json_integer((json_int_t)(l->bytes / 1024)));
        json_object_set_new(o, "shared_by", json_integer(l->shared_by));
        json_object_set_new(o, "kib_all_threads", json_integer((json_int_t)(l->bytes_all / 1024)));
        json_object_set_new(o, "one_thread_gbs", json_real(l->bw_one / 1e9));
        json_object_set_new(o, "all_threads_gbs", json_real(l->bw_all / 1e9));
        json_array_append_new(lv, o);
    }
    json_object_set_new(one, "dram_gbs", json_real(m->dram_one / 1e9));
    json_object_set_new(all, "dram_gbs", json_real(m->dram_all / 1e9));
    json_object_set_new(p, "one_thread", one);
    json_object_set_new(p, "all_threads", all);
    json_object_set_new(p, "caches", lv);
    json_t *sw = json_array();
    for (int32_t i = 0; i < m->n_sweep; i++) {
        json_t *o = json_object();
        json_object_set_new(o, "kib", json_integer((json_int_t)(m->sweep[i].bytes / 1024)));
        json_object_set_new(o, "gbs", json_real(m->sweep[i].bw_all / 1e9));
        json_array_append_new(sw, o);
    }
    json_object_set_new(p, "triad_sweep_all_threads", sw);
    json_object_set_new(p, "seconds", json_real(m->seconds));
    json_object_set_new(doc, "probe", p);
    return doc;
}

enum oc_status oc_report_machine(const struct oc_machine *m, const struct oc_gpu *gpu,
                                 const struct oc_report_spec *spec, struct oc_diag *d) {
    struct oc_sbuf b = {0};
    if (spec->format == OC_FORMAT_JSON) {
        oc_sbuf_json_digits(&b, oc_machine_json(m, gpu), 6);
    } else {
        char clock[160];
        if (m->clock_hz > 0)
            snprintf(clock, sizeof clock, "%.2f GHz measured", m->clock_hz / 1e9);
        else /* what was read cannot be the core's clock */
            snprintf(clock, sizeof clock, "clock not measured (an add chain read %.2f GHz, which the FP32 rate or "
                                          "any shipped CPU rules out)", m->clock_read_hz / 1e9);
        oc_sbuf_printf(&b, "%s: %d logical CPUs, %s, %s; probed with %d thread%s in %.1f s\n", m->cpu, m->logical_cpus,
                       m->isa, clock, m->threads, m->threads == 1 ? "" : "s", m->seconds);
        struct oc_table t = {0};
        oc_table_col(&t, "Roof", "roof", OC_ALIGN_LEFT);
        oc_table_col(&t, "One thread", "one_thread", OC_ALIGN_RIGHT);
        oc_table_col(&t, "All threads", "all_threads", OC_ALIGN_RIGHT);
        for (int ty = 0; ty < OC_PROBE_TYPES; ty++) {
            if (m->peak_one[ty] <= 0)
                continue;
            oc_table_row(&t);
            oc_table_cell(&t, "%s (GFLOP/s%s)", oc_probe_type_name((enum oc_probe_type)ty),
                          ty == OC_PROBE_INT8 ? ", OPS" : "");
            oc_table_cell(&t, "%.1f", m->peak_one[ty] / 1e9);
            oc_table_cell(&t, "%.1f%s", m->peak_all[ty] / 1e9, m->all_below_one >> ty & 1 ? " (*)" : "");
        }
        for (int32_t k = 0; k < m->n_levels; k++) {
            const struct oc_probe_level *l = &m->levels[k];
            oc_table_row(&t);
            oc_table_cell(&t, "L%d triad (GB/s), %llu KiB%s", l->level, (unsigned long long)(l->bytes / 1024),
                          l->shared_by > 1 ? " shared" : " per core");
            oc_table_cell(&t, "%.1f", l->bw_one / 1e9);
            oc_table_cell(&t, "%.1f", l->bw_all / 1e9);
        }
        oc_table_row(&t);
        oc_table_cell(&t, "DRAM triad (GB/s)");
        oc_table_cell(&t, "%.1f", m->dram_one / 1e9);
        oc_table_cell(&t, "%.1f", m->dram_all / 1e9);
        oc_table_draw(&b, &t, OC_FORMAT_TEXT);
        if (t.oom)
            b.oom = true;
        oc_table_free(&t);
        oc_sbuf_puts(&b, "GFLOP/s and GB/s are decimal (1e9); cache sizes in KiB (1024 bytes).\n");
        if (m->all_below_one)
            oc_sbuf_printf(&b, "(*) NOT MEASURED: all threads at once ran slower than one thread in %d tries of 3 "
                               "runs (another load on the machine all along, or --seconds too short); the "
                               "one-thread rate stands in for them.\n",
                           1 + OC_PROBE_ALL_TRIES);
    }
    enum oc_status st = oc_sbuf_flush(&b, spec, d);
    oc_sbuf_free(&b);
    return st;
}
