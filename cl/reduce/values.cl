/*
 * values.cl: one work-item folds n accumulator values, in[offset ..
 * offset + n), pairwise in a fixed order, and writes the one value (or, with
 * `finish`, the caller's result): the last step of the CPU shape, whose
 * work-items leave a few values each, and the identity of an empty
 * reduction (n = 0).
 *
 * The tree is the one a loop of doubling strides builds: value j absorbs
 * value j + stride for stride = 1, 2, 4, ... Here it is built without
 * writing the input, as a binary counter: a stack of subtree values, each
 * new value merged with the top while the two cover equal spans, and what
 * is left merged from the top down at the end. 64 levels hold any n.
 */
__kernel void fold_values(__global const ACC_T *in, ulong offset, ulong n, __global uchar *out,
                          ulong at, uint finish)
{
    ACC_T stack[64];
    uchar level[64];
    uint depth = 0;
    for (ulong i = 0; i < n; i++) {
        ACC_T value = in[offset + i];
        uchar height = 0;
        while (depth > 0 && level[depth - 1] == height) {
            value = combine(stack[--depth], value);
            height++;
        }
        stack[depth] = value;
        level[depth++] = height;
    }
    ACC_T value = IDENTITY;
    if (depth > 0) {
        value = stack[--depth];
        while (depth > 0)
            value = combine(stack[--depth], value);
    }
    write_value(out, at, 0, finish, value);
}
