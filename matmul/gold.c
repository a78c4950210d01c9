// matmul's CPU side: the input conversions, the double-precision gold with each
// element's allowed error, and Freivalds' check for sizes the gold would take too long on.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "matmul.h"
#include "rng.h"

const char *const matmul_precision_names[] = {"fp32", "tf32", "bf16", "fp16", NULL};

static uint32_t float_bits(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

static float bits_float(uint32_t u)
{
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

// bf16 is a float's top 16 bits: add half of the dropped part's range, plus one when
// the kept part is odd (ties to even), and cut. The inputs hold no NaN.
uint16_t matmul_float_to_bf16(float x)
{
    uint32_t u = float_bits(x);
    return (uint16_t)((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}

float matmul_bf16_to_float(uint16_t h) { return bits_float((uint32_t)h << 16); }

// fp16: 5 exponent bits (bias 15), 10 fraction bits. Normal numbers round the float's
// 23 fraction bits to 10 (ties to even) and rebias the exponent by 127 - 15; below 2^-14
// the value is a multiple of 2^-24, rounded to the nearest (nearbyint: ties to even).
uint16_t matmul_float_to_fp16(float x)
{
    const uint16_t sign = (uint16_t)((float_bits(x) >> 16) & 0x8000u);
    const float a = fabsf(x);
    if (a >= 65520.0f) // rounds past the largest fp16, 65504
        return sign | 0x7C00u;
    if (a < 0x1p-14f)
        return sign | (uint16_t)nearbyintf(a * 0x1p24f);
    uint32_t u = float_bits(a);
    u += 0xFFFu + ((u >> 13) & 1u);
    return sign | (uint16_t)((u >> 13) - ((127u - 15u) << 10));
}

float matmul_fp16_to_float(uint16_t h)
{
    const float sign = (h & 0x8000u) ? -1.0f : 1.0f;
    const int exponent = (h >> 10) & 0x1F;
    const int fraction = h & 0x3FF;
    if (exponent == 0)
        return sign * ldexpf((float)fraction, -24);
    if (exponent == 31)
        return fraction ? NAN : sign * INFINITY;
    return sign * ldexpf((float)(fraction | 0x400), exponent - 25);
}

matmul_roundoff matmul_roundoff_of(matmul_precision p, bool tf32_truncates)
{
    // tf32 keeps 10 fraction bits. Rounded to nearest, an input moves by a fraction of
    // itself spread evenly over +-2^-11: standard deviation 2^-11 / sqrt 3, mean 0.
    // Truncated (the low 13 bits dropped), evenly over (-2^-10, 0]: the same spread about
    // a mean of -2^-11, so every product shrinks by 2^-10 of itself on average, a bias
    // that grows with the sum rather than its square root. bf16 and fp16 inputs are
    // rounded here, before the GPU sees them, so the gold multiplies the same numbers.
    // Every precision adds in fp32: one addition errs by at most 2^-24 of its result
    // when it rounds to nearest (the CUDA cores), 2^-23 when it truncates (the tensor
    // cores, which sum a block of products exactly and add it to the fp32 sum rounded
    // toward zero); the model takes the larger as the spread. Truncation is biased: one a
    // block of 16 k moves a k = 4096 sum by about one sigma, a k = 65536 one by about 12,
    // so the tensor cores' precisions also allow the truncations' bound (matmul.h;
    // tests/test_matmul.c simulates both units).
    const bool tf32 = p == MATMUL_TF32;
    return (matmul_roundoff){.input = tf32 ? 0x1p-11 / sqrt(3.0) : 0.0,
                             .input_bias = tf32 && tf32_truncates ? 0x1p-11 : 0.0,
                             .accumulate = 0x1p-23,
                             .accumulate_bias = p == MATMUL_FP32 ? 0.0 : 0x1p-23};
}

enum { GOLD_COLUMNS = 256 }; // a row's columns done at once: 2 x 2 KB of sums stay in L1

void matmul_gold(int m, int n, int k, double alpha, const float *a, const float *b, double beta,
                 const float *c0, matmul_roundoff r, double *c_out, double *tol_out)
{
    // Panels of GOLD_COLUMNS columns of B are swept by every thread in turn, so the panel
    // (k x 256 doubles' worth of floats) is shared in the last-level cache.
    for (int j0 = 0; j0 < n; j0 += GOLD_COLUMNS) {
        const int width = n - j0 < GOLD_COLUMNS ? n - j0 : GOLD_COLUMNS;
#pragma omp parallel for schedule(dynamic, 4)
        for (int i = 0; i < m; i++) {
            double sum[GOLD_COLUMNS] = {0}, squares[GOLD_COLUMNS] = {0};
            double drift[GOLD_COLUMNS] = {0};
            const float *a_row = a + (size_t)i * k;
            for (int l = 0; l < k; l++) {
                const double a_il = a_row[l];
                const float *b_row = b + (size_t)l * n + j0;
                for (int j = 0; j < width; j++) {
                    const double product = a_il * b_row[j];
                    sum[j] += product;
                    squares[j] += product * product;
                }
                if (r.accumulate_bias != 0.0 && matmul_block_ends(l, k))
                    for (int j = 0; j < width; j++)
                        drift[j] += fabs(sum[j]);
            }
            for (int j = 0; j < width; j++) {
                const size_t at = (size_t)i * n + j0 + j;
                const double old = beta != 0.0 ? beta * c0[at] : 0.0;
                c_out[at] = alpha * sum[j] + old;
                tol_out[at] = matmul_allowed_spread(r, k, alpha, squares[j], old) +
                              matmul_allowed_drift(r, alpha, drift[j]) +
                              2.0 * r.input_bias * fabs(alpha * sum[j]);
            }
        }
    }
}

// y = M x for an rows x cols row-major float matrix and a double vector, on every core.
static void multiply_vector(int rows, int cols, const float *matrix, const double *x, double *y)
{
#pragma omp parallel for schedule(static)
    for (int i = 0; i < rows; i++) {
        const float *row = matrix + (size_t)i * cols;
        double sum = 0.0;
        for (int j = 0; j < cols; j++)
            sum += row[j] * x[j];
        y[i] = sum;
    }
}

double matmul_freivalds(int m, int n, int k, double alpha, const float *a, const float *b,
                        double beta, const float *c0, const float *c, matmul_roundoff r,
                        int vectors, uint64_t seed, long *worst_row, double *worst_err,
                        double *worst_tol)
{
    // Row i's allowed error: MATMUL_SIGMAS x sqrt(sum_j sigma_ij^2 + bias_ij^2), where
    //   sum_j sum_l (a_il b_lj)^2 = sum_l a_il^2 (sum_j b_lj^2)   -- O(m k + k n)
    //   sum_j (beta c0_ij)^2                                      -- O(m n)
    // and truncated tf32's bias 2 input_bias alpha sum_l a_il b_lj, which x's random signs
    // add like noise, takes its sum from c itself (O(m n)): a wrong element widens its own
    // row's allowance by 2^-10 of its error, no more.
    double *b_row_squares = cl_host_alloc((size_t)k * sizeof(double), "freivalds");
    double *tol = cl_host_alloc((size_t)m * sizeof(double), "freivalds");
#pragma omp parallel for schedule(static)
    for (int l = 0; l < k; l++) {
        double s = 0.0;
        for (int j = 0; j < n; j++)
            s += (double)b[(size_t)l * n + j] * b[(size_t)l * n + j];
        b_row_squares[l] = s;
    }
#pragma omp parallel for schedule(static)
    for (int i = 0; i < m; i++) {
        double products = 0.0, olds = 0.0, results = 0.0;
        for (int l = 0; l < k; l++)
            products += (double)a[(size_t)i * k + l] * a[(size_t)i * k + l] * b_row_squares[l];
        if (beta != 0.0)
            for (int j = 0; j < n; j++)
                olds += (double)c0[(size_t)i * n + j] * c0[(size_t)i * n + j];
        if (r.input_bias != 0.0)
            for (int j = 0; j < n; j++)
                results += (double)c[(size_t)i * n + j] * c[(size_t)i * n + j];
        const double spread = matmul_allowed_spread(r, k, alpha, products, beta * sqrt(olds));
        const double bias = MATMUL_SIGMAS * 2.0 * r.input_bias * sqrt(results);
        // The tensor cores' truncations, added with x's random signs: sqrt(sum_j drift_ij^2)
        // where partial sums walking at random make drift_ij ~0.53 (k / block) sqrt(sum_l
        // (a_il b_lj)^2); allowed twice that, (k / block) sqrt(products).
        const double drift =
            matmul_allowed_drift(r, alpha, (double)k / MATMUL_TENSOR_BLOCK * sqrt(products));
        tol[i] = sqrt(spread * spread + bias * bias + drift * drift);
    }

    double *x = cl_host_alloc((size_t)n * sizeof(double), "freivalds");
    double *bx = cl_host_alloc((size_t)k * sizeof(double), "freivalds");
    double *want = cl_host_alloc((size_t)m * sizeof(double), "freivalds");
    double *got = cl_host_alloc((size_t)m * sizeof(double), "freivalds");
    double *old = cl_host_alloc((size_t)m * sizeof(double), "freivalds");
    double worst = 0.0;
    *worst_row = -1;
    *worst_err = *worst_tol = 0.0;
    const uint64_t key = cl_rng_key(seed, 0xF4E1);
    for (int v = 0; v < vectors; v++) {
        for (int j = 0; j < n;
             j++) // +-1: one wrong element moves its row's sum by all of its error
            x[j] = (cl_rng_u64(key, (uint64_t)v * n + j) >> 63) ? 1.0 : -1.0;
        multiply_vector(k, n, b, x, bx);
        multiply_vector(m, k, a, bx, want);
        multiply_vector(m, n, c, x, got);
        if (beta != 0.0)
            multiply_vector(m, n, c0, x, old);
        for (int i = 0; i < m; i++) {
            const double expect = alpha * want[i] + (beta != 0.0 ? beta * old[i] : 0.0);
            const double err = fabs(got[i] - expect);
            // NaN (an element never written) fails as infinitely wrong.
            const double ratio = isnan(err)     ? INFINITY
                                 : err == 0.0   ? 0.0
                                 : tol[i] > 0.0 ? err / tol[i]
                                                : INFINITY;
            if (ratio > worst || *worst_row < 0) {
                worst = ratio;
                *worst_row = i;
                *worst_err = err;
                *worst_tol = tol[i];
            }
        }
    }
    free(b_row_squares);
    free(tol);
    free(x);
    free(bx);
    free(want);
    free(got);
    free(old);
    return worst;
}

const char *matmul_hopper_refusal(int cc_major, int cc_minor, bool built)
{
    if (!built)
        return "it was not built: it is sm_90a code (wgmma, setmaxnreg), compiled only when "
               "the build includes sm_90 (make ARCH=sm_90, or ARCH=fat)";
    if (cc_major != 9 || cc_minor != 0)
        return "it needs a Hopper GPU (compute capability 9.0): wgmma and setmaxnreg are "
               "sm_90a instructions, which no other GPU runs";
    return NULL;
}
