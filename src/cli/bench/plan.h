/*
 * plan.h: what a `clfold bench` run measures, read from its command line
 * (plan.c).
 */
#ifndef CLFOLD_CLI_BENCH_PLAN_H
#define CLFOLD_CLI_BENCH_PLAN_H

#include "args.h"
#include "run.h"

/* Fills the plan from the command line; EXIT_OK or EXIT_BAD_INPUT (said on stderr). */
int bench_plan_parse(const struct cli_args *args, struct bench_plan *plan);

/* Releases what the plan holds (the segments' offsets and their file). */
void bench_plan_release(struct bench_plan *plan);

#endif /* CLFOLD_CLI_BENCH_PLAN_H */
