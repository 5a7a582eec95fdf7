/*
 * ptx.c: edits NVIDIA's PTX text. NVIDIA's OpenCL compiler gives a kernel
 * as many registers as its group size allows and takes no cap: driver 580
 * ignores -cl-nv-maxrregcount=N and rejects the option spelled with a
 * space. PTX's own directives do bind ptxas, and a program's binary on
 * NVIDIA is its PTX text, which clCreateProgramWithBinary takes back; so
 * program.c rebuilds a program with one inserted here.
 */
#include "ptx.h"

#include <stdlib.h>
#include <string.h>

/* The body of the entry declared at `entry`: its "{" at the start of a line; NULL if none follows. */
static const char *entry_body(const char *entry)
{
    const char *brace = strstr(entry, "\n{");
    return brace != NULL ? brace + 1 : NULL;
}

size_t ptx_entries(const char *ptx)
{
    size_t entries = 0;
    for (const char *at = strstr(ptx, ".entry"); at != NULL; at = strstr(at + 1, ".entry")) {
        if (entry_body(at) == NULL)
            return 0;
        entries++;
    }
    return entries;
}

char *ptx_with_directive(const char *ptx, const char *directive, size_t *length)
{
    size_t entries = ptx_entries(ptx), directive_length = strlen(directive);
    char *edited = entries == 0 ? NULL : malloc(strlen(ptx) + entries * (directive_length + 1) + 1);
    if (edited == NULL)
        return NULL;
    char *out = edited;
    const char *from = ptx;
    for (const char *at = strstr(ptx, ".entry"); at != NULL; at = strstr(at + 1, ".entry")) {
        const char *body = entry_body(at);
        memcpy(out, from, (size_t)(body - from));
        out += body - from;
        memcpy(out, directive, directive_length);
        out += directive_length;
        *out++ = '\n';
        from = body;
    }
    strcpy(out, from);
    *length = (size_t)(out - edited) + strlen(from);
    return edited;
}
