/*
 * whole_file.h: writing a file the user names whole or not at all
 * (whole_file.c). What is written goes to a temporary file beside the
 * target, which replaces the target only once all of it is on disk: a
 * failed write (a full disk, a folder that cannot be written) leaves the
 * old file as it was. "-" is standard output.
 */
#ifndef CLFOLD_CLI_WHOLE_FILE_H
#define CLFOLD_CLI_WHOLE_FILE_H

#include <stdbool.h>
#include <stdio.h>

struct whole_file {
    FILE *file;         /* where to write */
    char *target;       /* the file it replaces; NULL when written in place */
    char *temporary;    /* the temporary file beside it; NULL when written in place */
};

/*
 * Opens `path` for writing: a temporary file beside it; standard output for
 * "-"; the path itself where it exists and is not a regular file (a device,
 * a pipe), which has nothing to rename over. A link is followed, so that
 * the file it names is replaced, not the link. On failure returns -1 with
 * why in `why`.
 */
int whole_file_open(struct whole_file *f, const char *path, char *why, size_t cap);

/*
 * Flushes what was written to disk and puts it in the target's place, with
 * the target's permissions where it existed. On failure removes the
 * temporary file, leaves the target as it was, and returns -1 with why.
 */
int whole_file_commit(struct whole_file *f, char *why, size_t cap);

/* Gives up: closes and removes the temporary file. The target is as it was. */
void whole_file_abandon(struct whole_file *f);

/*
 * Whether `a` and `b` name one existing file (device and inode; a link
 * counts as its target). "-" names none.
 */
bool same_file(const char *a, const char *b);

#endif /* CLFOLD_CLI_WHOLE_FILE_H */
