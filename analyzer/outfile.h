/*
 * outfile.h — writing an output file safely (every -o of every command,
 * and annotate's OUT): a reader never sees half a file, a failed write
 * leaves what was there, and nothing but the named path changes.
 *
 *   - a new path, or an existing regular file: the data goes to a
 *     temporary file beside it (the target of a symlink, so the link
 *     keeps pointing at it), which replaces it by rename() once complete;
 *     a replaced file keeps its mode, owner and group;
 *   - where that cannot be kept (the owner, for a user who may write the
 *     file but not give it away) or no temporary file can be made beside
 *     it (a directory the user may not write in), the file is rewritten
 *     in place, as a shell's `>` would: same inode, owner and mode;
 *   - a character device (/dev/null, a terminal) or a FIFO is written
 *     through, never replaced;
 *   - anything else (a directory, a socket, a block device), and a file the
 *     user may not write, is refused.
 */
#ifndef OC_OUTFILE_H
#define OC_OUTFILE_H

#include "oc.h"

#include <stdbool.h>
#include <stdio.h>

struct oc_outfile {
    FILE *f;    /* write here                                          */
    char *tmp;  /* the temporary file renamed into place, or NULL      */
    char *dest; /* where it goes (a symlink's target resolved)         */
};

/* Opens path for writing as above ("wb"). OC_ERR_IO (errno's words) or
 * OC_ERR_USAGE (not a file one can write a report to). */
enum oc_status oc_outfile_open(struct oc_outfile *o, const char *path, struct oc_diag *d);

/* Closes o; with keep, puts the data in place (a temporary file renamed
 * over the target), else removes the temporary file and leaves the target
 * as it was. An error closing or renaming is OC_ERR_IO. Safe on a zeroed
 * or already closed o. */
enum oc_status oc_outfile_close(struct oc_outfile *o, bool keep, struct oc_diag *d);

#endif
