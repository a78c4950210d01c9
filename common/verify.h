// Verification against the CPU gold: integers exactly, floats against a double
// gold within a stated tolerance. Reports the first bad index, expected and got.
#ifndef CUDALAB_VERIFY_H
#define CUDALAB_VERIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    bool ok;
    size_t n, n_bad;
    size_t first_bad;     // valid when !ok
    double expected, got; // at first_bad
    double max_abs_err;   // over all elements (floats)
    double max_rel_err;
    double max_err_over_tol; // float compares: the worst element's error / its tolerance
} cl_compare;

// Passes when |got - want| <= abs_tol + rel_tol * |want| for every element (NaN fails).
cl_compare cl_compare_f32(const float *got, const double *want, size_t n, double rel_tol,
                          double abs_tol);
cl_compare cl_compare_f64(const double *got, const double *want, size_t n, double rel_tol,
                          double abs_tol);
// The same with a tolerance of each element's own: |got - want| <= tol[i].
cl_compare cl_compare_f32_each(const float *got, const double *want, const double *tol, size_t n);
// Floats that must come out unchanged (a transpose moves values): equal values pass, a NaN fails.
cl_compare cl_compare_f32_exact(const float *got, const float *want, size_t n);
cl_compare cl_compare_i32(const int32_t *got, const int32_t *want, size_t n);
cl_compare cl_compare_u32(const uint32_t *got, const uint32_t *want, size_t n);
cl_compare cl_compare_u64(const uint64_t *got, const uint64_t *want, size_t n);
cl_compare cl_compare_u8(const uint8_t *got, const uint8_t *want, size_t n);

// Prints "<what>: wrong result: first bad index 12 of 1000, expected 3, got 5
// (4 elements wrong, max abs error 2)" to stderr; nothing when c.ok.
void cl_compare_report(const char *what, cl_compare c);

// Tests of the failure path: when the environment variable CUDALAB_INJECT_FAULT is
// set, every compare sees element n/2 of `got` off by one, so a binary must report
// it and exit 1. Returns the index that is perturbed, or SIZE_MAX when not set.
size_t cl_fault_index(size_t n);
// How far that element is off: 1, or `term` with CUDALAB_INJECT_FAULT=term, the size of one
// typical term of the exercise's sums (matmul: one product), so a test can show that one
// term dropped from one sum of millions is caught.
double cl_fault_size(double term);

#ifdef __cplusplus
}
#endif

#endif
