/*
 * ptx.h: NVIDIA's PTX text, edited before the driver builds it again
 * (program.c rebuilds a program from its own PTX with a directive).
 */
#ifndef CLFOLD_PTX_H
#define CLFOLD_PTX_H

#include <stddef.h>

/* The entries of `ptx`, each declaration followed by a body; 0 where there is none, or one lacks its body. */
size_t ptx_entries(const char *ptx);

/*
 * `ptx` with the line `directive` before the body of each of its entries
 * (after the parameter list and the directives there, where PTX puts an
 * entry's performance directives), as a malloc'ed string of *length bytes,
 * its NUL not counted. NULL where ptx_entries is 0, or without memory.
 */
char *ptx_with_directive(const char *ptx, const char *directive, size_t *length);

#endif /* CLFOLD_PTX_H */
