/*
 * test_threads.c: clfold's threading rules (docs/design.md, "Threading"):
 *   --own-contexts    4 threads start together (a barrier), each creates its
 *                     own context on the same device, reduces a list of jobs
 *                     (several kernels, types, operators and sizes, in an
 *                     order of its own) for several rounds, then 300 quick
 *                     ones, each with another kernel and block size, and
 *                     destroys it. Every result must equal the host
 *                     reference, and every run record show its own settings.
 *   --shared-context  one context, 4 threads taking turns under a mutex; each
 *                     turn sets the kernel, reduces and reads the run record,
 *                     all under the lock, and must see its own settings in it.
 * The library keeps no global state, so nothing else is needed, but for
 * the driver: the process's first OpenCL call comes before the threads, as
 * docs/design.md asks (POCL 3.1 crashes when first calls race). Threads record
 * failures on their own and the main thread counts them.
 */
#define _POSIX_C_SOURCE 200809L /* pthread barriers */

#include <pthread.h>

#include "util.h"

enum { THREADS = 4, ROUNDS = 3, JOBS = 7, QUICK_RUNS = 300, QUICK_N = 1000 };

struct job {
    clfold_kernel kernel;
    size_t block;
    clfold_type type;
    clfold_op op;
    size_t count;
    void *data;
    reference_value want;
    clfold_type result_type;
};

static struct job jobs[JOBS];

/* Many quick reductions, each with its own kernel and block: settings that leaked between contexts would show. */
static int32_t quick_data[QUICK_N];
static int64_t quick_sum;
static const clfold_kernel QUICK_KERNELS[3] = {CLFOLD_K3, CLFOLD_K4, CLFOLD_K7};
static const size_t QUICK_BLOCKS[3] = {32, 64, 128};

static void make_jobs(void)
{
    static const struct {
        clfold_kernel kernel;
        size_t block;
        clfold_type type;
        clfold_op op;
        size_t count;
    } specs[JOBS] = {
        {CLFOLD_AUTO, 0, CLFOLD_INT32, CLFOLD_SUM, 100003},
        {CLFOLD_K3, 64, CLFOLD_UINT8, CLFOLD_XOR, 4097},
        {CLFOLD_K6, 128, CLFOLD_FLOAT, CLFOLD_MAX, 30011},
        {CLFOLD_K4, 32, CLFOLD_INT64, CLFOLD_PROD, 1000},
        {CLFOLD_K7, 256, CLFOLD_FLOAT, CLFOLD_SUM, 65537}, /* small integers: exact */
        {CLFOLD_AUTO, 0, CLFOLD_HALF, CLFOLD_MIN, 2049},
        {CLFOLD_ATOMIC, 64, CLFOLD_UINT32, CLFOLD_OR, 3001},
    };
    test_rng rng = {77};
    for (int j = 0; j < JOBS; j++) {
        struct job *job = &jobs[j];
        job->kernel = specs[j].kernel;
        job->block = specs[j].block;
        job->type = specs[j].type;
        job->op = specs[j].op;
        job->count = specs[j].count;
        job->data = malloc(job->count * clfold_type_size(job->type));
        if (job->data == NULL) {
            fprintf(stderr, "out of memory\n");
            exit(1);
        }
        if (job->type == CLFOLD_FLOAT && job->op == CLFOLD_SUM)
            fill_small(job->data, job->count, job->type, &rng);
        else if (type_is_float(job->type))
            fill_unit(job->data, job->count, job->type, &rng);
        else
            fill_integers(job->data, job->count, job->type, job->op, &rng);
        reference_reduce(job->data, job->count, job->type, job->op, &job->want, NULL);
        clfold_result_type(job->type, job->op, &job->result_type);
    }
    reference_value sum;
    fill_integers(quick_data, QUICK_N, CLFOLD_INT32, CLFOLD_SUM, &rng);
    reference_reduce(quick_data, QUICK_N, CLFOLD_INT32, CLFOLD_SUM, &sum, NULL);
    quick_sum = sum.i64;
}

/* What one thread saw; printed as it happens, counted by the main thread. */
struct worker {
    int index;
    clfold_context *ctx;       /* shared-context: the common one */
    pthread_mutex_t *lock;     /* shared-context: held around every turn */
    pthread_barrier_t *start;
    cl_device_id device;
    unsigned long reductions;
    unsigned long failures;
};

static void report(struct worker *w, const struct job *job, const char *what, const char *detail)
{
    w->failures++;
    fprintf(stderr, "thread %d: %s %s, kernel %s, block %zu, %zu elements: %s%s\n", w->index,
            clfold_type_name(job->type), clfold_op_name(job->op), clfold_kernel_name(job->kernel),
            job->block, job->count, what, detail);
}

/* One job on ctx: set the kernel, reduce, check the value and the run record. */
static void run_job(struct worker *w, clfold_context *ctx, const struct job *job)
{
    reference_value got;
    clfold_run_info info;
    memset(&got, 0, sizeof got);
    clfold_status status = clfold_set_kernel(ctx, job->kernel, job->block);
    if (status == CLFOLD_SUCCESS)
        status = clfold_reduce_host(ctx, job->data, job->count, job->type, job->op, &got);
    if (status != CLFOLD_SUCCESS) {
        report(w, job, "failed: ", clfold_last_error(ctx));
        return;
    }
    w->reductions++;
    if (!reference_equal(&got, &job->want, job->result_type)) {
        char text[64];
        reference_format(text, sizeof text, &got, job->result_type);
        report(w, job, "wrong result ", text);
    }
    if (clfold_last_run(ctx, &info) != CLFOLD_SUCCESS ||
        (job->block != 0 && info.block_size != job->block))
        report(w, job, "the run record is not this job's", "");
}

/* Quick run i of a thread: its kernel and block must be the ones in the run record. */
static void run_quick(struct worker *w, clfold_context *ctx, int i)
{
    clfold_kernel kernel = QUICK_KERNELS[(i + w->index) % 3];
    size_t block = QUICK_BLOCKS[(i / 3 + w->index) % 3];
    int64_t sum = 0;
    clfold_run_info info;
    clfold_status status = clfold_set_kernel(ctx, kernel, block);
    if (status == CLFOLD_SUCCESS)
        status = clfold_reduce_host(ctx, quick_data, QUICK_N, CLFOLD_INT32, CLFOLD_SUM, &sum);
    if (status == CLFOLD_SUCCESS)
        status = clfold_last_run(ctx, &info);
    if (status != CLFOLD_SUCCESS || sum != quick_sum || info.kernel != kernel ||
        info.block_size != block) {
        w->failures++;
        fprintf(stderr, "thread %d: quick run %d (kernel %s, block %zu): %s, sum %lld (want %lld), "
                        "record: kernel %s, block %zu\n",
                w->index, i, clfold_kernel_name(kernel), block, clfold_status_string(status),
                (long long)sum, (long long)quick_sum,
                status == CLFOLD_SUCCESS ? clfold_kernel_name(info.kernel) : "-",
                status == CLFOLD_SUCCESS ? info.block_size : 0);
    } else {
        w->reductions++;
    }
}

static void *own_context(void *arg)
{
    struct worker *w = arg;
    clfold_context *ctx = NULL;
    pthread_barrier_wait(w->start); /* all create their contexts at once */
    /* First a create that fails: each thread reads its own reason. */
    char missing[48];
    snprintf(missing, sizeof missing, "no-such-device-in-thread-%d", w->index);
    if (clfold_create(&ctx, missing) != CLFOLD_ERROR_DEVICE_NOT_FOUND ||
        strstr(clfold_last_error(NULL), missing) == NULL) {
        w->failures++;
        fprintf(stderr, "thread %d: clfold_last_error(NULL) after a failed create: \"%s\"\n",
                w->index, clfold_last_error(NULL));
    }
    clfold_status status = clfold_create(&ctx, NULL);
    if (status != CLFOLD_SUCCESS) {
        w->failures++;
        fprintf(stderr, "thread %d: clfold_create: %s\n", w->index, clfold_status_string(status));
    }
    w->ctx = ctx;
    w->device = clfold_device(ctx);
    pthread_barrier_wait(w->start); /* all reduce at once */
    for (int round = 0; round < ROUNDS && ctx != NULL; round++)
        for (int j = 0; j < JOBS; j++)
            run_job(w, ctx, &jobs[(j + w->index + round) % JOBS]);
    for (int i = 0; i < QUICK_RUNS && ctx != NULL; i++)
        run_quick(w, ctx, i);
    return NULL;
}

static void *shared_context(void *arg)
{
    struct worker *w = arg;
    pthread_barrier_wait(w->start);
    for (int round = 0; round < ROUNDS; round++) {
        for (int j = 0; j < JOBS; j++) {
            pthread_mutex_lock(w->lock);
            run_job(w, w->ctx, &jobs[(j + w->index + round) % JOBS]);
            pthread_mutex_unlock(w->lock);
        }
    }
    for (int i = 0; i < QUICK_RUNS; i++) {
        pthread_mutex_lock(w->lock);
        run_quick(w, w->ctx, i);
        pthread_mutex_unlock(w->lock);
    }
    return NULL;
}

static void run_threads(bool shared)
{
    pthread_t threads[THREADS];
    struct worker workers[THREADS];
    pthread_barrier_t start;
    pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    clfold_context *common = shared ? test_context() : NULL;
    if (shared && common == NULL) {
        EXPECT(false, "no context");
        return;
    }
    pthread_barrier_init(&start, NULL, THREADS);
    for (int t = 0; t < THREADS; t++) {
        workers[t] = (struct worker){t, common, &lock, &start, NULL, 0, 0};
        EXPECT(pthread_create(&threads[t], NULL, shared ? shared_context : own_context,
                              &workers[t]) == 0,
               "pthread_create %d", t);
    }
    unsigned long reductions = 0;
    for (int t = 0; t < THREADS; t++) {
        pthread_join(threads[t], NULL);
        EXPECT(workers[t].failures == 0, "thread %d: %lu failures", t, workers[t].failures);
        EXPECT(workers[t].reductions == ROUNDS * JOBS + QUICK_RUNS, "thread %d: %lu of %d reductions",
               t, workers[t].reductions, ROUNDS * JOBS + QUICK_RUNS);
        reductions += workers[t].reductions;
    }
    if (!shared) {
        for (int t = 1; t < THREADS; t++)
            EXPECT(workers[t].device == workers[0].device && workers[t].ctx != workers[0].ctx,
                   "thread %d: not a context of its own on the same device", t);
        for (int t = 0; t < THREADS; t++)
            clfold_destroy(workers[t].ctx);
    }
    clfold_destroy(common);
    pthread_barrier_destroy(&start);
    printf("%s: %d threads, %lu correct reductions\n", shared ? "one shared context" : "own contexts",
           THREADS, reductions);
}

int main(int argc, char **argv)
{
    bool shared = argc == 2 && strcmp(argv[1], "--shared-context") == 0;
    if (argc != 2 || (!shared && strcmp(argv[1], "--own-contexts") != 0)) {
        fprintf(stderr, "usage: test_threads --own-contexts | --shared-context\n");
        return 2;
    }
    make_jobs();
    /*
     * The process's first OpenCL calls, before any thread starts: POCL 3.1
     * initialises its devices on the first clGetDeviceIDs and is not ready
     * for concurrent first calls (docs/design.md, "Threading").
     */
    clfold_destroy(test_context());
    run_threads(shared);
    for (int j = 0; j < JOBS; j++)
        free(jobs[j].data);
    return test_finish(argv[1] + 2);
}
