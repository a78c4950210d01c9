#include "verify.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

size_t cl_fault_index(size_t n)
{
    const char *env = getenv("CUDALAB_INJECT_FAULT");
    return (env && *env && n > 0) ? n / 2 : SIZE_MAX;
}

double cl_fault_size(double term)
{
    const char *env = getenv("CUDALAB_INJECT_FAULT");
    return env && strcmp(env, "term") == 0 ? term : 1.0;
}

static void note_bad(cl_compare *c, size_t i, double want, double got)
{
    if (c->n_bad++ == 0) {
        c->ok = false;
        c->first_bad = i;
        c->expected = want;
        c->got = got;
    }
}

// One element against its tolerance: a failure noted (NaN fails), the worst errors kept.
static void compare_element(cl_compare *c, size_t i, double want, double got, double tol)
{
    const double err = fabs(got - want);
    if (!(err <= tol))
        note_bad(c, i, want, got);
    if (err > c->max_abs_err || isnan(err))
        c->max_abs_err = err;
    if (want != 0.0 && err / fabs(want) > c->max_rel_err)
        c->max_rel_err = err / fabs(want);
    const double ratio = err == 0.0 ? 0.0 : tol > 0.0 ? err / tol : INFINITY; // NaN stays NaN
    if (ratio > c->max_err_over_tol || isnan(ratio))
        c->max_err_over_tol = ratio;
}

// Every element i within the tolerance expression `tol` (of i); element n/2 off by one
// under CUDALAB_INJECT_FAULT.
#define COMPARE_TOLERANCE(got, want, n, tol)                                                       \
    cl_compare c = {.ok = true, .n = (n)};                                                         \
    size_t fault = cl_fault_index(n);                                                              \
    for (size_t i = 0; i < (n); i++)                                                               \
        compare_element(&c, i, (want)[i], (double)(got)[i] + (i == fault ? 1.0 : 0.0), (tol));     \
    return c

cl_compare cl_compare_f32(const float *got, const double *want, size_t n, double rel_tol,
                          double abs_tol)
{
    COMPARE_TOLERANCE(got, want, n, abs_tol + rel_tol * fabs(want[i]));
}

cl_compare cl_compare_f64(const double *got, const double *want, size_t n, double rel_tol,
                          double abs_tol)
{
    COMPARE_TOLERANCE(got, want, n, abs_tol + rel_tol * fabs(want[i]));
}

cl_compare cl_compare_f32_each(const float *got, const double *want, const double *tol, size_t n)
{
    COMPARE_TOLERANCE(got, want, n, tol[i]);
}

#define COMPARE_EXACT(got, want, n)                                                                \
    cl_compare c = {.ok = true, .n = (n)};                                                         \
    size_t fault = cl_fault_index(n);                                                              \
    for (size_t i = 0; i < (n); i++) {                                                             \
        double g = (double)(got)[i] + (i == fault ? 1.0 : 0.0);                                    \
        double err = fabs(g - (double)(want)[i]);                                                  \
        if (err != 0.0)                                                                            \
            note_bad(&c, i, (double)(want)[i], g);                                                 \
        if (err > c.max_abs_err)                                                                   \
            c.max_abs_err = err;                                                                   \
    }                                                                                              \
    return c

cl_compare cl_compare_f32_exact(const float *got, const float *want, size_t n)
{
    COMPARE_EXACT(got, want, n);
}

cl_compare cl_compare_i32(const int32_t *got, const int32_t *want, size_t n)
{
    COMPARE_EXACT(got, want, n);
}

cl_compare cl_compare_u32(const uint32_t *got, const uint32_t *want, size_t n)
{
    COMPARE_EXACT(got, want, n);
}

cl_compare cl_compare_u64(const uint64_t *got, const uint64_t *want, size_t n)
{
    COMPARE_EXACT(got, want, n);
}

cl_compare cl_compare_u8(const uint8_t *got, const uint8_t *want, size_t n)
{
    COMPARE_EXACT(got, want, n);
}

void cl_compare_report(const char *what, cl_compare c)
{
    if (c.ok)
        return;
    fprintf(stderr,
            "%s: %s: wrong result: first bad index %zu of %zu, expected %.9g, got %.9g "
            "(%zu element%s wrong, max abs error %.3g)\n",
            cl_progname, what, c.first_bad, c.n, c.expected, c.got, c.n_bad,
            c.n_bad == 1 ? "" : "s", c.max_abs_err);
}
