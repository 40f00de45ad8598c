/* Minimal unit-test helpers shared by the C unit tests.
 *
 * Each test program prints one line per check group: "PASS <name>" or
 * "FAIL <name>: <why>", and exits non-zero when anything failed.  The test
 * runner (test/run.sh) counts these lines, so every check shows up in the
 * final "N passed, N failed" tally. */
#ifndef LB_TEST_CHECK_H
#define LB_TEST_CHECK_H

#include <stdio.h>
#include <stdarg.h>

static int check_failures;

/* Report one named check.  `ok` is the verdict; on failure the printf-style
 * message explains what was expected. */
static inline void check(int ok, const char *name, const char *fmt, ...)
{
    if (ok) {
        printf("PASS %s\n", name);
    } else {
        va_list ap;
        printf("FAIL %s: ", name);
        va_start(ap, fmt);
        vprintf(fmt, ap);
        va_end(ap);
        printf("\n");
        check_failures++;
    }
    fflush(stdout);
}

static inline int check_exit(void) { return check_failures ? 1 : 0; }

#endif
