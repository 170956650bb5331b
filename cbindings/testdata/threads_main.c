/*
 * threads_main.c: the threads test of ctest.h as a standalone program,
 * linked against build/librhgd.so by `make test`: several pthreads use
 * independent handles of the shared library at once, each result is
 * compared bitwise with the same computation done serially, and each
 * thread must read its own last error.
 */
#include <stdio.h>
#include <stdlib.h>

#include "../internal/ctest/ctest.h"

int main(int argc, char **argv) {
    int nthreads = argc > 1 ? atoi(argv[1]) : 8;
    int rounds = argc > 2 ? atoi(argv[2]) : 4;
    char err[1024];
    if (ctest_threads(nthreads, rounds, err, sizeof err) != 0) {
        fprintf(stderr, "FAIL: %s\n", err);
        return 1;
    }
    int64_t live = -1;
    rhgd_live_handles(&live);
    if (live != 0) {
        fprintf(stderr, "FAIL: %lld handles left\n", (long long)live);
        return 1;
    }
    printf("threads: %d pthreads x %d rounds on independent handles agree with the serial results\n", nthreads, rounds);
    return 0;
}
