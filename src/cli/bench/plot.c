/*
 * plot.c: GB/s against size as a PNG, drawn by gnuplot (Debian's
 * gnuplot-nox) from a data file and a script in a temporary folder; and
 * `clfold bench --plot FILE.png`'s lines: one per kernel and type, the
 * streaming read, and one per peer.
 *
 * May call (below it in src/cli/bench/): run.c.
 */
#include "plot.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "run.h"

void plot_point(struct plot_series *series, double x, double y)
{
    if (series->n < PLOT_MAX_POINTS) {
        series->x[series->n] = x;
        series->y[series->n++] = y;
    }
}

/* gnuplot's single-quoted strings end at a quote: titles lose theirs. */
static void put_quoted(FILE *out, const char *text)
{
    fputc('\'', out);
    for (const char *c = text; *c != '\0'; c++)
        fputc(*c == '\'' || (unsigned char)*c < 0x20 ? ' ' : *c, out);
    fputc('\'', out);
}

static void write_script(FILE *script, const char *path, const char *data_path, const char *title,
                         const struct plot_series *series, size_t count)
{
    fprintf(script, "set terminal png size 1100,650\nset output ");
    put_quoted(script, path);
    fprintf(script, "\nset logscale x 2\nset format x '2^{%%L}'\nset grid\nset key left top\n");
    /* Bytes as each row counts them: a reduction's input, a scan's input and output. */
    fprintf(script, "set xlabel 'elements'\nset ylabel 'GB/s (bytes / device time)'\n");
    fprintf(script, "set title ");
    put_quoted(script, title);
    fprintf(script, " noenhanced\nplot ");
    for (size_t i = 0; i < count; i++) {
        fprintf(script, "%s'%s' index %zu with linespoints title ", i ? ", " : "", data_path, i);
        put_quoted(script, series[i].title);
        fprintf(script, " noenhanced");
    }
    fprintf(script, "\n");
}

int plot_draw(const char *path, const char *title, const struct plot_series *series, size_t count)
{
    char dir[] = "/tmp/clfold-plot-XXXXXX", data_path[64], script_path[64], command[256];
    if (system("command -v gnuplot >/dev/null 2>&1") != 0) {
        cli_error("--plot: gnuplot is not installed, so %s was not drawn (Debian: apt-get install "
                  "gnuplot-nox); the table is complete", path);
        return -1;
    }
    if (mkdtemp(dir) == NULL) {
        cli_error("--plot: cannot make a temporary folder");
        return -1;
    }
    snprintf(data_path, sizeof data_path, "%s/data", dir);
    snprintf(script_path, sizeof script_path, "%s/plot.gp", dir);
    FILE *data = fopen(data_path, "w"), *script = fopen(script_path, "w");
    int status = -1;
    if (data != NULL && script != NULL) {
        for (size_t i = 0; i < count; i++) { /* gnuplot's blocks are split by two blank lines */
            for (size_t p = 0; p < series[i].n; p++)
                fprintf(data, "%.0f %.3f\n", series[i].x[p], series[i].y[p]);
            fprintf(data, "\n\n");
        }
        write_script(script, path, data_path, title, series, count);
    }
    if (data != NULL)
        fclose(data);
    if (script != NULL)
        fclose(script);
    snprintf(command, sizeof command, "gnuplot '%s' 2>&1", script_path);
    if (data != NULL && script != NULL) {
        status = system(command) == 0 ? 0 : -1;
        if (status != 0)
            cli_error("--plot: gnuplot failed to draw %s (its messages are above)", path);
    }
    remove(data_path);
    remove(script_path);
    rmdir(dir);
    return status;
}

/* The series of clfold's rows like rows[first] (same type, operator, kernel): its GB/s or its read. */
static void clfold_series(const struct bench_results *results, size_t first, bool read_line,
                          struct plot_series *series)
{
    const struct bench_row *head = &results->rows[first];
    for (size_t i = first; i < results->n_rows; i++) {
        const struct bench_row *r = &results->rows[i];
        if (r->type == head->type && r->op == head->op && bench_same_kernel(r, head))
            plot_point(series, (double)r->n, read_line ? r->read_gbps : r->gbps);
    }
}

/* Whether two peer rows belong to one series: the same peer, type and operator. */
static bool same_peer_series(const struct peer_row *a, const struct peer_row *b)
{
    return strcmp(a->peer, b->peer) == 0 && a->type == b->type && a->op == b->op;
}

/* The bench's lines; returns how many. */
static size_t bench_series(const struct bench_results *results, struct plot_series *series, size_t cap)
{
    size_t count = 0;
    for (size_t i = 0; i < results->n_rows && count + 1 < cap; i++) {
        const struct bench_row *r = &results->rows[i];
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = results->rows[j].type == r->type && results->rows[j].op == r->op &&
                   bench_same_kernel(&results->rows[j], r);
        if (seen)
            continue;
        clfold_series(results, i, false, &series[count]);
        snprintf(series[count++].title, sizeof series[0].title, "clfold %s%s%s%s %s %s",
                 bench_kernel_name(r), r->path != NULL ? " (" : "", r->path != NULL ? r->path : "",
                 r->path != NULL ? ")" : "", clfold_type_name(r->type), clfold_op_name(r->op));
        if (i == 0) {
            clfold_series(results, i, true, &series[count]);
            snprintf(series[count++].title, sizeof series[0].title, "%s %s",
                     r->scan != NULL ? "device copy" : "streaming read", clfold_type_name(r->type));
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
                plot_point(&series[count], (double)s->n,
                           bench_bytes(s->type, s->op, s->n, s->scan != NULL) / (s->best_ms * 1e6));
        }
        snprintf(series[count++].title, sizeof series[0].title, "%s %s %s", r->peer,
                 clfold_type_name(r->type), clfold_op_name(r->op));
    }
    return count;
}

int bench_plot(const char *path, const struct device_summary *device, const struct bench_results *results)
{
    char title[640];
    struct plot_series *series = calloc(PLOT_MAX_SERIES, sizeof *series);
    if (series == NULL) {
        cli_error("--plot: out of memory");
        return -1;
    }
    size_t count = bench_series(results, series, PLOT_MAX_SERIES);
    bool scan = results->n_rows > 0 && results->rows[0].scan != NULL;
    snprintf(title, sizeof title, "clfold bench%s on %s (%s)%s", scan ? " --scan" : "",
             device->name, device->driver, scan ? ": GB/s of input and output" : "");
    int status = plot_draw(path, title, series, count);
    free(series);
    return status;
}
