/*
 * commands.h: the runner's commands, one file each (devices.c, ladder.c,
 * reduce_command.c and reduce_mpi.c, scan_command.c, bench/bench.c, compare.c);
 * main.c hands over to one of them. What they share is common.h.
 */
#ifndef CLFOLD_CLI_COMMANDS_H
#define CLFOLD_CLI_COMMANDS_H

#include "args.h"

int command_devices(const struct cli_args *args);
int command_ladder(const struct cli_args *args);
int command_reduce(const struct cli_args *args);
int command_reduce_mpi(const struct cli_args *args); /* reduce --mpi, reduce_mpi.c */
int command_scan(const struct cli_args *args);
int command_bench(const struct cli_args *args);
int command_compare(const struct cli_args *args);

#endif /* CLFOLD_CLI_COMMANDS_H */
