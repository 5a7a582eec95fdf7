/*
 * plot.c: `clfold bench --plot FILE.png`: GB/s against size, one line per
 * kernel and type, per peer, and the streaming read, drawn by gnuplot
 * (Debian's gnuplot-nox) from a data file and a script in a temporary
 * folder.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "commands.h"
#include "common.h"

struct series {
    char title[96];
};

/* Writes one block of "n gbps" lines; gnuplot's blocks are split by two blank lines. */
static void write_clfold_block(FILE *data, const struct bench_results *results, size_t first,
                               bool read_line)
{
    const struct bench_row *head = &results->rows[first];
    for (size_t i = first; i < results->n_rows; i++) {
        const struct bench_row *r = &results->rows[i];
        if (r->type == head->type && r->op == head->op && r->kernel == head->kernel)
            fprintf(data, "%zu %.3f\n", r->n, read_line ? r->read_gbps : r->gbps);
    }
    fprintf(data, "\n\n");
}

/* Whether two peer rows belong to one series: the same peer, type and operator. */
static bool same_peer_series(const struct peer_row *a, const struct peer_row *b)
{
    return strcmp(a->peer, b->peer) == 0 && a->type == b->type && a->op == b->op;
}

/* The data file: returns how many series it holds and their titles. */
static size_t write_data(FILE *data, const struct bench_results *results, struct series *series,
                         size_t cap)
{
    size_t count = 0;
    for (size_t i = 0; i < results->n_rows && count + 1 < cap; i++) {
        const struct bench_row *r = &results->rows[i];
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = results->rows[j].type == r->type && results->rows[j].op == r->op &&
                   results->rows[j].kernel == r->kernel;
        if (seen)
            continue;
        write_clfold_block(data, results, i, false);
        snprintf(series[count++].title, sizeof series[0].title, "clfold %s %s %s",
                 r->kernel == CLFOLD_AUTO && r->path ? r->path : clfold_kernel_name(r->kernel),
                 clfold_type_name(r->type), clfold_op_name(r->op));
        if (i == 0) {
            write_clfold_block(data, results, i, true);
            snprintf(series[count++].title, sizeof series[0].title, "streaming read %s",
                     clfold_type_name(r->type));
        }
    }
    for (size_t p = 0; p < results->n_peers && count < cap; p++) {
        const struct peer_row *r = &results->peers[p];
        bool seen = false;
        for (size_t q = 0; q < p && !seen; q++)
            seen = same_peer_series(&results->peers[q], r);
        if (seen)
            continue;
        for (size_t q = p; q < results->n_peers; q++) {
            const struct peer_row *s = &results->peers[q];
            if (same_peer_series(s, r))
                fprintf(data, "%zu %.3f\n", s->n,
                        (double)s->n * (double)clfold_type_size(s->type) / (s->best_ms * 1e6));
        }
        fprintf(data, "\n\n");
        snprintf(series[count++].title, sizeof series[0].title, "%s %s %s", r->peer,
                 clfold_type_name(r->type), clfold_op_name(r->op));
    }
    return count;
}

int bench_plot(const char *path, const struct device_summary *device, const struct bench_plan *plan,
               const struct bench_results *results)
{
    char dir[] = "/tmp/clfold-plot-XXXXXX", data_path[64], script_path[64], command[256];
    struct series series[64];
    (void)plan;
    if (mkdtemp(dir) == NULL) {
        cli_error("--plot: cannot make a temporary folder");
        return -1;
    }
    snprintf(data_path, sizeof data_path, "%s/data", dir);
    snprintf(script_path, sizeof script_path, "%s/plot.gp", dir);
    FILE *data = fopen(data_path, "w"), *script = fopen(script_path, "w");
    int status = -1;
    if (data != NULL && script != NULL) {
        size_t count = write_data(data, results, series, sizeof series / sizeof series[0]);
        fprintf(script, "set terminal png size 1100,650\nset output '%s'\n", path);
        fprintf(script, "set logscale x 2\nset format x '2^{%%L}'\nset grid\nset key left top\n");
        fprintf(script, "set xlabel 'elements'\nset ylabel 'GB/s (input bytes / device time)'\n");
        fprintf(script, "set title 'clfold bench on %s (%s)'\nplot ", device->name, device->driver);
        for (size_t i = 0; i < count; i++)
            fprintf(script, "%s'%s' index %zu with linespoints title '%s'", i ? ", " : "", data_path,
                    i, series[i].title);
        fprintf(script, "\n");
    }
    if (data != NULL)
        fclose(data);
    if (script != NULL)
        fclose(script);
    snprintf(command, sizeof command, "gnuplot '%s' 2>&1", script_path);
    if (data != NULL && script != NULL) {
        status = system(command) == 0 ? 0 : -1;
        if (status != 0)
            cli_error("--plot: gnuplot failed or is not installed (apt-get install gnuplot-nox)");
    }
    remove(data_path);
    remove(script_path);
    rmdir(dir);
    return status;
}
