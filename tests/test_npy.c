/*
 * test_npy.c: the .npy reader of the runner (src/cli/npy.c). Builds .npy
 * images in memory as NumPy writes them, and checks that every accepted dtype
 * and shape reads back exactly, and that every malformed or unsupported file
 * is refused with a one-line reason. Exits non-zero on any failure.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clfold.h"
#include "npy.h"
#include "util.h"

struct image {
    unsigned char *bytes;
    size_t size;
};

/*
 * A .npy image as np.save writes it: magic, version, little-endian header
 * length, the dict padded with spaces and ended by '\n' so that the data
 * starts at a multiple of 64, then the data.
 */
static struct image make_npy(unsigned major, const char *dict, const void *data, size_t data_size)
{
    size_t prefix = major == 1 ? 10 : 12;
    size_t text = strlen(dict);
    size_t padded = (prefix + text + 1 + 63) / 64 * 64 - prefix;
    struct image img = {malloc(prefix + padded + data_size), prefix + padded + data_size};
    if (img.bytes == NULL) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    memcpy(img.bytes, "\x93NUMPY", 6);
    img.bytes[6] = (unsigned char)major;
    img.bytes[7] = 0;
    for (size_t i = 0; i < prefix - 8; i++)
        img.bytes[8 + i] = (unsigned char)(padded >> (8 * i));
    memset(img.bytes + prefix, ' ', padded);
    memcpy(img.bytes + prefix, dict, text);
    img.bytes[prefix + padded - 1] = '\n';
    if (data_size > 0)
        memcpy(img.bytes + prefix + padded, data, data_size);
    return img;
}

/* A version 1.0 image of `count` elements of `item` bytes, filled with a pattern. */
static struct image make_simple(const char *descr, const char *shape, size_t count, size_t item)
{
    char dict[256];
    unsigned char *data = malloc(count * item + 1);
    snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr,
             shape);
    for (size_t i = 0; i < count * item; i++)
        data[i] = (unsigned char)(i * 7 + 3);
    struct image img = make_npy(1, dict, data, count * item);
    free(data);
    return img;
}

static void expect_ok(struct image img, clfold_type type, size_t count, const void *data,
                      const char *label)
{
    char err[256] = "";
    struct npy_array arr;
    size_t bytes = count * clfold_type_size(type);
    int rc = npy_read_memory(img.bytes, img.size, label, &arr, err, sizeof err);
    EXPECT(rc == 0, "%s: rejected: %s", label, err);
    if (rc == 0) {
        EXPECT(arr.type == type, "%s: type %d, expected %d", label, (int)arr.type, (int)type);
        EXPECT(arr.count == count, "%s: count %zu, expected %zu", label, arr.count, count);
        EXPECT((count == 0) == (arr.data == NULL), "%s: data pointer %p for count %zu", label,
              arr.data, arr.count);
        if (arr.count == count && count > 0 && data != NULL)
            EXPECT(memcmp(arr.data, data, bytes) == 0, "%s: data differs", label);
    }
    npy_free(&arr);
    EXPECT(arr.data == NULL && arr.count == 0, "%s: npy_free did not empty the array", label);
    free(img.bytes);
}

/* The data that make_simple wrote: checks the copy, not just the count. */
static void expect_simple(const char *descr, const char *shape, size_t count, clfold_type type)
{
    size_t item = clfold_type_size(type);
    struct image img = make_simple(descr, shape, count, item);
    char label[96];
    snprintf(label, sizeof label, "%s %s", descr, shape);
    expect_ok(img, type, count, img.bytes + img.size - count * item, label);
}

/* Refused, with a one-line message that names the input and contains `needle`. */
static void check_refusal(int rc, const struct npy_array *arr, const char *err, const char *name,
                          const char *needle, const char *label)
{
    EXPECT(rc == -1, "%s: accepted, expected a refusal mentioning \"%s\"", label, needle);
    EXPECT(err[0] != '\0', "%s: empty message", label);
    EXPECT(strchr(err, '\n') == NULL, "%s: message has a newline: %s", label, err);
    EXPECT(strncmp(err, name, strlen(name)) == 0, "%s: message does not start with the name: %s",
          label, err);
    EXPECT(strstr(err, needle) != NULL, "%s: message lacks \"%s\": %s", label, needle, err);
    EXPECT(arr->data == NULL && arr->count == 0, "%s: output not empty after failure", label);
}

static void expect_fail(struct image img, const char *needle, const char *label)
{
    char err[512] = "";
    struct npy_array arr = {.type = CLFOLD_FLOAT, .count = 99};
    int rc = npy_read_memory(img.bytes, img.size, "in.npy", &arr, err, sizeof err);
    check_refusal(rc, &arr, err, "in.npy", needle, label);
    if (rc == 0)
        npy_free(&arr);
    free(img.bytes);
}

static void expect_dict_fail(const char *dict, const char *needle)
{
    expect_fail(make_npy(1, dict, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 16), needle, dict);
}

static void test_dtypes(void)
{
    const int8_t i8[] = {INT8_MIN, -1, 0, 1, INT8_MAX};
    const uint8_t u8[] = {0, 1, 128, 254, UINT8_MAX};
    const int16_t i16[] = {INT16_MIN, -1, 0, 1, INT16_MAX};
    const uint16_t u16[] = {0, 1, 0x8000, 0xfffe, UINT16_MAX};
    const int32_t i32[] = {INT32_MIN, -1, 0, 1, INT32_MAX};
    const uint32_t u32[] = {0, 1, 0x80000000u, 0xfffffffeu, UINT32_MAX};
    const int64_t i64[] = {INT64_MIN, -1, 0, 1, INT64_MAX};
    const uint64_t u64[] = {0, 1, UINT64_C(1) << 63, UINT64_MAX - 1, UINT64_MAX};
    const uint16_t f16[] = {0x3c00, 0xc000, 0x7c00, 0x0001, 0x8000}; /* 1, -2, inf, subnormal, -0 */
    const float f32[] = {1.5f, -0.0f, 3.4028235e38f, 1e-45f, -123.25f};
    const double f64[] = {1.5, -0.0, 1.7976931348623157e308, 5e-324, -123.25};
    const struct {
        const char *descr;
        clfold_type type;
        const void *values;
    } cases[] = {
        {"|i1", CLFOLD_INT8, i8},    {"|u1", CLFOLD_UINT8, u8},   {"<i2", CLFOLD_INT16, i16},
        {"<u2", CLFOLD_UINT16, u16}, {"<i4", CLFOLD_INT32, i32},  {"<u4", CLFOLD_UINT32, u32},
        {"<i8", CLFOLD_INT64, i64},  {"<u8", CLFOLD_UINT64, u64}, {"<f2", CLFOLD_HALF, f16},
        {"<f4", CLFOLD_FLOAT, f32},  {"<f8", CLFOLD_DOUBLE, f64},
        /* other spellings of the same types */
        {"<i1", CLFOLD_INT8, i8},    {"<u1", CLFOLD_UINT8, u8},   {">u1", CLFOLD_UINT8, u8},
        {"=i4", CLFOLD_INT32, i32},  {"=f8", CLFOLD_DOUBLE, f64},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char dict[128];
        size_t bytes = 5 * clfold_type_size(cases[i].type);
        snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (5,), }",
                 cases[i].descr);
        expect_ok(make_npy(1, dict, cases[i].values, bytes), cases[i].type, 5, cases[i].values,
                  cases[i].descr);
    }
    /* The other byte order ('>' on this little-endian host): the same values after reading. */
    for (size_t i = 2; i < 11; i++) {
        unsigned char swapped[5 * 8];
        size_t size = clfold_type_size(cases[i].type);
        for (size_t e = 0; e < 5; e++)
            for (size_t b = 0; b < size; b++)
                swapped[e * size + b] = ((const unsigned char *)cases[i].values)[e * size + size - 1 - b];
        char dict[128];
        snprintf(dict, sizeof dict, "{'descr': '>%s', 'fortran_order': False, 'shape': (5,), }",
                 cases[i].descr + 1);
        expect_ok(make_npy(1, dict, swapped, 5 * size), cases[i].type, 5, cases[i].values, dict);
    }
    /* The values, not just the bytes: what a caller reads as int32/double. */
    struct npy_array arr;
    char err[256] = "";
    struct image img = make_npy(1, "{'descr': '<i4', 'fortran_order': False, 'shape': (5,)}", i32,
                                sizeof i32);
    EXPECT(npy_read_memory(img.bytes, img.size, "i32", &arr, err, sizeof err) == 0, "%s", err);
    EXPECT(arr.count == 5 && ((int32_t *)arr.data)[0] == INT32_MIN &&
              ((int32_t *)arr.data)[4] == INT32_MAX, "int32 values");
    npy_free(&arr);
    free(img.bytes);
}

static void test_shapes(void)
{
    expect_simple("<f4", "()", 1, CLFOLD_FLOAT);
    expect_simple("<f4", "(0,)", 0, CLFOLD_FLOAT);
    expect_simple("<f4", "(1,)", 1, CLFOLD_FLOAT);
    expect_simple("<f4", "(7,)", 7, CLFOLD_FLOAT);
    expect_simple("<i2", "(3, 4)", 12, CLFOLD_INT16);
    expect_simple("<f8", "(2,3,4,)", 24, CLFOLD_DOUBLE);
    expect_simple("|u1", "(0, 3)", 0, CLFOLD_UINT8);
    expect_simple("<i8", "(1, 1, 1)", 1, CLFOLD_INT64);
    expect_simple("<u4", "(257,)", 257, CLFOLD_UINT32);
    expect_simple("<i4", "(5L,)", 5, CLFOLD_INT32); /* Python 2 wrote longs with an L */
    expect_simple("<i4", "( 2 ,\n 3 , )", 6, CLFOLD_INT32);
    /* 4096 elements of 8 bytes: more than any small-buffer path */
    expect_simple("<u8", "(64, 64)", 4096, CLFOLD_UINT64);
}

/* The shape and order come through as the header says; npy_write writes them back. */
static void test_shape_kept(void)
{
    const float data[6] = {1, 2, 3, 4, 5, 6};
    char err[512] = "";
    struct npy_array arr = {0}, back = {0};
    struct image img = make_npy(1, "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3)}",
                                data, sizeof data);
    EXPECT(npy_read_memory(img.bytes, img.size, "in.npy", &arr, err, sizeof err) == 0, "%s", err);
    EXPECT(arr.ndim == 2 && arr.shape[0] == 2 && arr.shape[1] == 3 && arr.fortran_order,
           "shape (2, 3) Fortran read as %zu-d (%zu, %zu) %s", arr.ndim, arr.shape[0],
           arr.shape[1], arr.fortran_order ? "Fortran" : "C");
    free(img.bytes);
    npy_free(&arr);
    img = make_npy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': ()}", data, 4);
    EXPECT(npy_read_memory(img.bytes, img.size, "in.npy", &arr, err, sizeof err) == 0, "%s", err);
    EXPECT(arr.ndim == 0 && !arr.fortran_order, "shape () read as %zu-d", arr.ndim);
    free(img.bytes);
    npy_free(&arr);

    static const size_t shapes[][4] = {{1, 6}, {2, 2, 3}, {3, 1, 6, 1}}; /* ndim, shape */
    char path[] = "/tmp/clfold_test_npy_XXXXXX";
    int fd = mkstemp(path);
    EXPECT(fd >= 0, "mkstemp");
    if (fd < 0)
        return;
    close(fd);
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        size_t ndim = shapes[s][0];
        EXPECT(npy_write(path, CLFOLD_FLOAT, ndim, shapes[s] + 1, data, err, sizeof err) == 0,
               "%s", err);
        EXPECT(npy_read_file(path, &back, err, sizeof err) == 0, "%s", err);
        EXPECT(back.ndim == ndim && back.count == 6 && !back.fortran_order &&
                   memcmp(back.shape, shapes[s] + 1, ndim * sizeof(size_t)) == 0 &&
                   back.data != NULL && memcmp(back.data, data, sizeof data) == 0,
               "npy_write of a %zu-d array did not read back", ndim);
        npy_free(&back);
    }
    size_t empty[2] = {0, 4};
    EXPECT(npy_write(path, CLFOLD_INT64, 2, empty, NULL, err, sizeof err) == 0, "%s", err);
    EXPECT(npy_read_file(path, &back, err, sizeof err) == 0 && back.ndim == 2 && back.count == 0,
           "an empty (0, 4) array did not read back: %s", err);
    npy_free(&back);
    remove(path);
}

static void test_header_spellings(void)
{
    const float data[6] = {1, 2, 3, 4, 5, 6};
    const char *dicts[] = {
        "{'descr': '<f4', 'fortran_order': False, 'shape': (6,), }",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (6,)}",
        "{\"descr\": \"<f4\", \"fortran_order\": False, \"shape\": (6,)}",
        "{'shape': (6,), 'descr': '<f4', 'fortran_order': False}",
        "{'fortran_order':False,'shape':(6,),'descr':'<f4',}",
        "  {\n 'descr' :  '<f4' ,\t'fortran_order' : False , 'shape' : ( 6 , ) , }  ",
        "{'descr': '<f4', 'fortran_order': True, 'shape': (6,)}",       /* 1-D Fortran */
        "{'descr': '<f4', 'fortran_order': True, 'shape': (1, 6, 1)}",  /* effectively 1-D */
        "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3)}",     /* elements as they lie */
    };
    for (size_t i = 0; i < sizeof dicts / sizeof dicts[0]; i++)
        expect_ok(make_npy(1, dicts[i], data, sizeof data), CLFOLD_FLOAT, 6, data, dicts[i]);
    /* no data, so the order does not matter */
    expect_ok(make_npy(1, "{'descr': '<f4', 'fortran_order': True, 'shape': (0, 3, 4)}", NULL, 0),
              CLFOLD_FLOAT, 0, NULL, "Fortran (0, 3, 4)");
    expect_ok(make_npy(2, dicts[0], data, sizeof data), CLFOLD_FLOAT, 6, data, "version 2.0");
    expect_ok(make_npy(3, dicts[0], data, sizeof data), CLFOLD_FLOAT, 6, data, "version 3.0");

    /* NumPy pads to 64; older versions to 16, and hand-made files not at all. */
    struct image img = make_npy(1, dicts[0], data, sizeof data);
    size_t text = strlen(dicts[0]);
    img.bytes[8] = (unsigned char)text;
    img.bytes[9] = 0;
    memmove(img.bytes + 10 + text, data, sizeof data);
    img.size = 10 + text + sizeof data;
    expect_ok(img, CLFOLD_FLOAT, 6, data, "unpadded header");
}

static void test_dtype_refusals(void)
{
    const struct {
        const char *descr;
        const char *needle;
    } cases[] = {
        {"|b1", "bool"},        {"<c8", "complex"},           {"<c16", "complex"},
        {"<f16", "unsupported"}, {"|S3", "unsupported"},      {"<U4", "unsupported"},
        {"|O", "unsupported"},  {"<M8[ns]", "unsupported"},   {"|V16", "unsupported"},
        {"", "unsupported"},    {"f4", "unsupported"},        {"<i3", "unsupported"},
        {"|i4", "byte order"},  {"<f4 ", "unsupported"},
        {"<f4xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "..."},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char dict[160];
        snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (2,)}",
                 cases[i].descr);
        expect_dict_fail(dict, cases[i].needle);
    }
    expect_dict_fail("{'descr': [('a', '<i4'), ('b', '<f4')], 'fortran_order': False, "
                     "'shape': (2,)}", "structured");
    expect_dict_fail("{'descr': '\x01\x80', 'fortran_order': False, 'shape': (2,)}", "'?" "?'");
}

static void test_malformed_dicts(void)
{
    const struct {
        const char *dict;
        const char *needle;
    } cases[] = {
        {"{'fortran_order': False, 'shape': (4,)}", "lacks the key 'descr'"},
        {"{'descr': '<f4', 'shape': (4,)}", "lacks the key 'fortran_order'"},
        {"{'descr': '<f4', 'fortran_order': False}", "lacks the key 'shape'"},
        {"{}", "lacks the key"},
        {"{'descr': '<f4, 'fortran_order': False, 'shape': (4,)}", "malformed"},
        {"{'descr': '<f4", "unterminated string"},
        {"{'descr\": '<f4', 'fortran_order': False, 'shape': (4,)}", "':' after a key"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (4,), 'x\n': 1}",
         "unterminated string"},
        {"hello", "malformed header: expected '{'"},
        {"", "malformed header"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (4,)} x", "after the header dict"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (4,)", "malformed"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (4,), 'descr': '<f4'}", "twice"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (4,), 'extra': 1}", "unknown key"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (4)}", "not a tuple"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': [4]}", "'('"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': 4}", "'('"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (-4,)}", "negative"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2 2,)}", "',' or ')'"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,,2)}", "dimension"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (,)}", "dimension"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (4.0,)}", "',' or ')'"},
        {"{'descr': '<f4', 'fortran_order': 0, 'shape': (4,)}", "True or False"},
        {"{'descr': '<f4', 'fortran_order': Falsey, 'shape': (4,)}", "True or False"},
        {"{'descr': '<f4', 'fortran_order': false, 'shape': (4,)}", "True or False"},
        {"{'descr' '<f4', 'fortran_order': False, 'shape': (4,)}", "':'"},
        {"{'descr': '<f4' 'fortran_order': False, 'shape': (4,)}", "',' or '}'"},
        {"{descr: '<f4', 'fortran_order': False, 'shape': (4,)}", "quoted string"},
        {"{'descr': '<\\x66\x34', 'fortran_order': False, 'shape': (4,)}", "escape"},
        {"{'descr': '<f4',, 'fortran_order': False, 'shape': (4,)}", "quoted string"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (4,)}}", "after the header dict"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_dict_fail(cases[i].dict, cases[i].needle);

    /* A NUL inside the header is a byte like any other, not its end. */
    const char dict[] = "{'descr': '<f4', 'fortran_order': False, 'shape': (4,)}";
    struct image img = make_npy(1, dict, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 16);
    img.bytes[10 + sizeof dict - 1] = '\0';
    expect_fail(img, "byte 0x00", "NUL after the dict");
}

static void test_size_refusals(void)
{
    char dict[160];
    struct image img = make_simple("<f4", "(1000,)", 1000, 4);
    img.size -= 4;
    char err[256] = "";
    struct npy_array arr;
    EXPECT(npy_read_memory(img.bytes, img.size, "data.npy", &arr, err, sizeof err) == -1,
          "truncated");
    EXPECT(strcmp(err, "data.npy: truncated: header says 1000 elements of 4 bytes, file has 3996 "
                      "bytes of data") == 0, "truncated message: %s", err);
    free(img.bytes);

    img = make_simple("<f4", "(1000,)", 1001, 4);
    expect_fail(img, "file has 4 more bytes than the header describes", "extra bytes");
    img = make_simple("<f4", "()", 0, 4);
    expect_fail(img, "header says 1 elements of 4 bytes, file has 0 bytes", "() without data");
    img = make_simple("<f4", "(0,)", 1, 4);
    expect_fail(img, "4 more bytes", "shape (0,) with data");

    img = make_simple("<f4", "(4294967296, 4294967296, 16)", 0, 4);
    expect_fail(img, "shape overflows", "shape overflow");
    img = make_simple("<f4", "(0, 4294967296, 4294967296, 16)", 0, 4);
    expect_fail(img, "shape overflows", "shape overflow with a zero");
    img = make_simple("<f4", "(99999999999999999999999999,)", 0, 4);
    expect_fail(img, "shape overflows", "dimension overflow");
    snprintf(dict, sizeof dict, "(%zu,)", SIZE_MAX / 8 + 1);
    img = make_simple("<f8", dict, 0, 8);
    expect_fail(img, "data size overflows", "bytes overflow");
    /* huge but not overflowing: the size check refuses before any malloc */
    snprintf(dict, sizeof dict, "(%zu,)", SIZE_MAX / 8);
    img = make_simple("<f8", dict, 2, 8);
    expect_fail(img, "truncated", "huge header, tiny file");
}

static void test_preamble_refusals(void)
{
    const char *dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,)}";
    const float data[2] = {1, 2};
    struct image img = make_npy(1, dict, data, sizeof data);
    img.bytes[0] = 0x94;
    expect_fail(img, "not a .npy file", "bad magic");
    img = make_npy(1, dict, data, sizeof data);
    img.bytes[3] = 'm';
    expect_fail(img, "not a .npy file", "bad magic letter");
    img = make_npy(1, dict, data, sizeof data);
    img.size = 0;
    expect_fail(img, "too short", "empty");
    img = make_npy(1, dict, data, sizeof data);
    img.size = 4;
    expect_fail(img, "too short", "4 bytes");
    img = make_npy(1, dict, data, sizeof data);
    img.size = 9;
    expect_fail(img, "too short", "9 bytes");
    img = make_npy(2, dict, data, sizeof data);
    img.size = 11;
    expect_fail(img, "too short", "11 bytes of a 2.0 file");
    img = make_npy(1, dict, data, sizeof data);
    img.bytes[6] = 4;
    expect_fail(img, "version 4.0", "version 4.0");
    img = make_npy(1, dict, data, sizeof data);
    img.bytes[7] = 1;
    expect_fail(img, "version 1.1", "version 1.1");
    img = make_npy(1, dict, data, sizeof data);
    img.bytes[6] = 0;
    expect_fail(img, "version 0.0", "version 0.0");
    img = make_npy(1, dict, data, sizeof data);
    img.bytes[8] = 0xe8, img.bytes[9] = 0x03; /* 1000 */
    expect_fail(img, "header length 1000 runs past the end of the file (126 bytes",
                "header > file");
    img = make_npy(1, dict, data, sizeof data);
    img.size = 40;
    expect_fail(img, "runs past the end", "cut in the header");
    img = make_npy(2, dict, data, sizeof data);
    memset(img.bytes + 8, 0xff, 4);
    expect_fail(img, "limit", "4 GiB header");
    img = make_npy(1, dict, data, sizeof data);
    img.bytes[8] = 0, img.bytes[9] = 0;
    expect_fail(img, "malformed header", "zero-length header");
}

/* Messages are cut to fit, always NUL-terminated; no buffer is fine too. */
static void test_error_buffer(void)
{
    struct image img = make_simple("<c8", "(2,)", 2, 8);
    struct npy_array arr;
    char small[8];
    memset(small, 'x', sizeof small);
    EXPECT(npy_read_memory(img.bytes, img.size, "in.npy", &arr, small, sizeof small) == -1, "small");
    EXPECT(memchr(small, '\0', sizeof small) != NULL && strcmp(small, "in.npy:") == 0,
          "small buffer: %.8s", small);
    EXPECT(npy_read_memory(img.bytes, img.size, "in.npy", &arr, NULL, 0) == -1, "no buffer");
    char err[128] = "";
    EXPECT(npy_read_memory(img.bytes, img.size, NULL, &arr, err, sizeof err) == -1, "no name");
    EXPECT(strncmp(err, "<memory>: ", 10) == 0, "no name: %s", err);
    EXPECT(npy_read_memory(NULL, 10, "x", &arr, err, sizeof err) == -1, "NULL bytes");
    EXPECT(npy_read_memory(img.bytes, img.size, "x", NULL, err, sizeof err) == -1, "NULL out");
    EXPECT(npy_read_file(NULL, &arr, err, sizeof err) == -1, "NULL path");
    npy_free(NULL);
    free(img.bytes);
}

/*
 * Every prefix of a good image, and every byte of its preamble and header
 * changed, must be refused or read consistently; valgrind watches the reads.
 */
static void test_damage(void)
{
    struct image good = make_simple("<i4", "(3, 5)", 15, 4);
    struct npy_array arr;
    char err[256];
    for (size_t size = 0; size < good.size; size++) {
        err[0] = '\0';
        int rc = npy_read_memory(good.bytes, size, "cut", &arr, err, sizeof err);
        EXPECT(rc == -1 && err[0] != '\0', "prefix of %zu bytes: rc %d", size, rc);
    }
    size_t data_at = good.size - 60;
    for (size_t at = 0; at < data_at; at++) {
        unsigned char saved = good.bytes[at];
        for (unsigned value = 0; value < 256; value++) {
            good.bytes[at] = (unsigned char)value;
            err[0] = '\0';
            int rc = npy_read_memory(good.bytes, good.size, "bent", &arr, err, sizeof err);
            EXPECT(rc == 0 || (rc == -1 && err[0] != '\0' && strchr(err, '\n') == NULL),
                  "byte %zu = 0x%02x: rc %d, message \"%s\"", at, value, rc, err);
            EXPECT(rc == -1 || arr.count * clfold_type_size(arr.type) <= 60,
                  "byte %zu = 0x%02x: read %zu elements", at, value, arr.count);
            npy_free(&arr);
        }
        good.bytes[at] = saved;
    }
    free(good.bytes);
}

static bool write_file(const char *path, const void *bytes, size_t size)
{
    FILE *file = fopen(path, "wb");
    bool ok = file != NULL && fwrite(bytes, 1, size, file) == size;
    if (file != NULL)
        ok = fclose(file) == 0 && ok;
    return ok;
}

static void expect_file_fail(const char *path, const char *needle, const char *label)
{
    char err[512] = "";
    struct npy_array arr = {.type = CLFOLD_FLOAT, .count = 99};
    int rc = npy_read_file(path, &arr, err, sizeof err);
    check_refusal(rc, &arr, err, path, needle, label);
    if (rc == 0)
        npy_free(&arr);
}

/* Makes the file named by the mkstemp template `path`, empty and closed; false if it cannot. */
static bool make_temp(char *path)
{
    int fd = mkstemp(path);
    EXPECT(fd >= 0, "mkstemp failed");
    if (fd < 0)
        return false;
    close(fd);
    return true;
}

static void test_file(void)
{
    char path[] = "/tmp/test_npy_XXXXXX";
    if (!make_temp(path))
        return;

    /* 1 Mi floats: many fread pieces inside the C library */
    size_t count = 1 << 20;
    struct image img = make_simple("<f4", "(1024, 1024)", count, 4);
    const unsigned char *data = img.bytes + img.size - count * 4;
    char err[512] = "";
    struct npy_array arr;
    EXPECT(write_file(path, img.bytes, img.size), "writing %s", path);
    EXPECT(npy_read_file(path, &arr, err, sizeof err) == 0, "file: %s", err);
    EXPECT(arr.type == CLFOLD_FLOAT && arr.count == count && arr.data != NULL &&
              memcmp(arr.data, data, count * 4) == 0, "file data differs");
    npy_free(&arr);

    EXPECT(write_file(path, img.bytes, img.size - 1), "writing %s", path);
    expect_file_fail(path, "truncated: header says 1048576 elements of 4 bytes, file has 4194303",
                     "truncated file");
    free(img.bytes);

    img = make_simple("<u2", "(3,)", 4, 2);
    EXPECT(write_file(path, img.bytes, img.size), "writing %s", path);
    expect_file_fail(path, "2 more bytes", "file with extra bytes");
    EXPECT(write_file(path, img.bytes, 100), "writing %s", path);
    expect_file_fail(path, "runs past the end", "file cut in the header");
    EXPECT(write_file(path, img.bytes, 5), "writing %s", path);
    expect_file_fail(path, "too short", "file of 5 bytes");
    EXPECT(write_file(path, "", 0), "writing %s", path);
    expect_file_fail(path, "too short", "empty file");
    free(img.bytes);

    img = make_simple("<f4", "(0,)", 0, 4);
    EXPECT(write_file(path, img.bytes, img.size), "writing %s", path);
    EXPECT(npy_read_file(path, &arr, err, sizeof err) == 0 && arr.count == 0 && arr.data == NULL,
          "empty array file: %s", err);
    free(img.bytes);

    remove(path);
    expect_file_fail(path, "cannot open: ", "missing file");
    expect_file_fail("/tmp", "read error", "directory");
}

/*
 * npy_read_part: for 1 to 5 parts of 7 big-endian uint16 (and of 3, fewer
 * than the parts), the parts cover the elements once, in order, as even as
 * can be, swapped; the whole's shape comes along; a file that is not as
 * long as its header says, and part >= parts, are refused.
 */
static void test_parts(void)
{
    char path[] = "/tmp/test_npy_part_XXXXXX";
    if (!make_temp(path))
        return;
    const size_t lengths[] = {7, 3};
    for (size_t l = 0; l < 2; l++) {
        size_t count = lengths[l];
        struct image img = make_simple(">u2", count == 7 ? "(7,)" : "(1, 3)", count, 2);
        const unsigned char *data = img.bytes + img.size - count * 2;
        EXPECT(write_file(path, img.bytes, img.size), "writing %s", path);
        for (size_t parts = 1; parts <= 5; parts++) {
            size_t next = 0;
            for (size_t part = 0; part < parts; part++) {
                char err[512] = "";
                struct npy_part got;
                int rc = npy_read_part(path, part, parts, &got, err, sizeof err);
                size_t even = count / parts + (part < count % parts);
                EXPECT(rc == 0 && got.first == next && got.count == even &&
                           got.whole.count == count && got.whole.type == CLFOLD_UINT16 &&
                           got.whole.ndim == (count == 7 ? 1u : 2u) && got.whole.data == NULL,
                       "part %zu of %zu of %zu: rc %d, first %zu, count %zu (%s)", part, parts,
                       count, rc, got.first, got.count, err);
                for (size_t i = 0; rc == 0 && i < got.count; i++) {
                    const unsigned char *e = data + 2 * (got.first + i);
                    uint16_t want = (uint16_t)(e[0] << 8 | e[1]), have;
                    memcpy(&have, (const unsigned char *)got.data + 2 * i, 2);
                    EXPECT(have == want, "part %zu of %zu, element %zu: %#x, want %#x", part, parts,
                           i, have, want);
                }
                next += rc == 0 ? got.count : 0;
                if (rc == 0)
                    npy_part_free(&got);
            }
            EXPECT(next == count, "%zu parts covered %zu of %zu elements", parts, next, count);
        }
        if (count == 7) {
            char err[512] = "";
            struct npy_part got;
            EXPECT(write_file(path, img.bytes, img.size - 1), "writing %s", path);
            EXPECT(npy_read_part(path, 1, 2, &got, err, sizeof err) != 0 &&
                       strstr(err, "truncated") != NULL && got.data == NULL,
                   "a truncated file's part: \"%s\"", err);
            EXPECT(npy_read_part(path, 2, 2, &got, err, sizeof err) != 0 &&
                       strstr(err, "part 2 of 2") != NULL,
                   "part 2 of 2 accepted: \"%s\"", err);
        }
        free(img.bytes);
    }
    remove(path);
}

int main(void)
{
    test_dtypes();
    test_shapes();
    test_shape_kept();
    test_header_spellings();
    test_dtype_refusals();
    test_malformed_dicts();
    test_size_refusals();
    test_preamble_refusals();
    test_error_buffer();
    test_damage();
    test_file();
    test_parts();
    return test_finish("test_npy");
}
