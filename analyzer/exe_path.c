/*
 * exe_path.c — files found from the executable's place (exe_path.h).
 */
#include "exe_path.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

bool oc_exe_dir(char *dir, size_t n) {
    if (n < 2)
        return false;
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

bool oc_exe_find(const char *name, const char *reldir, char *buf, size_t n) {
    char dir[4096];
    if (!oc_exe_dir(dir, sizeof dir))
        return false;
    int k = snprintf(buf, n, "%s/%s", dir, name);
    if (k > 0 && (size_t)k < n && access(buf, R_OK) == 0)
        return true;
    k = snprintf(buf, n, "%s/../%s/%s", dir, reldir, name);
    return k > 0 && (size_t)k < n && access(buf, R_OK) == 0;
}
