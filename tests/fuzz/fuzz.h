/*
 * fuzz.h — the entry point every fuzz target defines (libFuzzer's), and
 * the invariant check they share.  Built with clang -fsanitize=fuzzer by
 * scripts/fuzz.sh; built with any compiler against standalone_main.c for
 * the test suite, which feeds them seeds and deterministic mutations.
 */
#ifndef IC_FUZZ_H
#define IC_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The seeds of the target (NULL-terminated), for standalone_main.c. */
extern const char *const fuzz_seeds[];

#define FUZZ_ASSERT(cond)                                                                      \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            fprintf(stderr, "fuzz invariant broken: %s (%s:%d)\n", #cond, __FILE__, __LINE__); \
            abort();                                                                           \
        }                                                                                      \
    } while (0)

#endif
