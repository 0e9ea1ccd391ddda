/*
 * loader.c — finds and opens the GPU replay plugin (libonnxcost_gpu.so).
 * The onnxcost binary links no CUDA library: everything CUDA lives in the
 * plugin, opened only by `onnxcost replay`.
 */
#include "replay.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef OC_PLUGIN_RELDIR
#define OC_PLUGIN_RELDIR "lib/onnxcost"
#endif
#define OC_PLUGIN_FILE "libonnxcost_gpu.so"

/* the executable's directory into dir (no trailing slash); false if unknown */
static bool oc_exe_dir(char *dir, size_t n) {
    ssize_t k = readlink("/proc/self/exe", dir, n - 1);
    if (k <= 0 || (size_t)k >= n - 1)
        return false;
    dir[k] = 0;
    char *slash = strrchr(dir, '/');
    if (!slash)
        return false;
    *slash = 0;
    return true;
}

const struct oc_replay_api *oc_replay_load(char *err, size_t n) {
    char path[2 * PATH_MAX + 128] = "";
    const char *env = getenv("ONNXCOST_GPU_PLUGIN");
    if (env && *env) {
        snprintf(path, sizeof path, "%s", env);
    } else {
        char dir[PATH_MAX];
        if (oc_exe_dir(dir, sizeof dir)) {
            char cand[2][PATH_MAX + 64];
            snprintf(cand[0], sizeof cand[0], "%s/%s", dir, OC_PLUGIN_FILE);
            snprintf(cand[1], sizeof cand[1], "%s/../%s/%s", dir, OC_PLUGIN_RELDIR, OC_PLUGIN_FILE);
            for (int i = 0; i < 2 && !path[0]; i++)
                if (access(cand[i], R_OK) == 0)
                    snprintf(path, sizeof path, "%s", cand[i]);
        }
        if (!path[0]) {
            snprintf(err, n,
                     "this onnxcost has no GPU replay plugin (" OC_PLUGIN_FILE " is not beside the executable nor "
                     "in ../" OC_PLUGIN_RELDIR "; it is built where CMake finds CUDA, cuDNN, cuBLAS and CUPTI, "
                     "or set ONNXCOST_GPU_PLUGIN)");
            return NULL;
        }
    }
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(err, n, "cannot load the GPU replay plugin: %s (are the CUDA, cuDNN and CUPTI libraries on "
                 "LD_LIBRARY_PATH?)", e ? e : path);
        return NULL;
    }
    oc_replay_entry_fn entry;
    *(void **)&entry = dlsym(h, OC_REPLAY_ENTRY);
    const struct oc_replay_api *api = entry ? entry() : NULL;
    if (!api || api->abi != OC_REPLAY_ABI) {
        snprintf(err, n, "%s is not a GPU replay plugin of this onnxcost (ABI %d, expected %d)", path,
                 api ? api->abi : -1, OC_REPLAY_ABI);
        dlclose(h);
        return NULL;
    }
    /* the handle stays open for the process's life: results point into it */
    return api;
}
