/*
 * output.h: small writers the runner's commands share: JSON and CSV
 * strings and the description of a device.
 */
#ifndef CLFOLD_CLI_OUTPUT_H
#define CLFOLD_CLI_OUTPUT_H

#include <stdio.h>

#include "clfold.h"

/*
 * Writes `text` as a JSON string literal, quotes included: `"`, `\` and
 * control characters escaped, UTF-8 as it is, and each byte that is no part
 * of a UTF-8 character as \ufffd, so that the output is valid JSON whatever
 * bytes a driver or a file gave.
 */
void json_string(FILE *out, const char *text);

/* Writes `text` as a CSV field: in quotes, quotes doubled, control characters as spaces. */
void csv_string(FILE *out, const char *text);

/* Writes `text` as a CSV field: bare where it holds no comma, quote or control character, else as
 * csv_string does. For the fields whose usual values (float, sum, auto) are bare words. */
void csv_word(FILE *out, const char *text);

/*
 * `text` made safe to print on a terminal, into buf (cap bytes; cut before
 * an escape that does not fit): C0 controls as \n, \r, \t or \xNN (ESC is
 * \x1b), DEL as \x7f, C1 controls (U+0080..U+009F, which some terminals
 * obey as ESC sequences) as \u0080.., a byte that is not UTF-8 as \xNN, and
 * a backslash as \\, so that each escape reads one way. Returns buf.
 */
const char *plain_text(char *buf, size_t cap, const char *text);

/* Room for plain_text of a string of n bytes: a byte takes at most 4. */
#define PLAIN_TEXT_CAP(n) (4 * (n) + 1)

/* What the runner reports about a device. */
struct device_summary {
    char name[256];
    char vendor[256];
    char driver[256];
    char platform[256];
    char version[256];      /* platform version, e.g. "OpenCL 3.0 PoCL 3.1..." */
    char c_version[128];    /* OpenCL C version */
    char device_version[128]; /* the device's OpenCL version, e.g. "OpenCL 3.0 PoCL ..." */
    const char *type;       /* "GPU", "CPU", "accelerator", "other" */
    cl_uint compute_units;
    cl_uint max_clock_mhz;
    cl_ulong global_mem;
    cl_ulong local_mem;
    size_t max_work_group;
    int fp64;
    int fp16;
};

void describe_device(cl_device_id device, struct device_summary *summary);

/* What clfold does with half data on the device: "storage" (converts it) or "arithmetic" (fp16). */
const char *half_support(const struct device_summary *summary);

/*
 * Writes the members that describe a device, for a JSON object whose braces
 * and other members the caller writes: name, vendor, platform, driver,
 * opencl_version, opencl_c_version, type, compute_units, max_clock_mhz,
 * global_mem_bytes, local_mem_bytes, max_work_group_size, fp64, fp16 and
 * half. The one description of a device in the runner's JSON: `clfold
 * devices`, the bench's document and json_device all write it.
 */
void json_device_members(FILE *out, const struct device_summary *summary);

/* The "device" object of the runner's JSON output: json_device_members in braces. */
void json_device(FILE *out, const struct device_summary *summary);

#endif /* CLFOLD_CLI_OUTPUT_H */
