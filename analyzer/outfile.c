/*
 * outfile.c — output files written safely (outfile.h).
 */
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* errno's failure as the diag: out of memory as such, else what the
   system says of the write */
static enum oc_status oc_outfile_errno(struct oc_diag *d) {
    if (errno == ENOMEM)
        return oc_diag_set(d, OC_ERR_NOMEM, "out of memory");
    return oc_diag_set(d, OC_ERR_IO, "cannot write: %s", strerror(errno));
}

static char *oc_outfile_dup(const char *s) {
    size_t n = strlen(s) + 1;
    char *c = malloc(n);
    return c ? memcpy(c, s, n) : NULL;
}

/* The file itself, opened as a shell's `>` would (truncated, same inode). */
static enum oc_status oc_outfile_in_place(struct oc_outfile *o, const char *path, struct oc_diag *d) {
    o->f = fopen(path, "wb");
    if (!o->f)
        return oc_outfile_errno(d);
    return OC_OK;
}

/* A new file beside dest, 0666 less the umask as any new file, then the
 * replaced file's owner, group and mode (owner first: chown clears the
 * set-id bits). -1 when it cannot be made or cannot take the owner. */
static int oc_outfile_beside(const char *dest, const struct stat *old, char **tmp_out) {
    const char *slash = strrchr(dest, '/');
    size_t dir_len = slash ? (size_t)(slash - dest) + 1 : 0, size = dir_len + 64;
    char *tmp = malloc(size);
    if (!tmp)
        return -1;
    int fd = -1;
    for (unsigned k = 0; fd < 0 && k < 100; k++) {
        snprintf(tmp, size, "%.*s.onnxcost-%ld-%u.tmp", (int)dir_len, dest, (long)getpid(), k);
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd >= 0 && old) {
        struct stat now;
        bool owner_ok = fstat(fd, &now) == 0 &&
                        ((now.st_uid == old->st_uid && now.st_gid == old->st_gid) ||
                         fchown(fd, old->st_uid, old->st_gid) == 0);
        if (!owner_ok || fchmod(fd, old->st_mode & 07777) != 0) {
            close(fd);
            unlink(tmp);
            fd = -1;
        }
    }
    if (fd < 0) {
        free(tmp);
        return -1;
    }
    *tmp_out = tmp;
    return fd;
}

enum oc_status oc_outfile_open(struct oc_outfile *o, const char *path, struct oc_diag *d) {
    memset(o, 0, sizeof *o);
    struct stat sb, lsb;
    bool exists = stat(path, &sb) == 0;
    if (!exists && errno != ENOENT)
        return oc_outfile_errno(d);
    if (!exists && lstat(path, &lsb) == 0) /* a dangling symlink: its target is created, the link kept */
        return oc_outfile_in_place(o, path, d);
    if (exists && (S_ISCHR(sb.st_mode) || S_ISFIFO(sb.st_mode))) /* /dev/null, a terminal, a pipe */
        return oc_outfile_in_place(o, path, d);
    if (exists && !S_ISREG(sb.st_mode))
        return oc_diag_set(d, OC_ERR_USAGE, "cannot write: %s",
                           S_ISDIR(sb.st_mode) ? "is a directory"
                                               : "not a regular file, a character device or a FIFO");
    if (exists && access(path, W_OK) != 0) /* a file the user may not write is not replaced either */
        return oc_outfile_errno(d);
    o->dest = exists ? realpath(path, NULL) : oc_outfile_dup(path); /* a symlink keeps pointing at the file */
    if (!o->dest)
        return oc_outfile_errno(d);
    int fd = oc_outfile_beside(o->dest, exists ? &sb : NULL, &o->tmp);
    if (fd < 0) { /* no file beside it, or none that can keep the owner: in place */
        free(o->dest);
        o->dest = NULL;
        return oc_outfile_in_place(o, path, d);
    }
    o->f = fdopen(fd, "wb");
    if (!o->f) {
        enum oc_status st = oc_outfile_errno(d);
        close(fd);
        oc_outfile_close(o, false, NULL);
        return st;
    }
    return OC_OK;
}

enum oc_status oc_outfile_close(struct oc_outfile *o, bool keep, struct oc_diag *d) {
    enum oc_status st = OC_OK;
    if (o->f) {
        bool ok = fflush(o->f) == 0 && !ferror(o->f);
        int err = errno;
        if (fclose(o->f) != 0 && ok) {
            ok = false;
            err = errno;
        }
        if (!ok && keep)
            st = d ? oc_diag_set(d, OC_ERR_IO, "cannot write: %s", strerror(err)) : OC_ERR_IO;
    }
    if (o->tmp) {
        if (keep && st == OC_OK && rename(o->tmp, o->dest) != 0)
            st = d ? oc_outfile_errno(d) : errno == ENOMEM ? OC_ERR_NOMEM : OC_ERR_IO;
        if (!keep || st != OC_OK)
            unlink(o->tmp);
    }
    free(o->tmp);
    free(o->dest);
    memset(o, 0, sizeof *o);
    return st;
}
