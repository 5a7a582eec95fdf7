/*
 * scan_probe: what a one-launch scan costs on NVIDIA, piece by piece
 * (bench/results/scans-h100-probes.txt). Builds bench/scan_probe.cl with
 * OPTIONS (-DBLOCK=, -DITEMS= floats a work-item, ...) and times each
 * KERNEL on 2^LOG2N floats, best and median of SP_RUNS (20) runs by the
 * queue's profiling, the board zeroed before each; "copybuf" is
 * clEnqueueCopyBuffer of the same bytes. Checks each one's outputs: a copy
 * against the input, a tile's scan from 0 against the host's, a look-back
 * against the whole scan (relative 1e-4: the probe's float chains are not
 * the library's). Kernels named x_* time something wrong on purpose.
 *
 *   gcc -O2 -o scan_probe bench/scan_probe.c -lOpenCL -lm
 *   . bench/nvidia-icd.sh; ./scan_probe 28 "-DBLOCK=256 -DITEMS=32" copybuf body lb_det
 * With -DSPECULATE=1 (x_convoy, lb_early, lb_det) each group loads tile
 * get_group_id(0) before its ticket arrives, and again where the ticket
 * differs: the reloads of the last run are printed.
 * With -DSTATS=1, lb_det counts its look-backs' rounds, how far back the
 * nearest P was and how often the warp waited, and prints them a tile.
 * SP_LOG=1 prints the build log (with -cl-nv-verbose, the registers).
 * lb_pipe runs SP_GROUPS groups (default 132 * 8). Run from the source tree
 * (SP_CL names another kernel file).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe.h"

static char *slurp(const char *p)
{
    FILE *f = fopen(p, "rb");
    if (!f) { perror(p); exit(1); }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc(n + 1);
    if (fread(s, 1, n, f) != (size_t)n) exit(1);
    s[n] = 0;
    fclose(f);
    return s;
}

/* The program's build log, NUL-terminated (malloc'd). */
static char *build_log(cl_program prog, cl_device_id dev)
{
    size_t len;
    CK(clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &len));
    char *log = malloc(len + 1);
    CK(clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, len, log, NULL));
    log[len] = 0;
    return log;
}

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    int lg = atoi(argv[1]);
    const char *opts = argv[2];
    size_t n = (size_t)1 << lg;
    int block = 128, items = 16;
    const char *b = strstr(opts, "-DBLOCK=");
    if (b) block = atoi(b + 8);
    const char *it = strstr(opts, "-DITEMS=");
    if (it) items = atoi(it + 8);
    size_t tile = (size_t)block * items, tiles = n / tile;
    const char *clfile = getenv("SP_CL") ? getenv("SP_CL") : "bench/scan_probe.cl";

    cl_device_id dev = probe_device("NVIDIA", CL_DEVICE_TYPE_GPU);
    if (!dev) { fprintf(stderr, "no NVIDIA\n"); return 1; }
    cl_int err;
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    CK(err);
    cl_command_queue q = clCreateCommandQueue(ctx, dev, CL_QUEUE_PROFILING_ENABLE, &err);
    CK(err);
    char *src = slurp(clfile);
    cl_program prog = clCreateProgramWithSource(ctx, 1, (const char **)&src, NULL, &err);
    CK(err);
    char full[512];
    snprintf(full, sizeof full, "%s -DTILES=%zuu", opts, tiles);
    err = clBuildProgram(prog, 1, &dev, full, NULL, NULL);
    if (err != CL_SUCCESS) {
        fprintf(stderr, "build %d:\n%s\n", err, build_log(prog, dev));
        return 1;
    }
    if (getenv("SP_LOG")) { /* with -cl-nv-verbose in OPTIONS: each kernel's registers */
        char *log = build_log(prog, dev);
        printf("%s\n", log);
        free(log);
    }
    float *h = malloc(n * sizeof *h), *o = malloc(n * sizeof *o);
    srand(7);
    for (size_t i = 0; i < n; i++)
        h[i] = (float)(rand() % 1000) / 1000.0f;
    cl_mem in = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * 4, h, &err);
    CK(err);
    cl_mem out = clCreateBuffer(ctx, CL_MEM_READ_WRITE, n * 4, NULL, &err);
    CK(err);
    size_t board_bytes = (tiles * 4 + 64) * 8;
    cl_mem board = clCreateBuffer(ctx, CL_MEM_READ_WRITE, board_bytes, NULL, &err);
    CK(err);
    int runs = getenv("SP_RUNS") ? atoi(getenv("SP_RUNS")) : 20;

    for (int k = 3; k < argc; k++) {
        const char *name = argv[k];
        cl_kernel kern = NULL;
        if (strcmp(name, "copybuf")) {
            kern = clCreateKernel(prog, name, &err);
            CK(err);
            CK(clSetKernelArg(kern, 0, sizeof in, &in));
            CK(clSetKernelArg(kern, 1, sizeof out, &out));
            CK(clSetKernelArg(kern, 2, sizeof board, &board));
        }
        unsigned char ff = 0xff, zero = 0;
        CK(clEnqueueFillBuffer(q, out, &ff, 1, 0, n * 4, 0, NULL, NULL));
        double t[256];
        for (int r = 0; r < runs; r++) {
            cl_event ev;
            CK(clEnqueueFillBuffer(q, board, &zero, 1, 0, board_bytes, 0, NULL, NULL));
            if (kern) {
                size_t groups = tiles;
                if (strstr(name, "pipe"))
                    groups = getenv("SP_GROUPS") ? (size_t)atoi(getenv("SP_GROUPS")) : 132 * 8;
                size_t g = groups * block, l = block;
                CK(clEnqueueNDRangeKernel(q, kern, 1, NULL, &g, &l, 0, NULL, &ev));
            } else {
                CK(clEnqueueCopyBuffer(q, in, out, 0, 0, n * 4, 0, NULL, &ev));
            }
            CK(clWaitForEvents(1, &ev));
            cl_ulong s, e;
            CK(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof s, &s, NULL));
            CK(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof e, &e, NULL));
            t[r] = (e - s) * 1e-6;
            clReleaseEvent(ev);
        }
        qsort(t, runs, sizeof t[0], cmpd);
        CK(clEnqueueReadBuffer(q, out, CL_TRUE, 0, n * 4, o, 0, NULL, NULL));
        /* check: copy kernels against the input; body against per-tile scans; lb_* against the scan */
        size_t bad = 0, first = 0;
        double worst = 0;
        int scan = strncmp(name, "copy", 4) != 0;
        int whole = strncmp(name, "lb", 2) == 0;
        double acc = 0;
        for (size_t i = 0; i < n; i++) {
            double want;
            if (!scan)
                want = h[i];
            else {
                if (!whole && i % tile == 0)
                    acc = 0;
                acc += h[i];
                want = acc;
            }
            double rel = fabs(o[i] - want) / (fabs(want) + 1e-30);
            if (rel > worst)
                worst = rel;
            if (!(rel <= (scan ? 1e-4 : 0))) {
                if (!bad)
                    first = i;
                bad++;
            }
        }
        printf("%-12s %-22s %-6s best %.4f ms  median %.4f ms  %s", name, opts, getenv("SP_GROUPS") && strstr(name, "pipe") ? getenv("SP_GROUPS") : "", t[0], t[runs / 2],
               bad ? "WRONG" : "ok");
        if (bad)
            printf(" (%zu bad, first %zu: %g)", bad, first, (double)o[first]);
        printf(" worst rel %.2g", worst);
        if (strstr(opts, "-DSPECULATE=1")) {
            cl_uint words[2];
            CK(clEnqueueReadBuffer(q, board, CL_TRUE, 0, sizeof words, words, 0, NULL, NULL));
            printf(" reloads %u of %zu tiles", words[1], tiles);
        }
        if (strstr(opts, "-DSTATS=1") && !strcmp(name, "lb_det")) {
            cl_uint st[3];
            CK(clEnqueueReadBuffer(q, board, CL_TRUE, tiles * 4 * 8, sizeof st, st, 0, NULL, NULL));
            printf(" a tile: rounds past the first %.3f, nearest P %.2f tiles back, waits %.3f",
                   (double)st[0] / tiles, 1.0 + (double)st[1] / tiles, (double)st[2] / tiles);
        }
        printf("\n");
        fflush(stdout);
        if (kern)
            clReleaseKernel(kern);
    }
    return 0;
}
