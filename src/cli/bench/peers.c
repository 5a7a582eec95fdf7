/*
 * peers.c: the peers of `clfold bench`: external programs (--peer CMD, see
 * bench/peers/) run on the plan's types, sizes, operators and shape beside
 * each device, each printing one JSON object per line, whose rows of the
 * asked type and operator are kept beside clfold's; and the OpenCL loader's
 * variables they start with.
 *
 * May call (below it in src/cli/bench/): run.c.
 */
#include "peers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common.h"
#include "run.h"

/*
 * The OpenCL loader's variables as the runner found them. Something in the
 * process may rewrite them once OpenCL starts: on the lent H100 machine,
 * OCL_ICD_FILENAMES="libpocl.so.2:libnvidia-opencl.so.1" becomes
 * "libpocl.so.2", and a peer that uses OpenCL itself (clfold_peer.py) then
 * finds no NVIDIA device. Peers start with the values as found.
 */
static const char *const LOADER_VARIABLES[] = {"OCL_ICD_FILENAMES", "OCL_ICD_VENDORS"};
#define N_LOADER_VARIABLES (sizeof LOADER_VARIABLES / sizeof LOADER_VARIABLES[0])
_Static_assert(N_LOADER_VARIABLES == sizeof ((struct loader_variables *)0)->values /
                                         sizeof ((struct loader_variables *)0)->values[0],
               "a value saved for each of the loader's variables");

void loader_variables_save(struct loader_variables *saved)
{
    for (size_t v = 0; v < N_LOADER_VARIABLES; v++) {
        const char *value = getenv(LOADER_VARIABLES[v]);
        saved->values[v] = value != NULL ? strdup(value) : NULL;
    }
}

void loader_variables_restore(const struct loader_variables *saved)
{
    for (size_t v = 0; v < N_LOADER_VARIABLES; v++) {
        if (saved->values[v] != NULL)
            setenv(LOADER_VARIABLES[v], saved->values[v], 1);
        else
            unsetenv(LOADER_VARIABLES[v]);
    }
}

void loader_variables_free(struct loader_variables *saved)
{
    for (size_t v = 0; v < N_LOADER_VARIABLES; v++) {
        free(saved->values[v]);
        saved->values[v] = NULL;
    }
}

/* The number after "key": in a JSON line; -1 if absent. */
static double json_number(const char *line, const char *key)
{
    char pattern[64];
    snprintf(pattern, sizeof pattern, "\"%s\":", key);
    const char *at = strstr(line, pattern);
    return at != NULL ? strtod(at + strlen(pattern), NULL) : -1;
}

static void json_text(const char *line, const char *key, char *out, size_t cap)
{
    char pattern[64];
    snprintf(pattern, sizeof pattern, "\"%s\": \"", key);
    const char *at = strstr(line, pattern);
    out[0] = '\0';
    if (at != NULL)
        sscanf(at + strlen(pattern), "%31[^\"]", out);
    (void)cap;
}

/*
 * The operators a peer is asked to time: what the peers in bench/peers/ do
 * (sum, argmin and argmax; sum, min and max scans).
 */
static bool peer_times(const struct bench_plan *plan, clfold_op op)
{
    if (plan->scan != NULL)
        return op == CLFOLD_SUM || op == CLFOLD_MIN || op == CLFOLD_MAX;
    return op == CLFOLD_SUM || cli_op_is_arg(op);
}

/*
 * The peer's command line: `command TYPE N... [SHAPE ARGS | --scan MODE]
 * [--op OP]`, the operator last and only where it is not a sum, so that a
 * peer that only sums (and knows nothing of --op) gets no option it does
 * not know.
 * A peer that knows nothing of --scan fails on it, and times no reduction
 * in a scan's place. 0, or -1 if too long.
 */
static int peer_command(const char *command, const struct bench_plan *plan, clfold_type type,
                        clfold_op op, char *cmd, size_t cap)
{
    size_t used = (size_t)snprintf(cmd, cap, "%s %s", command, clfold_type_name(type));
    for (size_t s = 0; s < plan->n_sizes && used < cap; s++)
        used += (size_t)snprintf(cmd + used, cap - used, " %zu", plan->sizes[s]);
    if (plan->shape.kind != SHAPE_WHOLE && used < cap)
        used += (size_t)snprintf(cmd + used, cap - used, " %s", plan->shape.peer_args);
    if (plan->scan != NULL && used < cap)
        used += (size_t)snprintf(cmd + used, cap - used, " --scan %s", plan->scan);
    if (op != CLFOLD_SUM && used < cap)
        used += (size_t)snprintf(cmd + used, cap - used, " --op %s", clfold_op_name(op));
    return used < cap ? 0 : -1;
}

/*
 * Keeps the peer's JSON rows of `type` and `op`; rows that name no "op" are
 * sums. In a scan's run only rows whose "scan" is the plan's are kept, and
 * in a reduction's only rows without one.
 */
static void read_peer_rows(FILE *pipe, const struct bench_plan *plan, clfold_type type,
                           clfold_op op, struct bench_results *results)
{
    char line[1024];
    while (fgets(line, sizeof line, pipe) != NULL &&
           results->n_peers < sizeof results->peers / sizeof results->peers[0]) {
        struct peer_row *row = &results->peers[results->n_peers];
        char type_name[32], op_name[32], scan[32];
        clfold_op row_op = CLFOLD_SUM;
        json_text(line, "peer", row->peer, sizeof row->peer);
        json_text(line, "type", type_name, sizeof type_name);
        json_text(line, "op", op_name, sizeof op_name);
        json_text(line, "scan", scan, sizeof scan);
        if (strcmp(type_name, clfold_type_name(type)) != 0 ||
            (op_name[0] != '\0' && clfold_op_from_name(op_name, &row_op) != CLFOLD_SUCCESS) ||
            row_op != op || strcmp(scan, plan->scan != NULL ? plan->scan : "") != 0)
            continue; /* a peer's row of another type, operator or kind is never compared with this one */
        row->type = type;
        row->op = op;
        row->scan = plan->scan;
        row->n = (size_t)json_number(line, "n");
        row->best_ms = json_number(line, "best_ms");
        row->median_ms = json_number(line, "median_ms");
        row->e2e_ms = json_number(line, "e2e_ms");
        if (row->peer[0] != '\0' && row->best_ms > 0)
            results->n_peers++;
    }
}

/* Runs one peer for each type and operator it times; false where a run of it failed (said). */
static bool run_peer(const char *command, const struct bench_plan *plan,
                     struct bench_results *results)
{
    bool asked = false, ran = true;
    for (size_t t = 0; t < plan->n_types; t++) {
        for (size_t o = 0; o < plan->n_ops; o++) {
            char cmd[4096];
            clfold_type type = plan->types[t];
            clfold_op op = plan->ops[o];
            if (!peer_times(plan, op))
                continue;
            asked = true;
            if (peer_command(command, plan, type, op, cmd, sizeof cmd) != 0) {
                cli_error("peer \"%s\": its command line is too long", command);
                return false;
            }
            FILE *pipe = popen(cmd, "r");
            if (pipe == NULL) {
                cli_error("peer \"%s\" could not be started", command);
                ran = false;
                continue;
            }
            read_peer_rows(pipe, plan, type, op, results);
            if (pclose(pipe) != 0) {
                cli_error("peer \"%s\" failed for %s %s (see its messages above)", command,
                          clfold_type_name(type), clfold_op_name(op));
                ran = false;
            }
        }
    }
    if (!asked)
        cli_error("peer \"%s\" not run: peers time %s only", command,
                  plan->scan != NULL ? "sum, min and max scans" : "sum, argmin and argmax");
    return ran;
}

/* The command of a peer meant for `device`, past its "GPU:" or "CPU:"; NULL where it is for another type. */
static const char *peer_for(const char *peer, const struct bench_device *device)
{
    static const char *const TYPES[] = {"GPU", "CPU", "accelerator"};
    for (size_t t = 0; t < sizeof TYPES / sizeof TYPES[0]; t++) {
        size_t n = strlen(TYPES[t]);
        if (strncasecmp(peer, TYPES[t], n) == 0 && peer[n] == ':')
            return strcasecmp(TYPES[t], device->summary.type) == 0 ? peer + n + 1 : NULL;
    }
    return peer;
}

int bench_run_peers(const struct cli_args *args, const struct bench_plan *plan, struct bench_device *device)
{
    int exit_status = EXIT_OK;
    const char *was = getenv("CLFOLD_DEVICE");
    char *saved = was != NULL ? strdup(was) : NULL;
    if (device->index[0] != '\0')
        setenv("CLFOLD_DEVICE", device->index, 1); /* clfold_peer.py and pyopencl_peer.py follow it */
    for (int p = 0; p < args->n_peers; p++) {
        const char *command = peer_for(args->peers[p], device);
        if (command != NULL && !run_peer(command, plan, device->results))
            exit_status = EXIT_CHECK_FAILED;
    }
    if (saved != NULL)
        setenv("CLFOLD_DEVICE", saved, 1);
    else
        unsetenv("CLFOLD_DEVICE");
    free(saved);
    return exit_status;
}

