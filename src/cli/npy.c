/*
 * npy.c: reads NumPy .npy files for the runner. Owns the format's preamble
 * (magic, version, header length), a small parser for the header's Python
 * dict literal, the mapping from dtype strings to clfold types, and the
 * checks that the data is exactly as long as the header says; and writes
 * them, whole or not at all (whole_file.c). "-" is standard input or output.
 *
 * The format: https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html
 * "\x93NUMPY", major and minor version bytes, a little-endian header length
 * (2 bytes in 1.0, 4 in 2.0 and 3.0), the header (an ASCII/UTF-8 dict literal
 * padded with spaces and a newline), then the raw data.
 */
#define _POSIX_C_SOURCE 200809L

#include "npy.h"
#include "whole_file.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const unsigned char MAGIC[] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
#define MAGIC_SIZE sizeof MAGIC
#define VERSION_END 8 /* magic and the two version bytes */

/*
 * A header for any dtype we accept is at most a few KiB (64 dimensions of 20
 * digits). The cap stops a corrupt length from making us allocate GiBs for
 * it; NumPy itself refuses headers over 10000 bytes by default.
 */
#define MAX_HEADER 1048576

/* Longer than any dtype or key we accept; longer strings are cut and refused. */
#define MAX_STRING 40

/* fread in pieces, for C libraries whose read() takes an int-sized count. */
#define READ_CHUNK ((size_t)1 << 30)

/* Where a message goes, and the name (a path) that starts it. */
struct report {
    const char *name;
    char *err;
    size_t cap;
};

/* Writes "name: <message>" into the report; returns -1 for `return fail(...)`. */
static int fail(const struct report *report, const char *format, ...)
{
    if (report->err == NULL || report->cap == 0)
        return -1;
    int used = snprintf(report->err, report->cap, "%s: ", report->name);
    if (used >= 0 && (size_t)used < report->cap) {
        va_list args;
        va_start(args, format);
        vsnprintf(report->err + used, report->cap - (size_t)used, format, args);
        va_end(args);
    }
    /* The name is a path, which may hold any byte: the reason stays one line. */
    for (char *c = report->err; *c != '\0'; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = '?';
    return -1;
}

#define FAIL(...)                            \
    do {                                     \
        rc = fail(report, __VA_ARGS__);      \
        goto cleanup;                        \
    } while (0)

/* ---- preamble -------------------------------------------------------------- */

struct preamble {
    unsigned major;
    size_t header_offset; /* 10 for version 1.0, 12 for 2.0 and 3.0 */
    size_t header_len;
};

/* Checks magic and version in the first `got` bytes; fills in header_offset. */
static int check_version(const unsigned char *bytes, size_t got, const struct report *report,
                         struct preamble *pre)
{
    size_t n = got < MAGIC_SIZE ? got : MAGIC_SIZE;
    if (memcmp(bytes, MAGIC, n) != 0)
        return fail(report, "not a .npy file (it does not start with \\x93NUMPY)");
    if (got < VERSION_END)
        return fail(report, "too short for a .npy file (%zu bytes)", got);
    pre->major = bytes[6];
    if (pre->major < 1 || pre->major > 3 || bytes[7] != 0)
        return fail(report,
                    "unsupported .npy format version %u.%u (this reader knows 1.0, 2.0 and 3.0)",
                    (unsigned)bytes[6], (unsigned)bytes[7]);
    pre->header_offset = pre->major == 1 ? 10 : 12;
    return 0;
}

/* Decodes the little-endian header length that follows the version bytes. */
static int read_header_len(const unsigned char *bytes, size_t got, const struct report *report,
                           struct preamble *pre)
{
    if (got < pre->header_offset)
        return fail(report, "too short for a .npy file (%zu bytes)", got);
    size_t len = (size_t)bytes[8] | (size_t)bytes[9] << 8;
    if (pre->major != 1)
        len |= (size_t)bytes[10] << 16 | (size_t)bytes[11] << 24;
    if (len > MAX_HEADER)
        return fail(report, "header of %zu bytes is larger than this reader's limit of %d bytes",
                    len, MAX_HEADER);
    pre->header_len = len;
    return 0;
}

static int header_beyond_file(const struct report *report, const struct preamble *pre,
                              size_t available)
{
    return fail(report,
                "header length %zu runs past the end of the file (%zu bytes follow the preamble)",
                pre->header_len, available);
}

/* ---- header dict ----------------------------------------------------------- */

/*
 * The header is a Python dict literal with exactly the keys 'descr',
 * 'fortran_order' and 'shape', in any order, quoted either way, with any
 * spacing and an optional trailing comma. The text is not NUL-terminated.
 */
struct parser {
    const char *text;
    size_t len;
    size_t pos;
    const struct report *report;
};

/* What the dict says. */
struct dict {
    bool has_descr, has_fortran, has_shape;
    char descr[MAX_STRING + 1];
    bool fortran_order;
    size_t count;     /* product of the shape; 1 for () */
    size_t ndim;
    size_t shape[NPY_MAX_DIMS];
};

static int peek(const struct parser *p)
{
    return p->pos < p->len ? (unsigned char)p->text[p->pos] : -1;
}

static bool is_digit(int c)
{
    return c >= '0' && c <= '9';
}

static bool is_word(int c)
{
    return is_digit(c) || c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* Python's whitespace inside brackets; not isspace(), which follows the locale. */
static void skip_space(struct parser *p)
{
    int c = peek(p);
    while (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v')
        c = (++p->pos, peek(p));
}

static int syntax(const struct parser *p, const char *expected)
{
    int c = peek(p);
    char found[32];
    if (c < 0)
        snprintf(found, sizeof found, "the end of the header");
    else if (c >= 0x20 && c < 0x7f)
        snprintf(found, sizeof found, "'%c'", c);
    else
        snprintf(found, sizeof found, "byte 0x%02x", (unsigned)c);
    return fail(p->report, "malformed header: expected %s at byte %zu of the header, found %s",
                expected, p->pos, found);
}

static int expect(struct parser *p, char c, const char *expected)
{
    skip_space(p);
    if (peek(p) != (unsigned char)c)
        return syntax(p, expected);
    p->pos++;
    return 0;
}

/*
 * A string in single or double quotes, into buf[0..cap). Bytes that are not
 * printable ASCII become '?', so that messages quoting it stay one line; a
 * string too long for buf is cut and ends in "...", so it matches nothing.
 */
static int parse_string(struct parser *p, char *buf, size_t cap)
{
    skip_space(p);
    int quote = peek(p);
    if (quote != '\'' && quote != '"')
        return syntax(p, "a quoted string");
    size_t start = ++p->pos;
    while (peek(p) >= 0 && peek(p) != quote && peek(p) != '\n' && peek(p) != '\\')
        p->pos++;
    if (peek(p) == '\\')
        return fail(p->report, "malformed header: escape sequences in strings are unsupported "
                               "(byte %zu of the header)",
                    p->pos);
    if (peek(p) != quote)
        return fail(p->report, "malformed header: unterminated string starting at byte %zu of "
                               "the header",
                    start - 1);
    size_t n = p->pos - start;
    p->pos++;
    for (size_t i = 0; i < n && i < cap - 1; i++) {
        unsigned char c = (unsigned char)p->text[start + i];
        buf[i] = c >= 0x20 && c < 0x7f ? (char)c : '?';
    }
    buf[n < cap - 1 ? n : cap - 1] = '\0';
    if (n > cap - 1)
        memcpy(buf + cap - 4, "...", 4);
    return 0;
}

static int parse_bool(struct parser *p, bool *value)
{
    skip_space(p);
    size_t start = p->pos;
    while (is_word(peek(p)))
        p->pos++;
    size_t n = p->pos - start;
    if (n == 4 && memcmp(p->text + start, "True", 4) == 0) {
        *value = true;
    } else if (n == 5 && memcmp(p->text + start, "False", 5) == 0) {
        *value = false;
    } else {
        p->pos = start;
        return syntax(p, "True or False for 'fortran_order'");
    }
    return 0;
}

/* Decimal digits, and the 'L' that Python 2 wrote after longs. */
static int parse_dim(struct parser *p, size_t *dim, bool *overflow)
{
    skip_space(p);
    if (peek(p) == '-')
        return fail(p->report, "malformed header: negative dimension in the shape (byte %zu of "
                               "the header)",
                    p->pos);
    if (!is_digit(peek(p)))
        return syntax(p, "a dimension (a non-negative integer)");
    size_t value = 0;
    while (is_digit(peek(p))) {
        size_t digit = (size_t)(p->text[p->pos++] - '0');
        if (value > (SIZE_MAX - digit) / 10)
            *overflow = true;
        else
            value = value * 10 + digit;
    }
    if (peek(p) == 'L' || peek(p) == 'l')
        p->pos++;
    *dim = value;
    return 0;
}

/*
 * A tuple: (), (5,), (3, 4), (2,3,4,). Like NumPy, a product that overflows
 * is an error even when another dimension is 0.
 */
static int parse_shape(struct parser *p, struct dict *d)
{
    bool overflow = false, zero = false;
    size_t count = 1, dim = 0;
    if (expect(p, '(', "'(' starting the shape tuple") != 0)
        return -1;
    skip_space(p);
    while (peek(p) != ')') {
        if (parse_dim(p, &dim, &overflow) != 0)
            return -1;
        if (d->ndim == NPY_MAX_DIMS)
            return fail(p->report, "the shape has more than %d dimensions, NumPy's limit",
                        NPY_MAX_DIMS);
        d->shape[d->ndim++] = dim;
        if (dim == 0)
            zero = true;
        else if (count > SIZE_MAX / dim)
            overflow = true;
        else
            count *= dim;
        skip_space(p);
        if (peek(p) == ',') {
            p->pos++;
            skip_space(p);
        } else if (peek(p) != ')') {
            return syntax(p, "',' or ')' in the shape tuple");
        } else if (d->ndim == 1) {
            return fail(p->report, "malformed header: shape (%zu) is not a tuple; one dimension "
                                   "is written (%zu,)",
                        dim, dim);
        }
    }
    p->pos++;
    if (overflow)
        return fail(p->report, "shape overflows: the product of its dimensions does not fit in "
                               "%zu bits",
                    sizeof(size_t) * CHAR_BIT);
    d->count = zero ? 0 : count;
    return 0;
}

static int parse_descr(struct parser *p, struct dict *d)
{
    skip_space(p);
    if (peek(p) == '[')
        return fail(p->report, "structured dtypes (a list of fields in 'descr') are unsupported");
    return parse_string(p, d->descr, sizeof d->descr);
}

/* One "key: value" pair. */
static int parse_entry(struct parser *p, struct dict *d)
{
    char key[MAX_STRING + 1];
    if (parse_string(p, key, sizeof key) != 0 || expect(p, ':', "':' after a key") != 0)
        return -1;
    bool *seen = strcmp(key, "descr") == 0           ? &d->has_descr
                 : strcmp(key, "fortran_order") == 0 ? &d->has_fortran
                 : strcmp(key, "shape") == 0         ? &d->has_shape
                                                     : NULL;
    if (seen == NULL)
        return fail(p->report, "header has an unknown key '%s' (expected only 'descr', "
                               "'fortran_order' and 'shape')",
                    key);
    if (*seen)
        return fail(p->report, "header has the key '%s' twice", key);
    *seen = true;
    if (seen == &d->has_descr)
        return parse_descr(p, d);
    if (seen == &d->has_fortran)
        return parse_bool(p, &d->fortran_order);
    return parse_shape(p, d);
}

static int parse_dict(struct parser *p, struct dict *d)
{
    if (expect(p, '{', "'{' starting the header dict") != 0)
        return -1;
    skip_space(p);
    while (peek(p) != '}') {
        if (parse_entry(p, d) != 0)
            return -1;
        skip_space(p);
        if (peek(p) == ',') {
            p->pos++;
            skip_space(p);
        } else if (peek(p) != '}') {
            return syntax(p, "',' or '}' after a value");
        }
    }
    p->pos++;
    skip_space(p); /* NumPy pads with spaces and ends with '\n' */
    if (peek(p) >= 0)
        return syntax(p, "nothing but spaces after the header dict");
    const char *missing = !d->has_descr ? "descr" : !d->has_fortran ? "fortran_order"
                        : !d->has_shape ? "shape" : NULL;
    if (missing != NULL)
        return fail(p->report, "header lacks the key '%s'", missing);
    return 0;
}

/* ---- dtype and layout ------------------------------------------------------ */

static const struct {
    const char *code;
    clfold_type type;
} DTYPES[] = {
    {"i1", CLFOLD_INT8},   {"u1", CLFOLD_UINT8},  {"i2", CLFOLD_INT16}, {"u2", CLFOLD_UINT16},
    {"i4", CLFOLD_INT32},  {"u4", CLFOLD_UINT32}, {"i8", CLFOLD_INT64}, {"u8", CLFOLD_UINT64},
    {"f2", CLFOLD_HALF},   {"f4", CLFOLD_FLOAT},  {"f8", CLFOLD_DOUBLE},
};

#define N_DTYPES (sizeof DTYPES / sizeof DTYPES[0])

/* The host's byte order, as a dtype writes it. */
static char host_order(void)
{
    const uint16_t one = 1;
    unsigned char first;
    memcpy(&first, &one, 1);
    return first == 1 ? '<' : '>';
}

static int refuse_dtype(const char *descr, const struct report *report)
{
    char kind = descr[0] != '\0' ? descr[1] : '\0';
    if (kind == 'b')
        return fail(report, "bool dtype '%s' is unsupported; convert it in NumPy with "
                            "arr.astype(np.uint8)",
                    descr);
    if (kind == 'c')
        return fail(report, "complex dtype '%s' is unsupported", descr);
    return fail(report, "dtype '%s' is unsupported (supported: i1 u1 i2 u2 i4 u4 i8 u8 f2 f4 f8, "
                        "either byte order)",
                descr);
}

/* The element type, and whether its bytes come in the other order than the host's. */
static int parse_dtype(const char *descr, const struct report *report, clfold_type *type,
                       bool *swapped)
{
    char order = descr[0];
    size_t i = 0;
    *swapped = false;
    if (order == '\0' || strchr("<>|=", order) == NULL)
        return refuse_dtype(descr, report);
    while (i < N_DTYPES && strcmp(descr + 1, DTYPES[i].code) != 0)
        i++;
    if (i == N_DTYPES)
        return refuse_dtype(descr, report);
    *type = DTYPES[i].type;
    if (clfold_type_size(*type) == 1)
        return 0; /* one byte has no byte order: '|', '<', '>' and '=' are the same */
    if (order == '|')
        return fail(report, "dtype '%s' gives no byte order for a multi-byte type", descr);
    /* '=' is "native"; NumPy writes '<' or '>', so only hand-made files have it. */
    *swapped = order != '=' && order != host_order();
    return 0;
}

/* Puts each of the `count` elements of `size` bytes at `data` into the other byte order. */
static void swap_bytes(unsigned char *data, size_t count, size_t size)
{
    for (size_t i = 0; i < count; i++, data += size)
        for (size_t lo = 0, hi = size - 1; lo < hi; lo++, hi--) {
            unsigned char byte = data[lo];
            data[lo] = data[hi];
            data[hi] = byte;
        }
}

/* What the header describes: the type and how many bytes of data follow. */
struct layout {
    clfold_type type;
    size_t count;
    size_t ndim;
    size_t shape[NPY_MAX_DIMS];
    bool fortran_order;
    size_t item_size;
    size_t bytes;
    bool swapped;  /* the data's byte order is not the host's: swapped after reading */
};

static int parse_header(const char *text, size_t len, const struct report *report,
                        struct layout *lay)
{
    struct parser p = {text, len, 0, report};
    struct dict d = {0};
    if (parse_dict(&p, &d) != 0 || parse_dtype(d.descr, report, &lay->type, &lay->swapped) != 0)
        return -1;
    /* Fortran order stores the first index fastest: the data are kept as they lie. */
    lay->ndim = d.ndim;
    memcpy(lay->shape, d.shape, d.ndim * sizeof *d.shape);
    lay->fortran_order = d.fortran_order;
    lay->item_size = clfold_type_size(lay->type);
    if (d.count > SIZE_MAX / lay->item_size)
        return fail(report, "data size overflows: %zu elements of %zu bytes", d.count,
                    lay->item_size);
    lay->count = d.count;
    lay->bytes = d.count * lay->item_size;
    return 0;
}

/* Too little data is a truncated file; too much means the header is wrong. */
static int check_data_size(const struct layout *lay, size_t available, const struct report *report)
{
    if (available < lay->bytes)
        return fail(report,
                    "truncated: header says %zu elements of %zu bytes, file has %zu bytes of data",
                    lay->count, lay->item_size, available);
    if (available > lay->bytes)
        return fail(report,
                    "file has %zu more bytes than the header describes (%zu elements of %zu bytes)",
                    available - lay->bytes, lay->count, lay->item_size);
    return 0;
}

static void clear(struct npy_array *array)
{
    array->type = CLFOLD_UINT8;
    array->count = 0;
    array->data = NULL;
    array->ndim = 0;
    array->fortran_order = false;
}

/* The array's type and shape from what the header says (the data are the caller's). */
static void describe(struct npy_array *out, const struct layout *lay)
{
    out->type = lay->type;
    out->count = lay->count;
    out->ndim = lay->ndim;
    memcpy(out->shape, lay->shape, lay->ndim * sizeof *lay->shape);
    out->fortran_order = lay->fortran_order;
}

/* ---- from memory ----------------------------------------------------------- */

int npy_read_memory(const void *bytes, size_t size, const char *name, struct npy_array *out,
                    char *err, size_t err_cap)
{
    const struct report report = {name != NULL ? name : "<memory>", err, err_cap};
    const unsigned char *b = bytes != NULL ? bytes : (const unsigned char *)"";
    struct preamble pre = {0}; /* gcc -O3 cannot see that check_version sets it first */
    struct layout lay = {0};

    if (out == NULL || (bytes == NULL && size > 0))
        return fail(&report, "npy_read_memory: NULL buffer or output array");
    clear(out);
    if (check_version(b, size, &report, &pre) != 0 || read_header_len(b, size, &report, &pre) != 0)
        return -1;
    if (pre.header_len > size - pre.header_offset)
        return header_beyond_file(&report, &pre, size - pre.header_offset);
    if (parse_header((const char *)b + pre.header_offset, pre.header_len, &report, &lay) != 0)
        return -1;
    size_t offset = pre.header_offset + pre.header_len;
    if (check_data_size(&lay, size - offset, &report) != 0)
        return -1;
    if (lay.bytes > 0) {
        out->data = malloc(lay.bytes);
        if (out->data == NULL)
            return fail(&report, "out of memory for %zu bytes of data", lay.bytes);
        memcpy(out->data, b + offset, lay.bytes);
        if (lay.swapped)
            swap_bytes(out->data, lay.count, lay.item_size);
    }
    describe(out, &lay);
    return 0;
}

/* ---- from a file ----------------------------------------------------------- */

/* An open file, and its size when it is a regular file (not a pipe). */
struct source {
    FILE *file;
    bool size_known;
    size_t size;
};

static void find_size(struct source *src)
{
    struct stat st;
    src->size_known = fstat(fileno(src->file), &st) == 0 && S_ISREG(st.st_mode) &&
                      st.st_size >= 0 && (uintmax_t)st.st_size <= SIZE_MAX;
    src->size = src->size_known ? (size_t)st.st_size : 0;
}

static size_t read_fully(FILE *file, void *buf, size_t size)
{
    size_t done = 0;
    while (done < size) {
        size_t want = size - done < READ_CHUNK ? size - done : READ_CHUNK;
        size_t got = fread((char *)buf + done, 1, want, file);
        done += got;
        if (got < want)
            break;
    }
    return done;
}

/* Bytes left after the data: none in a good file; counted for the message. */
static size_t count_rest(FILE *file)
{
    char scratch[4096];
    size_t total = 0, got = 0;
    while ((got = fread(scratch, 1, sizeof scratch, file)) > 0)
        total += got;
    return total;
}

static int read_error(FILE *file, const struct report *report)
{
    int saved = errno;
    if (!ferror(file))
        return 0;
    return fail(report, "read error: %s", strerror(saved != 0 ? saved : EIO));
}

static int read_preamble(struct source *src, const struct report *report, struct preamble *pre)
{
    unsigned char buf[12];
    errno = 0;
    size_t got = read_fully(src->file, buf, VERSION_END);
    if (read_error(src->file, report) != 0 || check_version(buf, got, report, pre) != 0)
        return -1;
    got += read_fully(src->file, buf + got, pre->header_offset - got);
    if (read_error(src->file, report) != 0 || read_header_len(buf, got, report, pre) != 0)
        return -1;
    return 0;
}

/* Reads the header text into a malloc'ed buffer (*text, freed by the caller). */
static int read_header(struct source *src, const struct report *report, const struct preamble *pre,
                       char **text)
{
    *text = NULL;
    if (src->size_known && pre->header_len > src->size - pre->header_offset)
        return header_beyond_file(report, pre, src->size - pre->header_offset);
    *text = malloc(pre->header_len > 0 ? pre->header_len : 1);
    if (*text == NULL)
        return fail(report, "out of memory for a header of %zu bytes", pre->header_len);
    errno = 0;
    size_t got = read_fully(src->file, *text, pre->header_len);
    if (read_error(src->file, report) != 0)
        return -1;
    if (got < pre->header_len)
        return header_beyond_file(report, pre, got);
    return 0;
}

/*
 * Reads the data straight into the buffer that *out keeps: files can be
 * several GiB, too big to hold twice. A regular file's size is checked first,
 * so that a lying header gets "truncated" rather than a huge malloc.
 */
static int read_data(struct source *src, const struct report *report, size_t offset,
                     const struct layout *lay, struct npy_array *out)
{
    int rc = -1;
    void *data = NULL;
    size_t got = 0;

    if (src->size_known && check_data_size(lay, src->size - offset, report) != 0)
        goto cleanup;
    if (lay->bytes > 0 && (data = malloc(lay->bytes)) == NULL)
        FAIL("out of memory for %zu bytes of data", lay->bytes);
    errno = 0;
    got = read_fully(src->file, data, lay->bytes);
    if (got == lay->bytes)
        got += count_rest(src->file); /* a pipe, or a file that grew meanwhile */
    if (read_error(src->file, report) != 0 || check_data_size(lay, got, report) != 0)
        goto cleanup;
    if (lay->swapped)
        swap_bytes(data, lay->count, lay->item_size);
    describe(out, lay);
    out->data = data;
    data = NULL;
    rc = 0;
cleanup:
    free(data);
    return rc;
}

/* An open .npy file whose preamble and header are read. */
struct opened {
    struct source src;
    struct preamble pre;
    struct layout lay;
    char *header; /* the header's text, malloc'ed */
};

/*
 * Opens `path` and reads its preamble and header into *f: what reading a
 * whole file and reading a part share. close_npy(f) afterwards, on failure
 * too.
 */
static int open_npy(const char *path, const struct report *report, struct opened *f)
{
    memset(f, 0, sizeof *f);
    f->src.file = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (f->src.file == NULL)
        return fail(report, "cannot open: %s", strerror(errno));
    find_size(&f->src);
    if (read_preamble(&f->src, report, &f->pre) != 0 ||
        read_header(&f->src, report, &f->pre, &f->header) != 0 ||
        parse_header(f->header, f->pre.header_len, report, &f->lay) != 0)
        return -1;
    return 0;
}

static void close_npy(struct opened *f)
{
    free(f->header);
    if (f->src.file != NULL && f->src.file != stdin)
        fclose(f->src.file);
}

int npy_read_file(const char *path, struct npy_array *out, char *err, size_t err_cap)
{
    int rc = -1;
    const struct report whom = {path != NULL ? path : "(null)", err, err_cap};
    const struct report *report = &whom;
    struct opened f = {{NULL, false, 0}, {0}, {0}, NULL};

    if (path == NULL || out == NULL)
        FAIL("npy_read_file: NULL path or output array");
    clear(out);
    if (open_npy(path, report, &f) == 0)
        rc = read_data(&f.src, report, f.pre.header_offset + f.pre.header_len, &f.lay, out);
cleanup:
    close_npy(&f);
    return rc;
}

/* ---- one part of a file: an MPI rank's slice ------------------------------- */

/* Where part `part` of `parts` begins: the first count % parts parts hold one more. */
static size_t part_start(size_t count, size_t part, size_t parts)
{
    size_t rest = count % parts;
    return count / parts * part + (part < rest ? part : rest);
}

int npy_read_part(const char *path, size_t part, size_t parts, struct npy_part *out, char *err,
                  size_t err_cap)
{
    int rc = -1;
    const struct report whom = {path != NULL ? path : "(null)", err, err_cap};
    const struct report *report = &whom;
    struct opened f = {{NULL, false, 0}, {0}, {0}, NULL};

    if (out != NULL) {
        memset(out, 0, sizeof *out);
        clear(&out->whole);
    }
    if (path == NULL || out == NULL || parts == 0 || part >= parts)
        FAIL("npy_read_part: NULL path or output, or part %zu of %zu", part, parts);
    if (open_npy(path, report, &f) != 0)
        goto cleanup;
    size_t offset = f.pre.header_offset + f.pre.header_len;
    if (!f.src.size_known)
        FAIL("not a regular file: each rank reads its own slice at an offset");
    if (check_data_size(&f.lay, f.src.size - offset, report) != 0)
        goto cleanup;
    size_t first = part_start(f.lay.count, part, parts);
    size_t count = part_start(f.lay.count, part + 1, parts) - first;
    size_t bytes = count * f.lay.item_size;
    if (bytes > 0 && (out->data = malloc(bytes)) == NULL)
        FAIL("out of memory for %zu bytes of data", bytes);
    if (fseeko(f.src.file, (off_t)(offset + first * f.lay.item_size), SEEK_SET) != 0)
        FAIL("cannot seek to element %zu: %s", first, strerror(errno));
    errno = 0;
    if (read_fully(f.src.file, out->data, bytes) != bytes) {
        if (read_error(f.src.file, report) == 0)
            fail(report, "truncated while reading elements %zu..%zu", first, first + count);
        goto cleanup;
    }
    if (f.lay.swapped)
        swap_bytes(out->data, count, f.lay.item_size);
    describe(&out->whole, &f.lay);
    out->first = first;
    out->count = count;
    rc = 0;
cleanup:
    if (rc != 0 && out != NULL) {
        free(out->data);
        out->data = NULL;
    }
    close_npy(&f);
    return rc;
}

/* ---- writing ---------------------------------------------------------------- */

int npy_write(const char *path, clfold_type type, size_t ndim, const size_t *shape,
              const void *data, char *err, size_t err_cap)
{
    int rc = -1;
    const struct report whom = {path != NULL ? path : "(null)", err, err_cap};
    const struct report *report = &whom;
    size_t i = 0, count = 1;
    struct whole_file file = {NULL, NULL, NULL};

    while (i < N_DTYPES && DTYPES[i].type != type)
        i++;
    if (path == NULL || (shape == NULL && ndim != 0) || ndim > NPY_MAX_DIMS || i == N_DTYPES)
        FAIL("npy_write: NULL path or shape, too many dimensions, or a type .npy has no code "
             "for");
    size_t size = clfold_type_size(type);
    /* The dict, then the spaces and newline that pad the header to 64 bytes, as NumPy pads. */
    char header[64 + NPY_MAX_DIMS * 24 + 64], dims[NPY_MAX_DIMS * 24 + 4] = "";
    size_t used = 0;
    for (size_t d = 0; d < ndim; d++) {
        used += (size_t)snprintf(dims + used, sizeof dims - used, "%s%zu", d > 0 ? ", " : "",
                                 shape[d]);
        if (shape[d] != 0 && count > SIZE_MAX / size / shape[d])
            FAIL("npy_write: the shape's elements overflow the address space");
        count *= shape[d];
    }
    if (data == NULL && count > 0)
        FAIL("npy_write: NULL data for %zu elements", count);
    if (ndim == 1)
        strcat(dims, ",");
    int len = snprintf(header, sizeof header,
                       "{'descr': '%c%s', 'fortran_order': False, 'shape': (%s), }",
                       size == 1 ? '|' : host_order(), DTYPES[i].code, dims);
    size_t padded = (10 + (size_t)len + 1 + 63) / 64 * 64 - 10;
    memset(header + len, ' ', padded - (size_t)len - 1);
    header[padded - 1] = '\n';
    const unsigned char preamble[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0,
                                        (unsigned char)(padded & 0xff), (unsigned char)(padded >> 8)};
    char why[256];
    if (whole_file_open(&file, path, why, sizeof why) != 0)
        FAIL("%s", why);
    if (fwrite(preamble, 1, sizeof preamble, file.file) != sizeof preamble ||
        fwrite(header, 1, padded, file.file) != padded ||
        (count > 0 && fwrite(data, size, count, file.file) != count))
        FAIL("write error: %s", strerror(errno));
    if (whole_file_commit(&file, why, sizeof why) != 0)
        FAIL("%s", why);
    rc = 0;
cleanup:
    whole_file_abandon(&file);
    return rc;
}

int npy_write_scalar(const char *path, clfold_type type, const void *value, char *err,
                     size_t err_cap)
{
    return npy_write(path, type, 0, NULL, value, err, err_cap);
}

void npy_part_free(struct npy_part *part)
{
    if (part == NULL)
        return;
    free(part->data);
    part->data = NULL;
    part->first = part->count = 0;
}

void npy_free(struct npy_array *array)
{
    if (array == NULL)
        return;
    free(array->data);
    clear(array);
}
