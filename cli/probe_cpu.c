/*
 * probe_cpu.c — the CPU's bodies of `onnxcost probe` (cmd_probe.c parses):
 * the machine written as its table or spec file, and `probe --calibrate -o
 * cpu.json`, a CPU calibrated in one command (docs/MEASURED.md, "One
 * command"): it probes the machine, writes the runs sweep and the kernel
 * sweep's quick grid, has ONNX Runtime time both (onnxcost measure), fits
 * the model's factors on them (calibrate) and builds the kernel tables
 * (tables) into the spec file. Each later step is the command a user would
 * type, dispatched in turn in a folder of its own that it removes.
 */
#define _XOPEN_SOURCE 700 /* nftw, before any header */
#include "cli.h"
#include "probe_gpu.h"

#include "../probe/probe.h"
#include "../replay/ksweep.h"
#include "../reports/report.h"

#include <errno.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int oc_probe_write_machine(const struct oc_machine *m, const struct oc_gpu *g, int32_t format, const char *path) {
    struct oc_outfile f;
    int orc = oc_cli_open_output(&f, path);
    if (orc != OC_EXIT_OK)
        return orc;
    struct oc_diag d = {0};
    struct oc_report_spec spec = {.version = 1, .format = (enum oc_format)format, .write = oc_cli_write_file,
                                  .write_arg = f.f};
    return oc_cli_close_report(&f, path, oc_report_machine(m, g, &spec, &d));
}

/* the folder's files: its path joined with name, in buf */
static const char *oc_pc_path(char *buf, size_t size, const char dir[2048], const char *name) {
    snprintf(buf, size, "%s/%s", dir, name);
    return buf;
}

/* one step, said on standard error first: the command cmd on args (up to
   the first NULL); its exit code */
static int oc_pc_step(int k, int n, const char *what, int (*cmd)(int, char **), const char *const *args) {
    fprintf(oc_cli_err(), "onnxcost: probe --calibrate: [%d/%d] %s\n", k, n, what);
    char *argv[32];
    int argc = 0;
    while (args[argc] && argc < 31) {
        argv[argc] = (char *)(uintptr_t)args[argc]; /* the commands read their arguments, never write them */
        argc++;
    }
    argv[argc] = NULL;
    return cmd(argc, argv);
}

/* one entry of the folder, deepest first (nftw) */
static int oc_pc_remove(const char *path, const struct stat *st, int type, struct FTW *ftw) {
    (void)st, (void)type, (void)ftw;
    remove(path);
    return 0;
}

/* rm -r of the folder: whatever the steps left in it */
static void oc_pc_clean(const char dir[2048]) { nftw(dir, oc_pc_remove, 16, FTW_DEPTH | FTW_PHYS); }

/* text with every `from` written as `to` */
static void oc_pc_put_replaced(const char *text, const char *from, const char *to, FILE *out) {
    size_t n = strlen(from);
    for (const char *p = text, *hit; *p; p = hit + n) {
        if (!(hit = strstr(p, from))) {
            fputs(p, out);
            return;
        }
        fwrite(p, 1, (size_t)(hit - p), out);
        fputs(to, out);
    }
}

/* the two reports, one after the other, on standard output (each step wrote
   its own to a file: a command's report closes standard output behind it);
   the calibrated spec's path in the folder, which goes, read as out_path's,
   which holds it with the tables, and the folder's other files by name */
static int oc_pc_reports(const char *dir, const char *cal, const char *out_path, const char *a, const char *b) {
    const char *paths[2] = {a, b};
    char prefix[2100];
    snprintf(prefix, sizeof prefix, "%s/", dir);
    for (int k = 0; k < 2; k++) {
        FILE *f = fopen(paths[k], "rb");
        char *text = NULL;
        size_t len = 0;
        if (f && fseek(f, 0, SEEK_END) == 0) {
            long size = ftell(f);
            if (size >= 0 && (text = malloc((size_t)size + 1)) && fseek(f, 0, SEEK_SET) == 0) {
                len = fread(text, 1, (size_t)size, f);
                text[len] = 0;
            }
        }
        if (f)
            fclose(f);
        if (!text) {
            fprintf(oc_cli_err(), "onnxcost: error: probe --calibrate: cannot read %s back\n", paths[k]);
            return OC_EXIT_INTERNAL;
        }
        char *swapped = NULL; /* the spec's path first, then the folder's */
        size_t sz = 0;
        FILE *mem = open_memstream(&swapped, &sz);
        if (mem) {
            oc_pc_put_replaced(text, cal, out_path, mem);
            fclose(mem);
        }
        free(text);
        if (!mem || !swapped)
            return oc_cli_out_of_memory();
        oc_pc_put_replaced(swapped, prefix, "", stdout);
        free(swapped);
        if (k == 0)
            fputc('\n', stdout);
    }
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(oc_cli_err(), "onnxcost: error: standard output: cannot write the reports\n");
        return OC_EXIT_INTERNAL;
    }
    return OC_EXIT_OK;
}

int oc_probe_calibrate(const char *out_path, int64_t threads) {
    if (!out_path)
        return oc_cli_usage_error("probe: --calibrate writes the calibrated spec: give -o FILE");
    const char *tmp = getenv("TMPDIR");
    char dir[2048]; /* the files' paths below fit in 4096 */
    if (!tmp || !*tmp)
        tmp = "/tmp";
    if (strlen(tmp) > sizeof dir - 32)
        return oc_cli_usage_error("probe: --calibrate: TMPDIR is longer than %zu characters", sizeof dir - 32);
    snprintf(dir, sizeof dir, "%s/onnxcost-calibrate-XXXXXX", tmp);
    if (!mkdtemp(dir)) {
        fprintf(oc_cli_err(), "onnxcost: error: probe --calibrate: cannot make a folder in %s: %s\n", tmp,
                strerror(errno));
        return OC_EXIT_INTERNAL;
    }
    char machine[4096], runs[4096], kernels[4096], runs_json[4096], kernels_json[4096], cal[4096], runs_dir[4096],
        kernels_dir[4096], cal_report[4096], tables_report[4096], th[32];
    oc_pc_path(machine, sizeof machine, dir, "machine.json");
    oc_pc_path(runs, sizeof runs, dir, "runs.onnx");
    oc_pc_path(kernels, sizeof kernels, dir, "kernels.onnx");
    oc_pc_path(runs_json, sizeof runs_json, dir, "runs.json");
    oc_pc_path(kernels_json, sizeof kernels_json, dir, "kernels.json");
    oc_pc_path(cal, sizeof cal, dir, "calibrated.json");
    oc_pc_path(runs_dir, sizeof runs_dir, dir, "runs");
    oc_pc_path(kernels_dir, sizeof kernels_dir, dir, "kernels");
    oc_pc_path(cal_report, sizeof cal_report, dir, "calibration.txt");
    oc_pc_path(tables_report, sizeof tables_report, dir, "tables.txt");
    snprintf(th, sizeof th, "%lld", (long long)threads);
    const int n = 6;
    int rc;
    fprintf(oc_cli_err(), "onnxcost: probe --calibrate: [1/%d] the machine's roofs (onnxcost probe)\n", n);
    struct oc_probe_opts po = {.threads = (int32_t)threads};
    struct oc_machine mach;
    char err[256];
    if (!oc_probe_run(&po, &mach, err, sizeof err)) {
        fprintf(oc_cli_err(), "onnxcost: error: probe: %s\n", err);
        rc = OC_EXIT_INTERNAL;
    } else {
        struct oc_gpu g;
        char name[256];
        oc_probe_spec(&mach, &g, name, sizeof name);
        rc = oc_probe_write_machine(&mach, &g, OC_FORMAT_JSON, machine);
    }
    if (rc == OC_EXIT_OK) {
        fprintf(oc_cli_err(), "onnxcost: probe --calibrate: [2/%d] the sweeps: the runs sweep and the kernel sweep's "
                              "quick grid\n", n);
        rc = oc_probe_sweep_model(OC_KSWEEP_RUNS, runs);
        if (rc == OC_EXIT_OK)
            rc = oc_probe_sweep_model(OC_KSWEEP_CPU, kernels);
    }
    if (rc == OC_EXIT_OK) {
        const char *m[] = {"measure", runs,      "--machine", machine, "--format", "json", "--save", runs_dir,
                     "-o",      runs_json, "-q",        threads ? "--threads" : NULL, th, NULL};
        rc = oc_pc_step(3, n, "the runs sweep through ONNX Runtime (onnxcost measure)", oc_cmd_measure, m);
    }
    if (rc == OC_EXIT_OK) {
        const char *m[] = {"measure", kernels,      "--machine", machine, "--format", "json", "--save", kernels_dir,
                     "-o",      kernels_json, "-q",        threads ? "--threads" : NULL, th, NULL};
        rc = oc_pc_step(4, n, "the kernel sweep through ONNX Runtime (onnxcost measure)", oc_cmd_measure, m);
    }
    if (rc == OC_EXIT_OK) {
        const char *c[] = {"calibrate", runs_json, kernels_json, "--machine", machine, "-o", cal,
                           "--report", cal_report, NULL};
        rc = oc_pc_step(5, n, "the model's factors fitted on both (onnxcost calibrate)", oc_cmd_calibrate, c);
    }
    if (rc == OC_EXIT_OK) {
        const char *t[] = {"tables", runs_json, kernels_json, "--gpu-spec", cal, "-o", out_path,
                           "--report", tables_report, NULL};
        rc = oc_pc_step(6, n, "the kernel tables beside the factors (onnxcost tables)", oc_cmd_tables, t);
    }
    if (rc == OC_EXIT_OK) /* the fit's report and the tables', as those commands give them */
        rc = oc_pc_reports(dir, cal, out_path, cal_report, tables_report);
    if (rc == OC_EXIT_OK)
        fprintf(oc_cli_err(), "onnxcost: probe --calibrate: wrote %s; predict with --gpu-spec %s\n", out_path,
                out_path);
    oc_pc_clean(dir);
    return rc;
}
