/*
 * plan.c: what a `clfold bench` run measures, from its command line:
 * sizes, types, operators, kernels and accuracy; --shape RxC --axis A or
 * --segments power-law (the segments' offsets made from a fixed seed, and
 * written as a .npy file for the peers); --scan and its mode. Every
 * combination the library would refuse is refused here, before a device
 * opens.
 *
 * May call (below it in src/cli/bench/): run.c.
 */
#include "plan.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "npy.h"
#include "run.h"

/* --segments power-law without --sizes: this many elements. */
#define DEFAULT_SEGMENTS_COUNT ((size_t)1 << 26)

/* "2^10:2^28" (every power of two between), or "1000,2^20,...". */
static int parse_sizes(const char *text, struct bench_plan *plan)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", text);
    char *colon = strchr(buf, ':');
    if (colon != NULL) {
        size_t low, high;
        *colon = '\0';
        if (cli_parse_count(buf, &low) != 0 || cli_parse_count(colon + 1, &high) != 0 || low == 0 ||
            low > high)
            return -1;
        for (size_t n = low; n <= high && plan->n_sizes < BENCH_MAX; n *= 2) {
            plan->sizes[plan->n_sizes++] = n;
            if (n > SIZE_MAX / 2)
                break;
        }
        return 0;
    }
    for (char *item = strtok(buf, ","); item != NULL; item = strtok(NULL, ",")) {
        size_t n;
        if (plan->n_sizes == BENCH_MAX || cli_parse_count(item, &n) != 0 || n == 0)
            return -1;
        plan->sizes[plan->n_sizes++] = n;
    }
    return plan->n_sizes > 0 ? 0 : -1;
}

static int compare_sizes(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

/* Parses a comma list with `parse` (a clfold_*_from_name) into `out`. */
#define PARSE_LIST(text, parse, out, count, what)                                           \
    do {                                                                                     \
        char buf_[512];                                                                      \
        snprintf(buf_, sizeof buf_, "%s", text);                                             \
        for (char *item_ = strtok(buf_, ","); item_ != NULL; item_ = strtok(NULL, ",")) {    \
            if ((count) == BENCH_MAX || parse(item_, &(out)[count]) != CLFOLD_SUCCESS) {      \
                cli_error("unknown %s \"%s\" in \"%s\"", what, item_, text);                 \
                return EXIT_BAD_INPUT;                                                       \
            }                                                                                \
            (count)++;                                                                       \
        }                                                                                    \
    } while (0)

/* The operators and types of the plan: each has a result. EXIT_OK or EXIT_BAD_INPUT (said). */
static int check_results(const struct bench_plan *plan)
{
    for (size_t t = 0; t < plan->n_types; t++) {
        for (size_t o = 0; o < plan->n_ops; o++) {
            clfold_type result;
            if (clfold_result_type(plan->types[t], plan->ops[o], &result) != CLFOLD_SUCCESS) {
                cli_error("operator %s does not apply to %s", clfold_op_name(plan->ops[o]),
                          clfold_type_name(plan->types[t]));
                return EXIT_BAD_INPUT;
            }
        }
    }
    return EXIT_OK;
}

/* ---- --shape and --segments ---------------------------------------------------- */

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* "RxC", each a count (digits or 2^K). */
static int parse_matrix(const char *text, size_t *rows, size_t *cols)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", text);
    char *x = strchr(buf, 'x');
    if (x == NULL)
        return -1;
    *x = '\0';
    return cli_parse_count(buf, rows) == 0 && cli_parse_count(x + 1, cols) == 0 && *rows > 0 &&
                   *cols > 0 && *rows <= SIZE_MAX / *cols
               ? 0
               : -1;
}

/* Offsets of power-law segments that cover n elements (the last one cut to fit), from a fixed seed. */
static int make_segments(struct bench_shape *shape, size_t n)
{
    uint64_t state = 1;
    size_t cap = 1024, count = 0, at = 0;
    uint64_t *offsets = malloc(cap * sizeof *offsets);
    while (offsets != NULL) {
        offsets[count] = at;
        if (at == n)
            break;
        double u = (double)(splitmix64(&state) >> 11) * 0x1p-53;
        size_t length = (size_t)exp2(LONGEST_SEGMENT_LOG2 * u);
        at += length < n - at ? length : n - at;
        if (++count == cap) {
            uint64_t *grown = realloc(offsets, 2 * cap * sizeof *offsets);
            if (grown == NULL)
                free(offsets);
            offsets = grown;
            cap *= 2;
        }
    }
    if (offsets == NULL)
        return -1;
    shape->offsets = offsets;
    shape->n_segments = count;
    return 0;
}

/* The offsets as a .npy file of uint64 for the peers, in a fresh temporary file. */
static int write_offsets(struct bench_shape *shape)
{
    char message[256];
    size_t dims[1] = {shape->n_segments + 1};
    snprintf(shape->offsets_path, sizeof shape->offsets_path, "/tmp/clfold-segments-XXXXXX");
    int fd = mkstemp(shape->offsets_path);
    if (fd < 0) {
        cli_error("cannot make a temporary file for the segments' offsets");
        shape->offsets_path[0] = '\0';
        return -1;
    }
    close(fd);
    if (npy_write(shape->offsets_path, CLFOLD_UINT64, 1, dims, shape->offsets, message,
                  sizeof message) != 0) {
        cli_error("%s", message);
        return -1;
    }
    return 0;
}

/*
 * --shape, --axis and --segments into plan->shape (and its size): the
 * segments' offsets made and written for the peers. EXIT_OK, or
 * EXIT_BAD_INPUT (said on stderr).
 */
static int shape_plan_parse(const struct cli_args *args, struct bench_plan *plan)
{
    struct bench_shape *shape = &plan->shape;
    memset(shape, 0, sizeof *shape);
    if (args->shape == NULL && args->segments == NULL) {
        if (args->axes != NULL) {
            cli_error("--axis needs --shape RxC");
            return EXIT_BAD_INPUT;
        }
        return EXIT_OK;
    }
    if (plan->n_kernels != 1 || plan->kernels[0] != CLFOLD_AUTO) {
        cli_error("-k chooses whole-array kernels; shapes run the device's own");
        return EXIT_BAD_INPUT;
    }
    if (args->shape != NULL) {
        shape->kind = SHAPE_MATRIX;
        if (parse_matrix(args->shape, &shape->rows, &shape->cols) != 0) {
            cli_error("--shape takes ROWSxCOLS (counts, digits or 2^K), not \"%s\"", args->shape);
            return EXIT_BAD_INPUT;
        }
        if (args->axes == NULL || (strcmp(args->axes, "0") != 0 && strcmp(args->axes, "1") != 0)) {
            cli_error("--shape needs --axis 0 (down the columns) or 1 (along the rows)");
            return EXIT_BAD_INPUT;
        }
        if (args->sizes != NULL) {
            cli_error("--shape gives the size; --sizes does not apply");
            return EXIT_BAD_INPUT;
        }
        shape->axis = args->axes[0] - '0';
        plan->sizes[0] = shape->rows * shape->cols;
        plan->n_sizes = 1;
        snprintf(shape->peer_args, sizeof shape->peer_args, "--shape %zux%zu --axis %d",
                 shape->rows, shape->cols, shape->axis);
        return EXIT_OK;
    }
    shape->kind = SHAPE_SEGMENTS;
    if (strcmp(args->segments, "power-law") != 0) {
        cli_error("bench --segments takes power-law, not \"%s\"", args->segments);
        return EXIT_BAD_INPUT;
    }
    if (args->axes != NULL || (args->sizes != NULL && plan->n_sizes != 1)) {
        cli_error("--segments takes one size (--sizes N) and no --axis");
        return EXIT_BAD_INPUT;
    }
    if (args->sizes == NULL) {
        plan->sizes[0] = DEFAULT_SEGMENTS_COUNT;
        plan->n_sizes = 1;
    }
    if (make_segments(shape, plan->sizes[0]) != 0) {
        cli_error("out of host memory");
        return EXIT_CHECK_FAILED;
    }
    if (write_offsets(shape) != 0)
        return EXIT_CHECK_FAILED;
    snprintf(shape->peer_args, sizeof shape->peer_args, "--segments %s", shape->offsets_path);
    return EXIT_OK;
}

/*
 * --scan: whole arrays only, no argmin or argmax, no exact float sums (the
 * library refuses them: docs/scans.md). EXIT_OK or EXIT_BAD_INPUT (said).
 */
static int scan_plan_parse(const struct cli_args *args, struct bench_plan *plan)
{
    plan->scan_mode = args->exclusive ? CLFOLD_EXCLUSIVE : CLFOLD_INCLUSIVE;
    plan->scan = args->exclusive ? "exclusive" : "inclusive";
    if (args->shape != NULL || args->segments != NULL || args->axes != NULL) {
        cli_error("--scan scans whole arrays: no --shape, --axis or --segments");
        return EXIT_BAD_INPUT;
    }
    for (size_t o = 0; o < plan->n_ops; o++) {
        if (cli_check_scans(plan->ops[o]) != EXIT_OK)
            return EXIT_BAD_INPUT;
        for (size_t t = 0; t < plan->n_types && plan->accuracy == CLFOLD_ACCURACY_EXACT; t++) {
            clfold_type type = plan->types[t];
            if (plan->ops[o] == CLFOLD_SUM &&
                (type == CLFOLD_HALF || type == CLFOLD_FLOAT || type == CLFOLD_DOUBLE)) {
                cli_error("--accuracy exact: exact float scans are not available (docs/scans.md)");
                return EXIT_BAD_INPUT;
            }
        }
    }
    return check_results(plan);
}

int bench_plan_parse(const struct cli_args *args, struct bench_plan *plan)
{
    memset(plan, 0, sizeof *plan);
    plan->accuracy = args->accuracy;
    if (parse_sizes(args->sizes != NULL ? args->sizes : "2^10:2^28", plan) != 0) {
        cli_error("--sizes takes LOW:HIGH (powers of two between) or a comma list of counts, not \"%s\"",
                  args->sizes);
        return EXIT_BAD_INPUT;
    }
    qsort(plan->sizes, plan->n_sizes, sizeof plan->sizes[0], compare_sizes);
    PARSE_LIST(args->types != NULL ? args->types : "float", clfold_type_from_name, plan->types,
               plan->n_types, "type");
    PARSE_LIST(args->ops != NULL ? args->ops : "sum", clfold_op_from_name, plan->ops, plan->n_ops,
               "operator");
    if (args->scan) {
        PARSE_LIST(args->kernels != NULL ? args->kernels : "auto", clfold_scan_kernel_from_name,
                   plan->scan_kernels, plan->n_kernels, "scan kernel");
        for (size_t k = 0; k < plan->n_kernels; k++)
            plan->kernels[k] = CLFOLD_AUTO;
        return scan_plan_parse(args, plan);
    }
    PARSE_LIST(args->kernels != NULL ? args->kernels : "auto", clfold_kernel_from_name,
               plan->kernels, plan->n_kernels, "kernel");
    int shaped = shape_plan_parse(args, plan);
    if (shaped != EXIT_OK)
        return shaped;
    for (size_t o = 0; o < plan->n_ops; o++) {
        for (size_t k = 0; k < plan->n_kernels && cli_op_is_arg(plan->ops[o]); k++) {
            if (plan->kernels[k] == CLFOLD_ATOMIC) {
                cli_error("the atomic baseline cannot give an %s: one atomic word holds no index",
                          clfold_op_name(plan->ops[o]));
                return EXIT_BAD_INPUT;
            }
        }
    }
    return check_results(plan);
}


void bench_plan_release(struct bench_plan *plan)
{
    free(plan->shape.offsets);
    plan->shape.offsets = NULL;
    if (plan->shape.offsets_path[0] != '\0')
        remove(plan->shape.offsets_path);
    plan->shape.offsets_path[0] = '\0';
}
