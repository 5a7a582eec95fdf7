/*
 * merge.c: the side-by-side table of merge.h: columns per device and peer,
 * rows keyed by (shape, type, operator, size, kernel), printed as a table,
 * CSV or JSON with each cell's GB/s, its percentage of its device's
 * streaming read and its ratio to the baseline column, and drawn with
 * gnuplot (plot.c). `clfold compare` (src/cli/compare.c) calls it too.
 *
 * May call (below it in src/cli/bench/): plot.c.
 */
#include "merge.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "output.h"
#include "plot.h"

static bool same_group(const struct merge_key *a, const struct merge_key *b)
{
    return strcmp(a->shape, b->shape) == 0 && strcmp(a->type, b->type) == 0 &&
           strcmp(a->op, b->op) == 0 && strcmp(a->kernel, b->kernel) == 0;
}

static bool same_key(const struct merge_key *a, const struct merge_key *b)
{
    return same_group(a, b) && a->n == b->n;
}

/* FNV-1a of the key's (shape, type, op, kernel), and of its size where `sized`. */
static uint64_t hash_key(const struct merge_key *key, bool sized)
{
    const char *const parts[] = {key->shape, key->type, key->op, key->kernel};
    uint64_t h = 14695981039346656037u, bits = 0;
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        const unsigned char *c = (const unsigned char *)parts[i];
        do /* the terminator too, so that ("ab", "c") and ("a", "bc") differ */
            h = (h ^ *c) * 1099511628211u;
        while (*c++ != '\0');
    }
    if (sized) {
        double n = key->n == 0 ? 0 : key->n; /* -0 and 0 are one size, as == has them */
        memcpy(&bits, &n, sizeof bits);
        for (int i = 0; i < 8; i++)
            h = (h ^ ((bits >> 8 * i) & 0xff)) * 1099511628211u;
    }
    return h;
}

/* The slot of the key equal to `key` in `index` (by_key: same_key, by_group: same_group), else
 * the empty slot where it goes. The index has an empty slot: it is never more than half full. */
static size_t *find_slot(const struct merge_table *t, const struct merge_index *index,
                         const struct merge_key *key)
{
    bool sized = index == &t->by_key;
    size_t mask = index->capacity - 1, at = (size_t)hash_key(key, sized) & mask;
    while (index->slots[at] != 0) {
        const struct merge_key *there = &t->keys[index->slots[at] - 1];
        if (sized ? same_key(there, key) : same_group(there, key))
            break;
        at = (at + 1) & mask;
    }
    return &index->slots[at];
}

/* Makes room in `index` for one more key, rehashing into twice the slots; 0, or -1 without memory. */
static int reserve_slot(struct merge_table *t, struct merge_index *index)
{
    if (2 * (index->count + 1) <= index->capacity)
        return 0;
    struct merge_index old = *index;
    index->capacity = old.capacity ? 2 * old.capacity : 128;
    index->slots = calloc(index->capacity, sizeof *index->slots);
    if (index->slots == NULL) {
        *index = old;
        return -1;
    }
    for (size_t s = 0; s < old.capacity; s++)
        if (old.slots[s] != 0)
            *find_slot(t, index, &t->keys[old.slots[s] - 1]) = old.slots[s];
    free(old.slots);
    return 0;
}

/* Enters key k in `index` unless an equal key is there; 0, or -1 without memory. */
static int index_key(struct merge_table *t, struct merge_index *index, size_t k)
{
    if (reserve_slot(t, index) != 0)
        return -1;
    size_t *slot = find_slot(t, index, &t->keys[k]);
    if (*slot == 0) {
        *slot = k + 1;
        index->count++;
    }
    return 0;
}

static void drop_index(struct merge_index *index)
{
    free(index->slots);
    *index = (struct merge_index){0};
}

/* Builds both indexes from the keys, as merge_sort leaves them (unbuilt); 0, or -1 without memory. */
static int build_indexes(struct merge_table *t)
{
    for (size_t k = 0; k < t->n_keys; k++)
        if (index_key(t, &t->by_key, k) != 0 || index_key(t, &t->by_group, k) != 0)
            return -1;
    return 0;
}

/* Room for one more key's row; 0, or -1 without memory. */
static int reserve_row(struct merge_table *t)
{
    if (t->n_keys < t->cap_keys)
        return 0;
    size_t more = t->cap_keys ? 2 * t->cap_keys : 64;
    struct merge_key *keys = realloc(t->keys, more * sizeof *keys);
    if (keys == NULL)
        return -1;
    t->keys = keys;
    struct merge_cell *cells = realloc(t->cells, more * t->stride * sizeof *cells + 1);
    if (cells == NULL)
        return -1;
    t->cells = cells;
    t->cap_keys = more;
    return 0;
}

/* The row of `key`, made where there is none (its order its group's); NULL when out of memory. */
static struct merge_cell *row_of(struct merge_table *t, const struct merge_key *key)
{
    if (t->n_keys > 0 && t->by_key.capacity == 0 && build_indexes(t) != 0)
        return NULL;
    if (reserve_slot(t, &t->by_key) != 0 || reserve_slot(t, &t->by_group) != 0 || reserve_row(t) != 0)
        return NULL;
    size_t *slot = find_slot(t, &t->by_key, key), k = t->n_keys;
    if (*slot != 0)
        return &t->cells[(*slot - 1) * t->stride];
    size_t *group = find_slot(t, &t->by_group, key);
    t->keys[k] = *key;
    t->keys[k].order = *group != 0 ? t->keys[*group - 1].order : k;
    memset(&t->cells[k * t->stride], 0, t->stride * sizeof *t->cells);
    *slot = k + 1;
    t->by_key.count++;
    if (*group == 0) {
        *group = k + 1;
        t->by_group.count++;
    }
    t->n_keys++;
    return &t->cells[k * t->stride];
}

/*
 * Widens every row to `stride` cells, the new ones empty; 0, or -1 without
 * memory. Rows start narrow and double as columns come, so that a table of
 * one or two devices holds two or four cells a row, not MERGE_MAX_COLUMNS.
 */
static int widen_rows(struct merge_table *t, size_t stride)
{
    struct merge_cell *cells = calloc(t->cap_keys * stride + 1, sizeof *cells);
    if (cells == NULL)
        return -1;
    for (size_t k = 0; k < t->n_keys; k++)
        memcpy(&cells[k * stride], &t->cells[k * t->stride], t->stride * sizeof *cells);
    free(t->cells);
    t->cells = cells;
    t->stride = stride;
    return 0;
}

static int add_column(struct merge_table *t, int run, const char *device, const char *source,
                      const char *origin, char *err, size_t cap)
{
    if (t->n_columns == MERGE_MAX_COLUMNS) {
        snprintf(err, cap, "more than %d devices and peers to put side by side", MERGE_MAX_COLUMNS);
        return -1;
    }
    size_t wider = t->stride ? 2 * t->stride : 2;
    wider = wider < MERGE_MAX_COLUMNS ? wider : MERGE_MAX_COLUMNS;
    if (t->n_columns == t->stride && widen_rows(t, wider) != 0) {
        snprintf(err, cap, "out of memory");
        return -1;
    }
    struct merge_column *c = &t->columns[t->n_columns];
    char name[sizeof c->name];
    if (strcmp(source, "clfold") == 0)
        snprintf(name, sizeof name, "%.120s", device);
    else
        snprintf(name, sizeof name, "%.60s on %.120s", source, device);
    snprintf(c->name, sizeof c->name, "%s", name);
    for (int repeat = 2; ; repeat++) { /* the same device twice (two runs, two selectors): "#2" */
        size_t other = 0;
        while (other < t->n_columns && strcmp(t->columns[other].name, c->name) != 0)
            other++;
        if (other == t->n_columns)
            break;
        snprintf(c->name, sizeof c->name, "%.181s #%d", name, repeat % 1000);
    }
    snprintf(c->device, sizeof c->device, "%s", device);
    snprintf(c->source, sizeof c->source, "%s", source);
    snprintf(c->origin, sizeof c->origin, "%s", origin);
    c->run = run;
    if (run + 1 > t->n_runs)
        t->n_runs = run + 1;
    return (int)t->n_columns++;
}

static void key_of(const struct merge_row *r, const char *kernel, struct merge_key *key)
{
    memset(key, 0, sizeof *key);
    snprintf(key->shape, sizeof key->shape, "%s", r->shape);
    snprintf(key->type, sizeof key->type, "%s", r->type);
    snprintf(key->op, sizeof key->op, "%s", r->op);
    snprintf(key->kernel, sizeof key->kernel, "%s", kernel);
    key->n = r->n;
}

/*
 * A device's rows, sorted to be found by binary search: clfold's rows by
 * (shape, type, size, operator), to put a peer's row beside; the peers'
 * rows by (source, shape, type, operator, size), to find those that a later
 * row of the same peer and key replaces. Ties keep the rows' order.
 */
struct sorted_row {
    const struct merge_row *row;
    size_t index;           /* its place among the device's rows */
    double last_read;       /* clfold's: the read of the last of the rows of its (shape, type, size) */
};

/* Orders rows by (shape, type, size), then by operator where `by_op`. */
static int order_beside(const struct merge_row *a, const struct merge_row *b, bool by_op)
{
    int c = strcmp(a->shape, b->shape);
    if (c == 0)
        c = strcmp(a->type, b->type);
    if (c == 0)
        c = (a->n > b->n) - (a->n < b->n);
    return c != 0 || !by_op ? c : strcmp(a->op, b->op);
}

static int by_place(const struct sorted_row *x, const struct sorted_row *y)
{
    return (x->index > y->index) - (x->index < y->index);
}

static int compare_beside(const void *a, const void *b)
{
    int c = order_beside(((const struct sorted_row *)a)->row, ((const struct sorted_row *)b)->row, true);
    return c != 0 ? c : by_place(a, b);
}

/* Orders a peer's rows by (source, shape, type, size, operator), ties by place. */
static int compare_peer(const void *a, const void *b)
{
    const struct sorted_row *x = a, *y = b;
    int c = strcmp(x->row->source, y->row->source);
    if (c == 0)
        c = order_beside(x->row, y->row, true);
    return c != 0 ? c : by_place(x, y);
}

/* The first of `sorted` not ordered before `peer` (by (shape, type, size), and operator where `by_op`). */
static size_t first_beside(const struct sorted_row *sorted, size_t count, const struct merge_row *peer,
                           bool by_op)
{
    size_t lo = 0, hi = count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (order_beside(sorted[mid].row, peer, by_op) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Whether clfold's rows (sorted by compare_beside) hold one at the peer's shape, type, size and operator. */
static bool has_beside(const struct sorted_row *own, size_t n_own, const struct merge_row *peer)
{
    size_t at = first_beside(own, n_own, peer, true);
    return at < n_own && order_beside(own[at].row, peer, true) == 0;
}

/*
 * Puts a peer's row beside each of the device's kernels at its shape, type,
 * operator and size (`own`: clfold's rows, sorted by compare_beside), with
 * that kernel's read. A row with none stands alone (kernel "-"), with the
 * read of the device's last row of its shape, type and size, whatever the
 * operator: the read is the device's. 0, or -1 without memory.
 */
static int put_peer_row(struct merge_table *t, int column, const struct merge_row *peer,
                        const struct sorted_row *own, size_t n_own)
{
    struct merge_cell cell = {true, peer->best_ms, peer->gbps, 0}, *row;
    struct merge_key key;
    size_t at = first_beside(own, n_own, peer, true), placed = 0;
    for (; at < n_own && order_beside(own[at].row, peer, true) == 0; at++, placed++) {
        cell.read_gbps = own[at].row->read_gbps;
        key_of(peer, own[at].row->kernel, &key);
        if ((row = row_of(t, &key)) == NULL)
            return -1;
        row[column] = cell;
    }
    if (placed > 0)
        return 0;
    at = first_beside(own, n_own, peer, false);
    if (at < n_own && order_beside(own[at].row, peer, false) == 0)
        cell.read_gbps = own[at].last_read;
    key_of(peer, "-", &key);
    if ((row = row_of(t, &key)) == NULL)
        return -1;
    row[column] = cell;
    return 0;
}

/* Sorts clfold's rows (kernel set) for put_peer_row, each with its (shape, type, size)'s last read. */
static size_t sort_own(const struct merge_row *rows, size_t n_rows, struct sorted_row *own)
{
    size_t n_own = 0;
    for (size_t i = 0; i < n_rows; i++)
        if (rows[i].kernel != NULL)
            own[n_own++] = (struct sorted_row){&rows[i], i, 0};
    qsort(own, n_own, sizeof *own, compare_beside);
    for (size_t first = 0, end; first < n_own; first = end) {
        size_t last = first;
        for (end = first + 1; end < n_own && order_beside(own[end].row, own[first].row, false) == 0; end++)
            last = own[end].index > own[last].index ? end : last;
        for (size_t i = first; i < end; i++)
            own[i].last_read = own[last].row->read_gbps;
    }
    return n_own;
}

/*
 * Marks the peers' rows that a later row of the same peer, shape, type,
 * operator and size replaces: the later one puts its cells where they would
 * go, so placing only the last keeps the work linear however many repeats a
 * file holds. `scratch` holds n_rows rows.
 */
static void mark_replaced(const struct merge_row *rows, size_t n_rows, struct sorted_row *scratch,
                          bool *replaced)
{
    size_t n_peer = 0;
    for (size_t i = 0; i < n_rows; i++)
        if (rows[i].kernel == NULL)
            scratch[n_peer++] = (struct sorted_row){&rows[i], i, 0};
    qsort(scratch, n_peer, sizeof *scratch, compare_peer);
    for (size_t i = 0; i + 1 < n_peer; i++)
        replaced[scratch[i].index] = strcmp(scratch[i].row->source, scratch[i + 1].row->source) == 0 &&
                                     order_beside(scratch[i].row, scratch[i + 1].row, true) == 0;
}

/* The peers' rows of one device (kernel NULL), a column per peer; 0, or -1 with the reason in err. */
static int put_peers(struct merge_table *t, int run, const char *device, const char *origin, int own_column,
                     const struct merge_row *rows, size_t n_rows, char *err, size_t cap)
{
    struct sorted_row *own = malloc(n_rows * sizeof *own + 1), *scratch = malloc(n_rows * sizeof *own + 1);
    bool *replaced = calloc(n_rows + 1, sizeof *replaced);
    int status = own != NULL && scratch != NULL && replaced != NULL ? 0 : -1;
    size_t n_own = status == 0 ? sort_own(rows, n_rows, own) : 0;
    if (status == 0)
        mark_replaced(rows, n_rows, scratch, replaced);
    for (size_t i = 0; i < n_rows && status == 0; i++) {
        const struct merge_row *r = &rows[i];
        if (r->kernel != NULL)
            continue;
        int column = -1; /* the peer's column on this device, made at its first row */
        for (size_t c = (size_t)own_column + 1; c < t->n_columns && column < 0; c++)
            if (strcmp(t->columns[c].source, r->source) == 0)
                column = (int)c;
        if (column < 0 && (column = add_column(t, run, device, r->source, origin, err, cap)) < 0)
            status = -2; /* said */
        /* A replaced row beside kernels is skipped: the later one fills the same cells. One that
         * stands alone still makes its row, whose place in the order is its first appearance. */
        else if ((!replaced[i] || !has_beside(own, n_own, r)) && put_peer_row(t, column, r, own, n_own) != 0)
            status = -1;
    }
    if (status == -1)
        snprintf(err, cap, "out of memory");
    free(own);
    free(scratch);
    free(replaced);
    return status == 0 ? 0 : -1;
}

int merge_add_device(struct merge_table *t, int run, const char *device, const char *origin,
                     const struct merge_row *rows, size_t n_rows, bool peers, char *err, size_t cap)
{
    int own = add_column(t, run, device, "clfold", origin, err, cap);
    if (own < 0)
        return -1;
    for (size_t i = 0; i < n_rows; i++) {
        const struct merge_row *r = &rows[i];
        if (r->kernel == NULL)
            continue;
        struct merge_key key;
        key_of(r, r->kernel, &key);
        struct merge_cell *row = row_of(t, &key);
        if (row == NULL) {
            snprintf(err, cap, "out of memory");
            return -1;
        }
        row[own] = (struct merge_cell){true, r->best_ms, r->gbps, r->read_gbps};
    }
    return peers ? put_peers(t, run, device, origin, own, rows, n_rows, err, cap) : 0;
}

static const struct merge_table *sorting; /* qsort has no context argument */

static int compare_rows(const void *a, const void *b)
{
    const struct merge_key *x = &sorting->keys[*(const size_t *)a], *y = &sorting->keys[*(const size_t *)b];
    if (x->order != y->order)
        return x->order < y->order ? -1 : 1;
    return (x->n > y->n) - (x->n < y->n);
}

void merge_sort(struct merge_table *t)
{
    size_t *index = malloc(t->n_keys * sizeof *index + 1);
    struct merge_key *keys = malloc(t->n_keys * sizeof *keys + 1);
    struct merge_cell *cells = malloc(t->n_keys * t->stride * sizeof *cells + 1);
    if (index != NULL && keys != NULL && cells != NULL) {
        for (size_t k = 0; k < t->n_keys; k++)
            index[k] = k;
        sorting = t;
        qsort(index, t->n_keys, sizeof *index, compare_rows);
        for (size_t k = 0; k < t->n_keys; k++) {
            keys[k] = t->keys[index[k]];
            memcpy(&cells[k * t->stride], &t->cells[index[k] * t->stride], t->stride * sizeof *cells);
        }
        free(t->keys);
        free(t->cells);
        t->keys = keys;
        t->cells = cells;
        t->cap_keys = t->n_keys;
        keys = NULL;
        cells = NULL;
        drop_index(&t->by_key); /* they hold the keys' old places: row_of builds them again */
        drop_index(&t->by_group);
    }
    free(index);
    free(keys);
    free(cells);
}

size_t merge_shared_rows(const struct merge_table *t)
{
    size_t shared = 0;
    for (size_t k = 0; k < t->n_keys; k++) {
        int first_run = -1;
        bool two = false;
        for (size_t c = 0; c < t->n_columns && !two; c++) {
            if (!t->cells[k * t->stride + c].present)
                continue;
            if (first_run < 0)
                first_run = t->columns[c].run;
            two = t->columns[c].run != first_run;
        }
        shared += two;
    }
    return shared;
}

/* Whether `name` holds `part`, in any case. */
static bool holds(const char *name, const char *part)
{
    size_t n = strlen(part);
    for (const char *at = name; n > 0 && *at != '\0'; at++) {
        size_t i = 0;
        while (i < n && at[i] != '\0' && tolower((unsigned char)at[i]) == tolower((unsigned char)part[i]))
            i++;
        if (i == n)
            return true;
    }
    return false;
}

/* How many columns hold `name` (clfold's own only, with `own`); the first in *found. */
static int columns_holding(const struct merge_table *t, const char *name, bool own, int *found)
{
    int count = 0;
    for (size_t c = 0; c < t->n_columns; c++) {
        if ((own && strcmp(t->columns[c].source, "clfold") != 0) || !holds(t->columns[c].name, name))
            continue;
        *found = count == 0 ? (int)c : *found;
        count++;
    }
    return count;
}

int merge_baseline(const struct merge_table *t, const char *name, char *err, size_t cap)
{
    int found = -1;
    if (name == NULL)
        return 0;
    for (size_t c = 0; c < t->n_columns; c++)
        if (strcmp(t->columns[c].name, name) == 0)
            return (int)c;
    /* A part of a name: a device's own column before the peers' beside it ("PEER on DEVICE"). */
    int count = columns_holding(t, name, true, &found);
    if (count == 0)
        count = columns_holding(t, name, false, &found);
    if (count == 1)
        return found;
    char asked[PLAIN_TEXT_CAP(64)], first[PLAIN_TEXT_CAP(sizeof t->columns[0].name)];
    plain_text(asked, sizeof asked, name);
    if (count == 0)
        snprintf(err, cap, "--baseline \"%s\" names no column (the columns: %s%s)", asked,
                 plain_text(first, sizeof first, t->columns[0].name), t->n_columns > 1 ? ", ..." : "");
    else
        snprintf(err, cap, "--baseline \"%s\" names %d columns; give more of one's name", asked, count);
    return -1;
}

/* The cell of row k, column c. */
static const struct merge_cell *cell_at(const struct merge_table *t, size_t k, size_t c)
{
    return &t->cells[k * t->stride + c];
}

static double read_percent(const struct merge_cell *cell)
{
    return cell->read_gbps > 0 ? 100 * cell->gbps / cell->read_gbps : -1;
}

/* The cell's GB/s over the baseline's on the same row; -1 where either is missing. */
static double ratio(const struct merge_table *t, size_t k, size_t c, size_t baseline)
{
    const struct merge_cell *cell = cell_at(t, k, c), *base = cell_at(t, k, baseline);
    return cell->present && base->present && base->gbps > 0 ? cell->gbps / base->gbps : -1;
}

/* Whether a row is a scan's: the bench names a scan's shape "inclusive scan" or "exclusive scan". */
static bool is_scan(const struct merge_key *key)
{
    size_t n = strlen(key->shape);
    return n >= 5 && strcmp(key->shape + n - 5, " scan") == 0;
}

/*
 * What the columns mean. A scan's GB/s count its input and its output, and
 * its roofline is a device copy moving as many bytes, where a reduction's
 * count its input against a streaming read.
 */
static void print_legend(const struct merge_table *t)
{
    size_t scans = 0;
    for (size_t k = 0; k < t->n_keys; k++)
        scans += is_scan(&t->keys[k]);
    if (scans == 0)
        printf("Columns (GB/s of input; %%read: of that device's streaming read; ");
    else if (scans == t->n_keys)
        printf("Columns (GB/s of input and output; %%read: of that device's copy moving as many "
               "bytes; ");
    else
        printf("Columns (GB/s of input, of input and output for scans; %%read: of that device's "
               "streaming read, of its copy of as many bytes for scans; ");
    printf("x base: GB/s over the baseline's, above 1 is faster):\n");
}

/* The table for a terminal: every name from a run (devices, peers, files, keys) through plain_text. */
static void print_table(const struct merge_table *t, size_t baseline)
{
    char name[PLAIN_TEXT_CAP(sizeof t->columns[0].name)], origin[PLAIN_TEXT_CAP(sizeof t->columns[0].origin)];
    char type[PLAIN_TEXT_CAP(sizeof t->keys[0].type)], op[PLAIN_TEXT_CAP(sizeof t->keys[0].op)];
    char kernel[PLAIN_TEXT_CAP(sizeof t->keys[0].kernel)], shape[PLAIN_TEXT_CAP(sizeof t->keys[0].shape)];
    print_legend(t);
    for (size_t c = 0; c < t->n_columns; c++)
        printf("  %c  %s%s%s%s\n", c < 26 ? 'A' + (int)c : 'a' + (int)(c - 26) % 26,
               plain_text(name, sizeof name, t->columns[c].name), t->columns[c].origin[0] ? "  (" : "",
               plain_text(origin, sizeof origin, t->columns[c].origin), t->columns[c].origin[0] ? ")" : "");
    printf("  baseline: %c\n", baseline < 26 ? 'A' + (int)baseline : 'a' + (int)(baseline - 26) % 26);
    printf("%-7s %-6s %11s %-8s", "type", "op", "n", "kernel");
    for (size_t c = 0; c < t->n_columns; c++) {
        char letter = c < 26 ? (char)('A' + c) : (char)('a' + (c - 26) % 26);
        printf("  %c %7s %6s %7s", letter, "GB/s", "%read", "x base");
    }
    printf("\n");
    for (size_t k = 0; k < t->n_keys; k++) {
        const struct merge_key *key = &t->keys[k];
        printf("%-7s %-6s %11.0f %-8s", plain_text(type, sizeof type, key->type),
               plain_text(op, sizeof op, key->op), key->n, plain_text(kernel, sizeof kernel, key->kernel));
        for (size_t c = 0; c < t->n_columns; c++) {
            const struct merge_cell *cell = cell_at(t, k, c);
            double pct = read_percent(cell), x = ratio(t, k, c, baseline);
            if (!cell->present) {
                printf("    %7s %6s %7s", "-", "-", "-");
                continue;
            }
            printf("    %7.1f", cell->gbps);
            if (pct >= 0)
                printf(" %5.1f%%", pct);
            else
                printf(" %6s", "-");
            if (x >= 0)
                printf(" %6.2fx", x);
            else
                printf(" %7s", "-");
        }
        if (strcmp(key->shape, "whole") != 0)
            printf("  %s", plain_text(shape, sizeof shape, key->shape));
        printf("\n");
    }
}

static void print_csv(const struct merge_table *t, size_t baseline)
{
    printf("shape,type,op,n,kernel,column,device,source,origin,best_ms,gbps,read_percent,ratio,baseline\n");
    for (size_t k = 0; k < t->n_keys; k++) {
        const struct merge_key *key = &t->keys[k];
        for (size_t c = 0; c < t->n_columns; c++) {
            const struct merge_cell *cell = cell_at(t, k, c);
            const struct merge_column *col = &t->columns[c];
            double pct = read_percent(cell), x = ratio(t, k, c, baseline);
            if (!cell->present)
                continue;
            csv_string(stdout, key->shape);
            putchar(',');
            csv_word(stdout, key->type);
            putchar(',');
            csv_word(stdout, key->op);
            printf(",%.0f,", key->n);
            csv_word(stdout, key->kernel);
            putchar(',');
            csv_string(stdout, col->name);
            putchar(',');
            csv_string(stdout, col->device);
            putchar(',');
            csv_string(stdout, col->source);
            putchar(',');
            csv_string(stdout, col->origin);
            printf(",%.6f,%.3f,", cell->best_ms, cell->gbps);
            if (pct >= 0)
                printf("%.2f", pct);
            putchar(',');
            if (x >= 0)
                printf("%.4f", x);
            printf(",");
            csv_string(stdout, t->columns[baseline].name);
            printf("\n");
        }
    }
}

static void print_json(const struct merge_table *t, size_t baseline)
{
    printf("{\"schema\": {\"name\": \"clfold-compare\", \"version\": 1}, \"baseline\": ");
    json_string(stdout, t->columns[baseline].name);
    printf(", \"columns\": [");
    for (size_t c = 0; c < t->n_columns; c++) {
        const struct merge_column *col = &t->columns[c];
        printf("%s\n  {\"name\": ", c ? "," : "");
        json_string(stdout, col->name);
        printf(", \"device\": ");
        json_string(stdout, col->device);
        printf(", \"source\": ");
        json_string(stdout, col->source);
        printf(", \"origin\": ");
        json_string(stdout, col->origin);
        printf("}");
    }
    printf("\n], \"rows\": [");
    for (size_t k = 0; k < t->n_keys; k++) {
        const struct merge_key *key = &t->keys[k];
        bool first = true;
        printf("%s\n  {\"shape\": ", k ? "," : "");
        json_string(stdout, key->shape);
        printf(", \"type\": ");
        json_string(stdout, key->type);
        printf(", \"op\": ");
        json_string(stdout, key->op);
        printf(", \"n\": %.0f, \"kernel\": ", key->n);
        json_string(stdout, key->kernel);
        printf(", \"cells\": [");
        for (size_t c = 0; c < t->n_columns; c++) {
            const struct merge_cell *cell = cell_at(t, k, c);
            double pct = read_percent(cell), x = ratio(t, k, c, baseline);
            if (!cell->present)
                continue;
            printf("%s{\"column\": ", first ? "" : ", ");
            json_string(stdout, t->columns[c].name);
            printf(", \"best_ms\": %.6f, \"gbps\": %.3f", cell->best_ms, cell->gbps);
            if (pct >= 0)
                printf(", \"read_percent\": %.2f", pct);
            if (x >= 0)
                printf(", \"ratio\": %.4f", x);
            printf("}");
            first = false;
        }
        printf("]}");
    }
    printf("\n]}\n");
}

void merge_print(const struct merge_table *t, size_t baseline, enum cli_format format)
{
    if (format == FORMAT_JSON)
        print_json(t, baseline);
    else if (format == FORMAT_CSV)
        print_csv(t, baseline);
    else
        print_table(t, baseline);
}

int merge_plot(const struct merge_table *t, const char *path, const char *title)
{
    struct plot_series *series = calloc(PLOT_MAX_SERIES, sizeof *series);
    size_t count = 0;
    if (series == NULL) {
        cli_error("--plot: out of memory");
        return -1;
    }
    bool several = false; /* more than one (shape, type, op, kernel): the lines say which */
    for (size_t k = 0; k < t->n_keys && !several; k++)
        several = t->keys[k].order != t->keys[0].order;
    for (size_t c = 0; c < t->n_columns; c++) {
        for (size_t k = 0; k < t->n_keys && count < PLOT_MAX_SERIES; k++) {
            const struct merge_key *key = &t->keys[k];
            if (k > 0 && t->keys[k - 1].order == key->order)
                continue; /* rows are sorted: a group's rows are together, from its first */
            struct plot_series *s = &series[count];
            for (size_t j = k; j < t->n_keys && t->keys[j].order == key->order; j++)
                if (cell_at(t, j, c)->present)
                    plot_point(s, t->keys[j].n, cell_at(t, j, c)->gbps);
            if (s->n == 0)
                continue;
            if (several)
                snprintf(s->title, sizeof s->title, "%.120s: %s %s %s", t->columns[c].name, key->type,
                         key->op, key->kernel);
            else
                snprintf(s->title, sizeof s->title, "%s", t->columns[c].name);
            count++;
        }
    }
    int status = plot_draw(path, title, series, count);
    free(series);
    return status;
}

void merge_release(struct merge_table *t)
{
    free(t->keys);
    free(t->cells);
    t->keys = NULL;
    t->cells = NULL;
    t->n_keys = t->cap_keys = t->stride = 0;
    drop_index(&t->by_key);
    drop_index(&t->by_group);
}
