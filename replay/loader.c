/*
 * loader.c — finds and opens the GPU replay plugin (libonnxcost_gpu.so).
 * The onnxcost binary links no CUDA library: everything CUDA lives in the
 * plugin, opened only by `onnxcost replay`.
 */
#include "replay.h"

#include "../analyzer/exe_path.h"

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

const struct oc_replay_api *oc_replay_load(char *err, size_t n) {
    char path[2 * PATH_MAX + 128] = "";
    const char *env = getenv("ONNXCOST_GPU_PLUGIN");
    if (env && *env) {
        snprintf(path, sizeof path, "%s", env);
    } else {
        if (!oc_exe_find(OC_PLUGIN_FILE, OC_PLUGIN_RELDIR, path, sizeof path))
            path[0] = 0;
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
