// A minimal unit-test harness: each test prints "PASS name" or "FAIL name" (with
// the failed expectations above it); tests/run.sh counts those lines.
#ifndef CUDALAB_UNIT_H
#define CUDALAB_UNIT_H

#include <stdio.h>

static int unit_current_failed, unit_passed, unit_failed;

#define EXPECT(cond)                                                                               \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            printf("  %s:%d: expected %s\n", __FILE__, __LINE__, #cond);                           \
            unit_current_failed = 1;                                                               \
        }                                                                                          \
    } while (0)

#define RUN_TEST(fn)                                                                               \
    do {                                                                                           \
        unit_current_failed = 0;                                                                   \
        fn();                                                                                      \
        printf("%s %s\n", unit_current_failed ? "FAIL" : "PASS", #fn);                             \
        fflush(stdout);                                                                            \
        if (unit_current_failed)                                                                   \
            unit_failed++;                                                                         \
        else                                                                                       \
            unit_passed++;                                                                         \
    } while (0)

#define UNIT_RESULT() (unit_failed ? 1 : 0)

#endif
