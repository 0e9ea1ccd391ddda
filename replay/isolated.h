/*
 * isolated.h — running the GPU replay plugin in a child process, so that a
 * crash or a hang inside CUDA, cuDNN, cuBLAS or CUPTI costs one node, never
 * the run (host side, no CUDA; docs/REPLAY.md, "A node that crashes").
 *
 * The parent never touches CUDA. It forks a worker that loads the plugin,
 * probes the device and replays the plans into a results array the two
 * processes share. The plugin marks each node's stage there before and after
 * each phase (struct oc_rp_result.stage). When the worker dies of a signal,
 * or makes no progress for node_timeout_s seconds (it is then killed), the
 * node it was in is marked (failed while timing; measured without counters
 * while counting), its crash report kept in results[i].crash, and a new
 * worker resumes with the nodes left. The worker's progress comes back
 * through a pipe and is reported from the parent's thread.
 */
#ifndef OC_REPLAY_ISOLATED_H
#define OC_REPLAY_ISOLATED_H

#include "replay.h"

#include <stddef.h>

struct oc_replay_job {
    const struct oc_rp_options *opts;
    const struct oc_rp_plan *plans;
    int32_t n;
    double node_timeout_s;    /* no progress for this long: the worker is
                                 killed and its node marked (0 = no limit)   */
    bool in_process;          /* run the plugin in this process (debuggers,
                                 profilers that follow one process)          */
    void (*progress)(void *arg, int32_t done, int32_t total);
    void *progress_arg;
};

struct oc_replay_outcome {
    struct oc_rp_device device;
    char build[160];          /* the plugin's build line                      */
    int32_t restarts;         /* workers started after one died               */
};

/* Replays job->plans into results[0..n) (caller-owned, zeroed here) and
 * fills out. 0, or -1 with one line in err when the run as a whole failed:
 * the plugin does not load, the device does not open (also when the worker
 * died doing so), or the plugin's run returned an error. A node lost to a
 * crash or a hang is not an error: its result says what happened. */
int oc_replay_run_isolated(const struct oc_replay_job *job, struct oc_rp_result *results,
                           struct oc_replay_outcome *out, char *err, size_t errn);

/* After a worker died in results[i] (its stage OC_RPG_TIMING or
 * OC_RPG_COUNTING): marks the node as that stage's loss, with `what` (e.g.
 * "died of SIGSEGV", "made no progress for 120 s and was killed") and the
 * crash report, and sets its stage to OC_RPG_DONE. Exported for the tests. */
void oc_replay_mark_lost(struct oc_rp_result *r, const char *what, const char *report);

#endif
