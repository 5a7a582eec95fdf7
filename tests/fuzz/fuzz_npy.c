/*
 * fuzz_npy.c: libFuzzer target for the runner's .npy reader,
 * npy_read_memory() in src/cli/npy.c. Besides the sanitizers' findings it
 * traps when the reader breaks its contract (src/cli/npy.h):
 *   - accepted: the array holds the elements that end the input, each with
 *     its bytes as they are or, for data in the other byte order, all of
 *     them reversed, and count * element size fits in the input;
 *   - refused: -1, an empty array, and a one-line, NUL-terminated reason
 *     that starts with the name.
 * Seeds: tests/fuzz/corpus/npy/; tokens: tests/fuzz/npy.dict.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "npy.h"

#define REQUIRE(cond)              \
    do {                           \
        if (!(cond))               \
            __builtin_trap();      \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct npy_array array;
    char err[256];
    memset(err, 'x', sizeof err);
    int rc = npy_read_memory(data, size, "fuzz.npy", &array, err, sizeof err);
    if (rc == 0) {
        size_t item = clfold_type_size(array.type);
        REQUIRE(item != 0 && array.count <= size / item);
        size_t bytes = array.count * item;
        REQUIRE((bytes == 0) == (array.data == NULL));
        const unsigned char *tail = data + size - bytes, *got = array.data;
        bool reversed = true;
        for (size_t i = 0; i < bytes; i++)
            reversed = reversed && got[i] == tail[i - i % item + item - 1 - i % item];
        REQUIRE(bytes == 0 || memcmp(got, tail, bytes) == 0 || reversed);
        npy_free(&array);
        REQUIRE(array.data == NULL && array.count == 0);
    } else {
        REQUIRE(rc == -1);
        REQUIRE(array.data == NULL && array.count == 0);
        REQUIRE(memchr(err, '\0', sizeof err) != NULL);
        REQUIRE(strncmp(err, "fuzz.npy: ", 10) == 0 && err[10] != '\0');
        REQUIRE(strchr(err, '\n') == NULL);
    }
    return 0;
}
