/*
 * document.h: `clfold bench --format json` and `--format csv` (document.c),
 * and the version of the JSON's schema, which `clfold compare` reads back.
 */
#ifndef CLFOLD_CLI_BENCH_DOCUMENT_H
#define CLFOLD_CLI_BENCH_DOCUMENT_H

#include "args.h"
#include "run.h"

/* The JSON document's schema (bench/schema/clfold-bench-1.json) and the CSV's version. */
#define BENCH_SCHEMA_NAME "clfold-bench"
#define BENCH_SCHEMA_VERSION 1

/* --format json: one document, every device. */
void bench_print_document(const struct cli_args *args, const struct bench_plan *plan,
                          const struct bench_run *run);

/* --format csv: the same rows, flat, a device per row. */
void bench_print_csv(const struct bench_plan *plan, const struct bench_run *run);

#endif /* CLFOLD_CLI_BENCH_DOCUMENT_H */
