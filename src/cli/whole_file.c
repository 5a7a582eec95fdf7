/*
 * whole_file.c: a file the user names is replaced whole or not at all
 * (whole_file.h). The temporary file lies in the target's folder, so that
 * the rename that replaces the target never crosses a file system.
 */
#define _XOPEN_SOURCE 700 /* realpath, fchmod */

#include "whole_file.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int say(char *why, size_t cap, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    if (why != NULL && cap > 0)
        vsnprintf(why, cap, format, args);
    va_end(args);
    return -1;
}

/* A malloc'ed copy of `text`; NULL when out of memory. */
static char *copy_of(const char *text)
{
    char *copy = malloc(strlen(text) + 1);
    if (copy != NULL)
        strcpy(copy, text);
    return copy;
}

/* "DIR/.BASE.XXXXXX" beside `target`, for mkstemp; NULL when out of memory. */
static char *temporary_name(const char *target)
{
    const char *slash = strrchr(target, '/');
    size_t dir = slash != NULL ? (size_t)(slash - target) + 1 : 0;
    char *name = malloc(strlen(target) + sizeof "..XXXXXX");
    if (name != NULL)
        sprintf(name, "%.*s.%s.XXXXXX", (int)dir, target, target + dir);
    return name;
}

int whole_file_open(struct whole_file *f, const char *path, char *why, size_t cap)
{
    struct stat st;
    memset(f, 0, sizeof *f);
    if (strcmp(path, "-") == 0) {
        f->file = stdout;
        return 0;
    }
    bool exists = stat(path, &st) == 0;
    if (exists && !S_ISREG(st.st_mode)) {
        f->file = fopen(path, "wb");
        return f->file != NULL ? 0 : say(why, cap, "cannot open: %s", strerror(errno));
    }
    /* A link to a file: replace the file it names, beside it. */
    f->target = exists ? realpath(path, NULL) : copy_of(path);
    if (f->target == NULL)
        return say(why, cap, "cannot create: %s", strerror(errno));
    f->temporary = temporary_name(f->target);
    if (f->temporary == NULL) {
        whole_file_abandon(f);
        return say(why, cap, "cannot create: out of memory");
    }
    int fd = mkstemp(f->temporary);
    if (fd < 0) {
        int error = errno;
        free(f->temporary); /* nothing was made to remove */
        f->temporary = NULL;
        whole_file_abandon(f);
        return say(why, cap, "cannot create: %s", strerror(error));
    }
    f->file = fdopen(fd, "wb");
    if (f->file == NULL) {
        close(fd);
        whole_file_abandon(f);
        return say(why, cap, "cannot create: out of memory");
    }
    return 0;
}

/* The target's permissions where it exists, else a new file's (0666 less the umask). */
static mode_t mode_for(const char *target)
{
    struct stat st;
    if (stat(target, &st) == 0)
        return st.st_mode & 07777;
    mode_t mask = umask(0);
    umask(mask);
    return 0666 & ~mask;
}

int whole_file_commit(struct whole_file *f, char *why, size_t cap)
{
    if (f->file == stdout) {
        f->file = NULL;
        return fflush(stdout) == 0 && !ferror(stdout) ? 0
                                                      : say(why, cap, "write error: %s",
                                                            strerror(errno));
    }
    if (f->temporary == NULL) {
        int closed = fclose(f->file);
        f->file = NULL;
        return closed == 0 ? 0 : say(why, cap, "write error: %s", strerror(errno));
    }
    int fd = fileno(f->file);
    if (fflush(f->file) != 0 || fsync(fd) != 0 || fchmod(fd, mode_for(f->target)) != 0) {
        int error = errno;
        whole_file_abandon(f);
        return say(why, cap, "write error: %s", strerror(error));
    }
    int closed = fclose(f->file);
    f->file = NULL;
    if (closed != 0 || rename(f->temporary, f->target) != 0) {
        int error = errno;
        whole_file_abandon(f);
        return say(why, cap, "write error: %s", strerror(error));
    }
    free(f->temporary);
    free(f->target);
    memset(f, 0, sizeof *f);
    return 0;
}

void whole_file_abandon(struct whole_file *f)
{
    if (f->file != NULL && f->file != stdout)
        fclose(f->file);
    if (f->temporary != NULL)
        unlink(f->temporary);
    free(f->temporary);
    free(f->target);
    memset(f, 0, sizeof *f);
}

bool same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return a != NULL && b != NULL && strcmp(a, "-") != 0 && strcmp(b, "-") != 0 &&
           stat(a, &sa) == 0 && stat(b, &sb) == 0 &&
           sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}
