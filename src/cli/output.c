/*
 * output.c: JSON and CSV strings and device descriptions for the runner.
 */
#include "output.h"

#include <stdbool.h>
#include <string.h>

#include "json.h"

void json_string(FILE *out, const char *text)
{
    fputc('"', out);
    for (const char *c = text; *c != '\0';) {
        size_t n = json_utf8_length(c, 4);
        if (n == 0) /* JSON is UTF-8: a byte that is no part of a character becomes U+FFFD */
            fputs("\\ufffd", out);
        else if (*c == '"' || *c == '\\')
            fprintf(out, "\\%c", *c);
        else if ((unsigned char)*c < 0x20)
            fprintf(out, "\\u%04x", (unsigned char)*c);
        else
            fwrite(c, 1, n, out);
        c += n ? n : 1;
    }
    fputc('"', out);
}

void csv_string(FILE *out, const char *text)
{
    fputc('"', out);
    for (const char *c = text; *c != '\0'; c++) {
        if (*c == '"')
            fputc('"', out);
        fputc((unsigned char)*c < 0x20 ? ' ' : *c, out);
    }
    fputc('"', out);
}

void csv_word(FILE *out, const char *text)
{
    bool bare = true;
    for (const char *c = text; *c != '\0' && bare; c++)
        bare = *c != ',' && *c != '"' && (unsigned char)*c >= 0x20;
    if (bare)
        fputs(text, out);
    else
        csv_string(out, text);
}

/* The escape of the character of `length` bytes at c (0: a byte that is not UTF-8), or "" where
 * it is printed as it is. */
static void escape_of(const unsigned char *c, size_t length, char escape[8])
{
    escape[0] = '\0';
    if (length == 0)
        snprintf(escape, 8, "\\x%02x", c[0]);
    else if (length == 2 && c[0] == 0xc2 && c[1] < 0xa0) /* U+0080..U+009F */
        snprintf(escape, 8, "\\u%04x", c[1]);
    else if (length == 1 && (c[0] == '\n' || c[0] == '\r' || c[0] == '\t' || c[0] == '\\'))
        snprintf(escape, 8, "\\%c", c[0] == '\n' ? 'n' : c[0] == '\r' ? 'r' : c[0] == '\t' ? 't' : '\\');
    else if (length == 1 && (c[0] < 0x20 || c[0] == 0x7f))
        snprintf(escape, 8, "\\x%02x", c[0]);
}

const char *plain_text(char *buf, size_t cap, const char *text)
{
    size_t used = 0;
    for (const char *c = text; *c != '\0';) {
        size_t length = json_utf8_length(c, 4), take = length ? length : 1;
        char escape[8];
        escape_of((const unsigned char *)c, length, escape);
        size_t n = escape[0] ? strlen(escape) : take;
        if (used + n >= cap)
            break;
        memcpy(buf + used, escape[0] ? escape : c, n);
        used += n;
        c += take;
    }
    if (cap > 0)
        buf[used] = '\0';
    return buf;
}

/* A device info string; "" when the query fails. */
static void device_string(cl_device_id device, cl_device_info param, char *buf, size_t cap)
{
    if (clGetDeviceInfo(device, param, cap, buf, NULL) != CL_SUCCESS)
        buf[0] = '\0';
    buf[cap - 1] = '\0';
}

static int has_extension(cl_device_id device, const char *name)
{
    char extensions[8192];
    device_string(device, CL_DEVICE_EXTENSIONS, extensions, sizeof extensions);
    return strstr(extensions, name) != NULL;
}

void describe_device(cl_device_id device, struct device_summary *s)
{
    cl_device_type type = 0;
    cl_platform_id platform = NULL;
    memset(s, 0, sizeof *s);
    device_string(device, CL_DEVICE_NAME, s->name, sizeof s->name);
    device_string(device, CL_DEVICE_VENDOR, s->vendor, sizeof s->vendor);
    device_string(device, CL_DRIVER_VERSION, s->driver, sizeof s->driver);
    device_string(device, CL_DEVICE_OPENCL_C_VERSION, s->c_version, sizeof s->c_version);
    device_string(device, CL_DEVICE_VERSION, s->device_version, sizeof s->device_version);
    clGetDeviceInfo(device, CL_DEVICE_MAX_CLOCK_FREQUENCY, sizeof s->max_clock_mhz, &s->max_clock_mhz, NULL);
    clGetDeviceInfo(device, CL_DEVICE_TYPE, sizeof type, &type, NULL);
    clGetDeviceInfo(device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof s->compute_units, &s->compute_units, NULL);
    clGetDeviceInfo(device, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof s->global_mem, &s->global_mem, NULL);
    clGetDeviceInfo(device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof s->local_mem, &s->local_mem, NULL);
    clGetDeviceInfo(device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof s->max_work_group, &s->max_work_group, NULL);
    if (clGetDeviceInfo(device, CL_DEVICE_PLATFORM, sizeof platform, &platform, NULL) == CL_SUCCESS) {
        clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof s->platform, s->platform, NULL);
        clGetPlatformInfo(platform, CL_PLATFORM_VERSION, sizeof s->version, s->version, NULL);
    }
    s->type = (type & CL_DEVICE_TYPE_GPU)           ? "GPU"
            : (type & CL_DEVICE_TYPE_CPU)           ? "CPU"
            : (type & CL_DEVICE_TYPE_ACCELERATOR)   ? "accelerator"
                                                    : "other";
    s->fp64 = has_extension(device, "cl_khr_fp64");
    s->fp16 = has_extension(device, "cl_khr_fp16");
}

const char *half_support(const struct device_summary *s)
{
    return s->fp16 ? "arithmetic" : "storage";
}

void json_device_members(FILE *out, const struct device_summary *s)
{
    const struct {
        const char *key, *value;
    } strings[] = {{"name", s->name},
                   {"vendor", s->vendor},
                   {"platform", s->platform},
                   {"driver", s->driver},
                   {"opencl_version", s->device_version},
                   {"opencl_c_version", s->c_version}};
    for (size_t i = 0; i < sizeof strings / sizeof strings[0]; i++) {
        fprintf(out, "%s\"%s\": ", i > 0 ? ", " : "", strings[i].key);
        json_string(out, strings[i].value);
    }
    fprintf(out,
            ", \"type\": \"%s\", \"compute_units\": %u, \"max_clock_mhz\": %u, "
            "\"global_mem_bytes\": %llu, \"local_mem_bytes\": %llu, \"max_work_group_size\": %zu, "
            "\"fp64\": %s, \"fp16\": %s, \"half\": \"%s\"",
            s->type, s->compute_units, s->max_clock_mhz, (unsigned long long)s->global_mem,
            (unsigned long long)s->local_mem, s->max_work_group, s->fp64 ? "true" : "false",
            s->fp16 ? "true" : "false", half_support(s));
}

void json_device(FILE *out, const struct device_summary *s)
{
    fputc('{', out);
    json_device_members(out, s);
    fputc('}', out);
}
