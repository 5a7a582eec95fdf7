/*
 * main.c: the `clfold` runner: parses the command line and hands over to
 * one command. Exit status: 0 success, 1 a failed check, 2 bad usage or
 * bad input, always with one line on stderr saying what was wrong.
 */
#include <stdio.h>

#include "commands.h"
#include "common.h"

int main(int argc, char **argv)
{
    struct cli_args args;
    char err[512], help[4096];

    if (cli_parse(argc, argv, &args, err, sizeof err) != 0) {
        cli_error("%s", err);
        return EXIT_BAD_INPUT;
    }
    if (args.version) {
        printf("clfold %s\n", clfold_version_string());
        return EXIT_OK;
    }
    if (args.help) {
        if (cli_usage(args.command, help, sizeof help) >= sizeof help) {
            cli_error("the help text is longer than its %zu-byte buffer", sizeof help);
            return EXIT_CHECK_FAILED;
        }
        fputs(help, stdout);
        return EXIT_OK;
    }
    switch (args.command) {
    case CMD_DEVICES: return command_devices(&args);
    case CMD_LADDER: return command_ladder(&args);
    case CMD_SCAN: return command_scan(&args);
    case CMD_BENCH: return command_bench(&args);
    case CMD_COMPARE: return command_compare(&args);
    default: return command_reduce(&args);
    }
}
