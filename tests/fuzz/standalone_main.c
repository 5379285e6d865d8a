/*
 * standalone_main.c — runs a fuzz target without libFuzzer (any compiler):
 * every seed, then ITERATIONS deterministic mutations of the seeds (byte
 * flips, insertions, deletions, splices, random bytes), or the files
 * given as arguments (a corpus or a crash to reproduce).  The test suite
 * runs every target this way; scripts/fuzz.sh does real coverage-guided
 * fuzzing with clang's libFuzzer.
 */
#include "fuzz.h"

#include <string.h>

#define ITERATIONS 20000
#define MAXLEN 512

static uint64_t rng = 0x9E3779B97F4A7C15ull;

static uint32_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)rng;
}

static size_t mutate(uint8_t *b, size_t n)
{
    static const char interesting[] = "=,.#\n\r\t -+eE0x9/aZ\xff";
    int edits = 1 + (int)(next() % 4);
    for (int e = 0; e < edits; e++) {
        switch (next() % 5) {
        case 0: /* flip a byte */
            if (n)
                b[next() % n] ^= (uint8_t)(1u << (next() % 8));
            break;
        case 1: /* insert an interesting byte */
            if (n < MAXLEN) {
                size_t at = n ? next() % (n + 1) : 0;
                memmove(b + at + 1, b + at, n - at);
                b[at] = (uint8_t)interesting[next() % (sizeof interesting - 1)];
                n++;
            }
            break;
        case 2: /* delete a byte */
            if (n) {
                size_t at = next() % n;
                memmove(b + at, b + at + 1, n - at - 1);
                n--;
            }
            break;
        case 3: /* duplicate a piece */
            if (n && n < MAXLEN / 2) {
                size_t from = next() % n, len = 1 + next() % (n - from);
                if (n + len <= MAXLEN) {
                    memcpy(b + n, b + from, len);
                    n += len;
                }
            }
            break;
        default: /* a random byte */
            if (n)
                b[next() % n] = (uint8_t)next();
        }
    }
    return n;
}

int main(int argc, char **argv)
{
    long runs = 0;
    if (argc > 1) {
        for (int i = 1; i < argc; i++) {
            FILE *f = fopen(argv[i], "rb");
            if (!f) {
                perror(argv[i]);
                return 2;
            }
            static uint8_t buf[1 << 16];
            size_t n = fread(buf, 1, sizeof buf, f);
            fclose(f);
            LLVMFuzzerTestOneInput(buf, n);
            runs++;
        }
    } else {
        int nseeds = 0;
        while (fuzz_seeds[nseeds])
            nseeds++;
        for (int s = 0; s < nseeds; s++, runs++)
            LLVMFuzzerTestOneInput((const uint8_t *)fuzz_seeds[s], strlen(fuzz_seeds[s]));
        LLVMFuzzerTestOneInput((const uint8_t *)"", 0);
        for (long i = 0; i < ITERATIONS; i++, runs++) {
            uint8_t buf[MAXLEN];
            const char *seed = fuzz_seeds[next() % (uint32_t)nseeds];
            size_t n = strlen(seed) < MAXLEN ? strlen(seed) : MAXLEN;
            memcpy(buf, seed, n);
            n = mutate(buf, n);
            LLVMFuzzerTestOneInput(buf, n);
        }
    }
    printf("%s: %ld inputs, no invariant broken\n", argv[0], runs);
    return 0;
}
