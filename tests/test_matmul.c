// Unit tests of matmul's CPU side: the input conversions, the gold and its tolerances,
// and Freivalds' check (it passes real fp32 results and catches one wrong element), and
// when v9 is refused.
#include <fenv.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "matmul.h"
#include "rng.h"
#include "unit.h"

static void test_bf16_rounding(void)
{
    EXPECT(matmul_float_to_bf16(1.0f) == 0x3F80);
    EXPECT(matmul_float_to_bf16(-2.0f) == 0xC000);
    EXPECT(matmul_float_to_bf16(1.0f + 0x1p-8f) == 0x3F80);            // a tie: to even
    EXPECT(matmul_float_to_bf16(1.0f + 0x1p-7f + 0x1p-8f) == 0x3F82);  // a tie: to even (up)
    EXPECT(matmul_float_to_bf16(1.0f + 0x1p-8f + 0x1p-20f) == 0x3F81); // past the tie: up
    bool round_trip = true; // every finite bf16 survives float and back
    for (uint32_t h = 0; h < 0x10000; h++)
        if ((h & 0x7F80) != 0x7F80)
            round_trip = round_trip && matmul_float_to_bf16(matmul_bf16_to_float((uint16_t)h)) == h;
    EXPECT(round_trip);
}

static void test_fp16_rounding(void)
{
    EXPECT(matmul_float_to_fp16(1.0f) == 0x3C00);
    EXPECT(matmul_float_to_fp16(-0.5f) == 0xB800);
    EXPECT(matmul_float_to_fp16(65504.0f) == 0x7BFF);
    EXPECT(matmul_float_to_fp16(70000.0f) == 0x7C00);
    EXPECT(matmul_float_to_fp16(0.1f) == 0x2E66);
    EXPECT(matmul_float_to_fp16(0x1p-24f) == 0x0001);            // the smallest subnormal
    EXPECT(matmul_float_to_fp16(0x1p-25f) == 0x0000);            // a tie: to even (zero)
    EXPECT(matmul_float_to_fp16(3 * 0x1p-25f) == 0x0002);        // a tie: to even (up)
    EXPECT(matmul_float_to_fp16(1.0f + 0x1p-11f) == 0x3C00);     // a tie: to even
    EXPECT(matmul_float_to_fp16(0x1p-14f - 0x1p-26f) == 0x0400); // rounds up into the normals
    bool round_trip = true;
    for (uint32_t h = 0; h < 0x10000; h++)
        if ((h & 0x7C00) != 0x7C00)
            round_trip = round_trip && matmul_float_to_fp16(matmul_fp16_to_float((uint16_t)h)) == h;
    EXPECT(round_trip);
}

static void fill(float *x, size_t n, uint64_t stream)
{
    cl_fill_uniform_f32(x, n, cl_rng_key(7, stream), -1.0f, 1.0f);
}

// The plain triple loop in double, for comparison.
static void reference(int m, int n, int k, double alpha, const float *a, const float *b,
                      double beta, const float *c0, double *c)
{
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            double s = 0.0;
            for (int l = 0; l < k; l++)
                s += (double)a[i * k + l] * b[l * n + j];
            c[i * n + j] = alpha * s + (beta != 0.0 ? beta * c0[i * n + j] : 0.0);
        }
}

static void test_gold_small(void)
{
    // [1 2 3; 4 5 6] [1 0; 0 1; 1 1] = [4 5; 10 11]; alpha 2, beta -1 with C0 = 1.
    const float a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {1, 0, 0, 1, 1, 1}, c0[4] = {1, 1, 1, 1};
    double c[4], tol[4];
    matmul_gold(2, 2, 3, 2.0, a, b, -1.0, c0, matmul_roundoff_of(MATMUL_FP32, false), c, tol);
    EXPECT(c[0] == 7 && c[1] == 9 && c[2] == 19 && c[3] == 21);
    EXPECT(tol[0] > 0 && tol[0] < 1e-4);
    // K = 1: an outer product; C0 is not read when beta is 0 (NULL here).
    const float col[3] = {1, -2, 3}, row[2] = {0.5f, 4};
    double outer[6], outer_tol[6];
    matmul_gold(3, 2, 1, 1.0, col, row, 0.0, NULL, matmul_roundoff_of(MATMUL_FP32, false), outer,
                outer_tol);
    EXPECT(outer[0] == 0.5 && outer[1] == 4 && outer[2] == -1 && outer[5] == 12);
}

static void test_gold_odd_shapes(void)
{
    static const int shapes[][3] = {{37, 29, 41}, {1, 300, 7}, {300, 1, 33}, {5, 600, 1}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        const int m = shapes[s][0], n = shapes[s][1], k = shapes[s][2];
        float *a = malloc(sizeof(float) * m * k), *b = malloc(sizeof(float) * k * n);
        float *c0 = malloc(sizeof(float) * m * n);
        double *c = malloc(sizeof(double) * m * n), *tol = malloc(sizeof(double) * m * n);
        double *want = malloc(sizeof(double) * m * n);
        fill(a, (size_t)m * k, 0), fill(b, (size_t)k * n, 1), fill(c0, (size_t)m * n, 2);
        matmul_gold(m, n, k, -0.5, a, b, 2.0, c0, matmul_roundoff_of(MATMUL_FP32, false), c, tol);
        reference(m, n, k, -0.5, a, b, 2.0, c0, want);
        double worst = 0.0;
        for (int i = 0; i < m * n; i++)
            worst = fmax(worst, fabs(c[i] - want[i]));
        EXPECT(worst < 1e-12);
        free(a), free(b), free(c0), free(c), free(tol), free(want);
    }
}

// What the multiplier sees of a float input: itself, tf32's 19 bits truncated (raw floats
// handed to the tensor cores) or rounded to nearest (cvt.rna, as v7 and cuBLAS), or bf16's
// 16 bits rounded (an input in the wrong precision).
typedef enum { INPUT_AS_IS, TF32_TRUNCATED, TF32_ROUNDED, BF16_ROUNDED } input_cut;

static float cut(float x, input_cut how)
{
    uint32_t u;
    memcpy(&u, &x, 4);
    if (how == INPUT_AS_IS)
        return x;
    if (how == BF16_ROUNDED)
        return matmul_bf16_to_float(matmul_float_to_bf16(x));
    u = (how == TF32_ROUNDED ? u + 0x1000u : u) & 0xFFFFE000u; // ties away, as cvt.rna
    memcpy(&x, &u, 4);
    return x;
}

// A result computed as the GPU's units do. CUDA cores: float sums, k in order (the longest
// chain of roundings any kernel has), rounded to nearest. Tensor cores (tensor_like): the
// products of 16 k at a time summed exactly and added to the fp32 sum truncated (what
// Fasi, Higham, Mikaitis and Pranesh measured of NVIDIA's tensor cores: exact block sums,
// round-toward-zero accumulation). Each input cut first as `how` says.
static void float_result(int m, int n, int k, const float *a, const float *b, bool tensor_like,
                         input_cut how, float *c)
{
    const int saved = fegetround();
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            volatile float s = 0.0f;
            double block = 0.0;
            for (int l = 0; l < k; l++) {
                const float x = cut(a[i * k + l], how), y = cut(b[l * n + j], how);
                if (!tensor_like) {
                    s = s + x * y;
                    continue;
                }
                block += (double)x * y; // exact: 16 products of 24-bit values fit in 53 bits
                if (l % 16 == 15 || l == k - 1) {
                    fesetround(FE_TOWARDZERO);
                    s = (float)((double)s + block);
                    fesetround(saved);
                    block = 0.0;
                }
            }
            c[i * n + j] = s;
        }
}

// The tolerances pass real fp32 arithmetic (the CUDA cores' and the tensor cores', tf32
// inputs rounded or truncated, each against its own allowance) and fail a result off by a
// small amount: one typical product |a b| = 1/4 (1/80 of a typical element, ~21 here).
static void test_tolerances_fit_fp32_sums(void)
{
    enum { M = 24, N = 24, K = 4096 };
    float *a = malloc(sizeof(float) * M * K), *b = malloc(sizeof(float) * K * N);
    float *c = malloc(sizeof(float) * M * N);
    double *gold = malloc(sizeof(double) * M * N), *tol = malloc(sizeof(double) * M * N);
    fill(a, (size_t)M * K, 3), fill(b, (size_t)K * N, 4);
    static const struct {
        bool tensor_like;
        input_cut how;
    } cases[] = {{false, INPUT_AS_IS},
                 {true, INPUT_AS_IS},
                 {true, TF32_TRUNCATED},
                 {true, TF32_ROUNDED},
                 {false, TF32_ROUNDED}};
    for (size_t t = 0; t < sizeof cases / sizeof cases[0]; t++) {
        const input_cut how = cases[t].how;
        const matmul_precision p = how == INPUT_AS_IS ? MATMUL_FP32 : MATMUL_TF32;
        matmul_gold(M, N, K, 1.0, a, b, 0.0, NULL, matmul_roundoff_of(p, how == TF32_TRUNCATED),
                    gold, tol);
        float_result(M, N, K, a, b, cases[t].tensor_like, how, c);
        double worst = 0.0, worst_drop = INFINITY;
        for (int i = 0; i < M * N; i++) {
            worst = fmax(worst, fabs(c[i] - gold[i]) / tol[i]);
            worst_drop = fmin(worst_drop, fabs(c[i] + 0.25f - gold[i]) / tol[i]);
        }
        EXPECT(worst < 0.5);      // with room to spare
        EXPECT(worst_drop > 1.0); // every element off by one product fails
    }
    free(a), free(b), free(c), free(gold), free(tol);
}

// The tf32 allowance is tf32's: inputs rounded to bf16 instead (3 fraction bits fewer, ~6
// times tf32's rounding error) fail it, whether it allows for truncation or not.
static void test_tf32_allowance_is_tight(void)
{
    enum { M = 64, N = 64, K = 1024 };
    float *a = malloc(sizeof(float) * M * K), *b = malloc(sizeof(float) * K * N);
    float *c = malloc(sizeof(float) * M * N);
    double *gold = malloc(sizeof(double) * M * N), *tol = malloc(sizeof(double) * M * N);
    fill(a, (size_t)M * K, 10), fill(b, (size_t)K * N, 11);
    for (int truncates = 0; truncates < 2; truncates++) {
        matmul_gold(M, N, K, 1.0, a, b, 0.0, NULL, matmul_roundoff_of(MATMUL_TF32, truncates), gold,
                    tol);
        float_result(M, N, K, a, b, false, BF16_ROUNDED, c);
        int failed = 0;
        for (int i = 0; i < M * N; i++)
            failed += !(fabs(c[i] - gold[i]) <= tol[i]);
        EXPECT(failed > 0); // the run fails: here ~2.5% of C (~0.8% allowing truncation)
    }
    free(a), free(b), free(c), free(gold), free(tol);
}

// At k = 65536 the tensor cores' truncations add up (each block's sum rounded toward zero,
// always toward zero): bf16 inputs summed as they sum them pass well within their
// allowance with the drift's bound in it (0.14 of it here), where against the spread
// alone they take 0.75 of it (a larger C's largest elements pass it: v8 at 256 x 256 x
// 65536 on the H200 took 1.02 and failed); an element off by one typical product still
// fails (by 1.3x); Freivalds' check passes them.
static void test_tensor_truncation_at_long_k(void)
{
    enum { M = 8, N = 16, K = 65536 };
    float *a = malloc(sizeof(float) * M * K), *b = malloc(sizeof(float) * K * N);
    float *c = malloc(sizeof(float) * M * N);
    double *gold = malloc(sizeof(double) * M * N), *tol = malloc(sizeof(double) * M * N);
    double *tol_spread = malloc(sizeof(double) * M * N);
    fill(a, (size_t)M * K, 12), fill(b, (size_t)K * N, 13);
    for (size_t i = 0; i < (size_t)M * K; i++)
        a[i] = cut(a[i], BF16_ROUNDED);
    for (size_t i = 0; i < (size_t)K * N; i++)
        b[i] = cut(b[i], BF16_ROUNDED);
    const matmul_roundoff r = matmul_roundoff_of(MATMUL_BF16, false);
    matmul_roundoff spread_only = r;
    spread_only.accumulate_bias = 0.0;
    matmul_gold(M, N, K, 1.0, a, b, 0.0, NULL, r, gold, tol);
    matmul_gold(M, N, K, 1.0, a, b, 0.0, NULL, spread_only, gold, tol_spread);
    float_result(M, N, K, a, b, true, INPUT_AS_IS, c);
    double worst = 0.0, worst_spread = 0.0, worst_drop = INFINITY;
    for (int i = 0; i < M * N; i++) {
        worst = fmax(worst, fabs(c[i] - gold[i]) / tol[i]);
        worst_spread = fmax(worst_spread, fabs(c[i] - gold[i]) / tol_spread[i]);
        worst_drop = fmin(worst_drop, fabs(c[i] + 0.25f - gold[i]) / tol[i]);
    }
    EXPECT(worst < 0.5);
    EXPECT(worst_spread > 0.5); // 0.75 here; 1.02-1.06 on the H200 (v8, 256^2 and 512^2 C)
    EXPECT(worst_drop > 1.0);
    long row;
    double err, allowed;
    EXPECT(matmul_freivalds(M, N, K, 1.0, a, b, 0.0, NULL, c, r, 4, 5, &row, &err, &allowed) < 0.5);
    free(a), free(b), free(c), free(gold), free(tol), free(tol_spread);
}

// Freivalds' check on a 4096 x 4096 C: the fp32 rounding of the exact result passes, one
// element off by one fails and names its row, a NaN fails; with beta, C0 counts.
static void test_freivalds_catches_one_element(void)
{
    enum { M = 4096, N = 4096, K = 32 };
    float *a = malloc(sizeof(float) * M * K), *b = malloc(sizeof(float) * K * N);
    float *c0 = malloc(sizeof(float) * M * N), *c = malloc(sizeof(float) * M * N);
    double *gold = malloc(sizeof(double) * M * N), *tol = malloc(sizeof(double) * M * N);
    fill(a, (size_t)M * K, 5), fill(b, (size_t)K * N, 6), fill(c0, (size_t)M * N, 7);
    const matmul_roundoff r = matmul_roundoff_of(MATMUL_FP32, false);
    matmul_gold(M, N, K, 1.5, a, b, -0.75, c0, r, gold, tol);
    for (size_t i = 0; i < (size_t)M * N; i++)
        c[i] = (float)gold[i];
    long row;
    double err, allowed;
    double worst =
        matmul_freivalds(M, N, K, 1.5, a, b, -0.75, c0, c, r, 4, 1, &row, &err, &allowed);
    EXPECT(worst < 0.2);
    const size_t bad = (size_t)2718 * N + 1828;
    c[bad] += 1.0f;
    worst = matmul_freivalds(M, N, K, 1.5, a, b, -0.75, c0, c, r, 4, 1, &row, &err, &allowed);
    EXPECT(worst > 1.0 && row == 2718 && fabs(err - 1.0) < 0.01);
    c[bad] -= 1.0f;
    c[bad] += 1e-2f; // a hundredth: still caught at K = 32 (each element errs ~2e-6)
    EXPECT(matmul_freivalds(M, N, K, 1.5, a, b, -0.75, c0, c, r, 4, 1, &row, &err, &allowed) > 1.0);
    c[bad] = NAN;
    EXPECT(
        isinf(matmul_freivalds(M, N, K, 1.5, a, b, -0.75, c0, c, r, 4, 1, &row, &err, &allowed)));
    // Without the beta term the same C is wrong everywhere.
    c[bad] = (float)gold[bad];
    EXPECT(matmul_freivalds(M, N, K, 1.5, a, b, 0.0, NULL, c, r, 4, 1, &row, &err, &allowed) > 1.0);
    free(a), free(b), free(c0), free(c), free(gold), free(tol);
}

// At K = 4096 fp32 results (the CUDA cores' and the tensor cores' sums) pass Freivalds'
// check, and an element off by one still fails it.
static void test_freivalds_long_sums(void)
{
    enum { M = 64, N = 512, K = 4096 };
    float *a = malloc(sizeof(float) * M * K), *b = malloc(sizeof(float) * K * N);
    float *c = malloc(sizeof(float) * M * N);
    fill(a, (size_t)M * K, 8), fill(b, (size_t)K * N, 9);
    const matmul_roundoff r = matmul_roundoff_of(MATMUL_FP32, false);
    long row;
    double err, allowed;
    for (int tensor_like = 0; tensor_like < 2; tensor_like++) {
        float_result(M, N, K, a, b, tensor_like, INPUT_AS_IS, c);
        EXPECT(matmul_freivalds(M, N, K, 1.0, a, b, 0.0, NULL, c, r, 4, 3, &row, &err, &allowed) <
               0.5);
        c[17 * N + 300] += 1.0f;
        EXPECT(matmul_freivalds(M, N, K, 1.0, a, b, 0.0, NULL, c, r, 4, 3, &row, &err, &allowed) >
                   1.0 &&
               row == 17);
    }
    // tf32 on the tensor cores, truncated, passes against its own allowance (its bias taken
    // from C's rows); an element off by one no longer stands out of a row's 512 tf32 errors
    // (each ~0.01): what the element-by-element reference on the GPU is for.
    const matmul_roundoff truncated = matmul_roundoff_of(MATMUL_TF32, true);
    float_result(M, N, K, a, b, true, TF32_TRUNCATED, c);
    EXPECT(matmul_freivalds(M, N, K, 1.0, a, b, 0.0, NULL, c, truncated, 4, 3, &row, &err,
                            &allowed) < 0.5);
    free(a), free(b), free(c);
}

// Split-K alone: the pieces of k matmul_plan_tiles takes for `tiles` tiles of one shape
// that fills an SM, with v6's fixup cost.
static int split_k_count(long long tiles, int slabs, int sms)
{
    const matmul_tile_shape one = {1, 1, 1, SPLIT_K_FIXUP_SLABS, 1.0, 1.0};
    return matmul_plan_tiles(&one, 1, tiles, 1, slabs, sms).splits;
}

// Split-K's planner cuts k only where C's tiles leave SMs idle, into pieces that cover
// k's slabs exactly once, none empty.
static void test_split_k_plan(void)
{
    EXPECT(split_k_count(512, 64, 132) == 1);  // 4096^2 in 128 x 256 tiles: 3.9 waves
    EXPECT(split_k_count(128, 32, 132) == 1);  // 2048^2: one wave already
    EXPECT(split_k_count(32, 128, 132) == 4);  // 64 x 8192 x 8192, bf16: 128 blocks
    EXPECT(split_k_count(32, 16, 132) == 4);   // 1024^3
    EXPECT(split_k_count(1, 1, 132) == 1);     // one slab: nothing to cut
    EXPECT(split_k_count(1, 1000, 132) == 63); // one tile, long k: 16 slabs a piece, 63 cover k
    for (long long tiles = 1; tiles <= 300; tiles += 7)
        for (int slabs = 1; slabs <= 70; slabs++) {
            const int splits = split_k_count(tiles, slabs, 132);
            bool ok = splits >= 1 && splits <= SPLIT_K_MAX && splits <= slabs;
            int next = 0;
            for (int s = 0; s < splits; s++) {
                const slab_range r = split_k_slabs(slabs, s, splits);
                ok = ok && r.first == next && r.end > r.first;
                next = r.end;
            }
            EXPECT(ok && next == slabs);
        }
}

// The last wave's tiles cut alone (v9's persistent grid): the tiles of whole waves run
// whole, the rest into the most pieces one wave holds, none empty; nothing to cut where the
// tiles fill whole waves, or are fewer than one.
static void test_tail_plan(void)
{
    const matmul_tile_shape one = {128, 256, 1, MATMUL_V9_FIXUP_SLABS, 1.0, 1.0};
    matmul_tail_plan t = matmul_plan_tail(&one, 288, 94, 132); // 3000^3 tf32, 128 x 256
    EXPECT(t.whole == 264 && t.splits == 5);
    EXPECT(t.time == 2 * 94 + (19 + MATMUL_V9_FIXUP_SLABS));
    EXPECT(matmul_plan_tail(&one, 288, 47, 132).splits == 2);    // pieces of 16 slabs at least
    EXPECT(matmul_plan_tail(&one, 264, 94, 132).splits == 1);    // two whole waves
    EXPECT(matmul_plan_tail(&one, 100, 94, 132).splits == 1);    // under one wave
    EXPECT(matmul_plan_tail(&one, 265, 2048, 132).splits == 64); // one tile left: SPLIT_K_MAX
    EXPECT(matmul_plan_tail(&one, 200, 31, 132).splits == 1);    // no two pieces of 16 slabs
    for (long long tiles = 132; tiles <= 700; tiles += 13)
        for (int slabs = 1; slabs <= 200; slabs += 7) {
            t = matmul_plan_tail(&one, tiles, slabs, 132);
            const long long rest = tiles - t.whole;
            EXPECT(t.splits == 1 ? t.whole == tiles
                                 : t.whole % 132 == 0 && rest * t.splits <= 132 &&
                                       slabs / t.splits >= MATMUL_TAIL_PIECE_SLABS &&
                                       split_k_pieces(slabs, t.splits) == t.splits);
        }
}

// The one-column path's pieces of k: whole waves of the blocks the GPU holds.
static void test_wave_splits(void)
{
    EXPECT(matmul_wave_splits(256, 32, 16, 528) == 2);  // 8192 x 1 x 8192 bf16: one wave of 16
    EXPECT(matmul_wave_splits(512, 64, 32, 528) == 1);  // 16384^2: one wave already
    EXPECT(matmul_wave_splits(10, 20, 9, 528) == 7);    // 300 x 1 x 5000: pieces of 3 slabs
    EXPECT(matmul_wave_splits(938, 24, 5, 528) == 1);   // 30000 x 1 x 3000 fp32: 2 waves
    EXPECT(matmul_wave_splits(31, 1, 1, 528) == 1);     // one slab
    EXPECT(matmul_wave_splits(1000, 100, 0, 528) == 1); // no piece allowed: whole
    for (long long placed = 1; placed < 3000; placed += 97)
        for (int slabs = 1; slabs < 90; slabs += 11) {
            const int s = matmul_wave_splits(placed, slabs, 64, 528);
            EXPECT(s >= 1 && split_k_pieces(slabs, s) == s);
        }
}

// v6's tile shapes: a large C keeps the largest tile (the score table's rows), a C of few
// tiles takes a smaller one that fills the SMs, and every plan is a shape and a split the
// kernels can run.
static int v6_tile_m(long long m, long long n, long long k, int *tile_n, int *splits)
{
    const matmul_tile_plan plan =
        matmul_plan_tiles(matmul_v6_shapes, MATMUL_V6_SHAPE_COUNT, m, n, (int)((k + 15) / 16), 132);
    *tile_n = matmul_v6_shapes[plan.shape].tile_n;
    *splits = plan.splits;
    return matmul_v6_shapes[plan.shape].tile_m;
}

static void test_v6_tile_plan(void)
{
    int tile_n, splits;
    EXPECT(v6_tile_m(4096, 4096, 4096, &tile_n, &splits) == 256 && tile_n == 128 && splits == 1);
    EXPECT(v6_tile_m(8192, 8192, 8192, &tile_n, &splits) == 256 && tile_n == 128 && splits == 1);
    // 128 rows: a 256-row tile would be half padding; 64 tiles of 128 x 128, k in 4 pieces
    EXPECT(v6_tile_m(128, 8192, 8192, &tile_n, &splits) == 128 && tile_n == 128 && splits == 4);
    // 64 columns: 256 x 64 tiles, not half-empty 256 x 128 ones
    EXPECT(v6_tile_m(8192, 64, 8192, &tile_n, &splits) == 256 && tile_n == 64);
    // one 128 x 128 C, long k: two 64 x 128 tiles in 64 pieces each, 128 blocks alone an SM
    EXPECT(v6_tile_m(128, 128, 65536, &tile_n, &splits) == 64 && tile_n == 128 && splits == 64);
    bool ok = true;
    for (long long m = 1; m <= 20000; m = m * 3 + 1)
        for (long long n = 1; n <= 20000; n = n * 5 + 3)
            for (long long k = 1; k <= 70000; k = k * 7 + 2) {
                const int slabs = (int)((k + 15) / 16);
                const matmul_tile_plan p =
                    matmul_plan_tiles(matmul_v6_shapes, MATMUL_V6_SHAPE_COUNT, m, n, slabs, 132);
                ok = ok && p.shape >= 0 && p.shape < MATMUL_V6_SHAPE_COUNT && p.splits >= 1 &&
                     p.splits <= SPLIT_K_MAX && split_k_pieces(slabs, p.splits) == p.splits;
            }
    EXPECT(ok);
}

// v9's planner (bf16: slabs of 64): a large C keeps 128 x 256 unsplit; a C of few tiles
// takes a smaller shape that fills the SMs.
static const matmul_tile_shape *v9_tile(long long m, long long n, long long k, int *splits)
{
    const matmul_tile_plan plan =
        matmul_plan_tiles(matmul_v9_shapes, MATMUL_V9_SHAPE_COUNT, m, n, (int)((k + 63) / 64), 132);
    *splits = plan.splits;
    return &matmul_v9_shapes[plan.shape];
}

static void test_v9_tile_plan(void)
{
    int splits;
    const matmul_tile_shape *s = v9_tile(8192, 8192, 8192, &splits);
    EXPECT(s->tile_m == 128 && s->tile_n == 256 && splits == 1);
    s = v9_tile(4096, 4096, 4096, &splits);
    EXPECT(s->tile_m == 128 && s->tile_n == 256 && splits == 1);
    // 64 columns: a 256-column tile is three quarters padding
    s = v9_tile(8192, 64, 8192, &splits);
    EXPECT(s->tile_n <= 128);
    // 64 rows: 64-row tiles
    s = v9_tile(64, 8192, 8192, &splits);
    EXPECT(s->tile_m == 64);
    // 1000^3: 32 tiles of 128 x 256 on 132 SMs; a smaller shape fills them
    s = v9_tile(1000, 1000, 1000, &splits);
    EXPECT(s->tile_m * s->tile_n < 128 * 256);
    bool ok = true;
    for (long long m = 1; m <= 20000; m = m * 3 + 1)
        for (long long n = 1; n <= 20000; n = n * 5 + 3)
            for (long long k = 1; k <= 70000; k = k * 7 + 2) {
                const matmul_tile_shape *t = v9_tile(m, n, k, &splits);
                ok = ok && t >= matmul_v9_shapes && t < matmul_v9_shapes + MATMUL_V9_SHAPE_COUNT &&
                     splits >= 1 && splits <= SPLIT_K_MAX &&
                     split_k_pieces((int)((k + 63) / 64), splits) == splits;
            }
    EXPECT(ok);
    // tf32 plans C^T (rows n, columns m) with its own slab times: 4096 x 11008 x 4096 keeps
    // 128 x 256 (measured 0.97 ms against 128 x 128's 1.19), which bf16's times, whose
    // 128 x 128 slabs are relatively shorter, would trade for 128 x 128.
    const matmul_tile_plan tf32 = matmul_plan_tiles(matmul_v9_tf32_shapes, MATMUL_V9_SHAPE_COUNT,
                                                    11008, 4096, 4096 / 32, 132);
    EXPECT(matmul_v9_tf32_shapes[tf32.shape].tile_m == 128 &&
           matmul_v9_tf32_shapes[tf32.shape].tile_n == 256 && tf32.splits == 1);
    const matmul_tile_plan bf16 =
        matmul_plan_tiles(matmul_v9_shapes, MATMUL_V9_SHAPE_COUNT, 11008, 4096, 4096 / 32, 132);
    EXPECT(matmul_v9_shapes[bf16.shape].tile_n == 128);
}

// Which path a shape takes (matmul_thin_rule): the shapes its rules were measured at, each
// on the side that won (matmul.h says by how much).
static void test_thin_rule(void)
{
    static const struct {
        matmul_precision precision;
        long long m, n, k;
        matmul_thin_side side;
    } cases[] = {
        {MATMUL_FP32, 32, 4096, 4096, MATMUL_THIN_ROWS},
        {MATMUL_FP32, 64, 4096, 4096, MATMUL_THIN_NONE},
        {MATMUL_FP32, 4096, 16, 4096, MATMUL_THIN_COLS},
        {MATMUL_FP32, 9999, 12, 300, MATMUL_THIN_COLS}, // columns at any k
        {MATMUL_FP32, 99999, 8, 500, MATMUL_THIN_COLS},
        {MATMUL_BF16, 8, 1319, 41, MATMUL_THIN_ROWS},
        {MATMUL_BF16, 9, 1968, 430, MATMUL_THIN_NONE},
        {MATMUL_BF16, 16, 4096, 4096, MATMUL_THIN_NONE},
        {MATMUL_BF16, 8192, 1, 8192, MATMUL_THIN_COLS},
        {MATMUL_FP16, 5566, 1, 1166, MATMUL_THIN_COLS},
        {MATMUL_FP16, 2668, 15, 2289, MATMUL_THIN_COLS}, // 16-bit columns: the tensor cores
        {MATMUL_BF16, 300, 14, 300, MATMUL_THIN_COLS},
        {MATMUL_BF16, 8192, 12, 1024, MATMUL_THIN_COLS},
        {MATMUL_BF16, 100000, 12, 500, MATMUL_THIN_COLS}, // to 12 columns at any size
        {MATMUL_BF16, 8192, 16, 8192, MATMUL_THIN_NONE},  // past 2^25, 13 .. 16: tiles
        {MATMUL_FP16, 20000, 13, 3000, MATMUL_THIN_NONE},
        {MATMUL_TF32, 16, 8192, 8192, MATMUL_THIN_NONE},
        {MATMUL_TF32, 1, 4096, 4096, MATMUL_THIN_NONE},
        {MATMUL_TF32, 5, 7659, 2319, MATMUL_THIN_ROWS},
        {MATMUL_TF32, 16384, 1, 16384, MATMUL_THIN_NONE},
        {MATMUL_TF32, 5566, 1, 1166, MATMUL_THIN_COLS},
        {MATMUL_TF32, 8192, 1, 8192, MATMUL_THIN_COLS},  // one column: A of 2^26
        {MATMUL_TF32, 50000, 1, 7000, MATMUL_THIN_NONE}, // past 2^27
        {MATMUL_FP32, 2500, 1, 333, MATMUL_THIN_COLS},   // one column at any k
        {MATMUL_FP32, 2500, 2, 333, MATMUL_THIN_COLS},
        {MATMUL_TF32, 2668, 15, 2289, MATMUL_THIN_COLS}, // tf32's 5 .. 16: the tensor cores
        {MATMUL_TF32, 99999, 16, 3001, MATMUL_THIN_COLS},
        {MATMUL_TF32, 16384, 8, 16384, MATMUL_THIN_COLS},
        {MATMUL_TF32, 4096, 16, 4096, MATMUL_THIN_COLS},
        {MATMUL_TF32, 8192, 16, 8192, MATMUL_THIN_NONE},   // 9 .. 16 past 2^25, rows on 16 bytes
        {MATMUL_TF32, 16384, 16, 16383, MATMUL_THIN_COLS}, // and not
        {MATMUL_TF32, 16384, 4, 16384, MATMUL_THIN_NONE},  // to 4: 2^23 elements of A
        {MATMUL_TF32, 2048, 4, 2048, MATMUL_THIN_COLS},
        // both sides thin: the longer operand streamed (B's 3 columns are shorter than
        // A's 5 rows, so the columns path reads A)
        {MATMUL_TF32, 5, 3, 100, MATMUL_THIN_COLS},
        {MATMUL_BF16, 3, 5, 100, MATMUL_THIN_ROWS},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const matmul_thin_side side =
            matmul_thin_rule(cases[i].precision, cases[i].m, cases[i].n, cases[i].k);
        if (side != cases[i].side)
            fprintf(stderr, "  %s %lldx%lldx%lld: side %d, wanted %d\n",
                    matmul_precision_names[cases[i].precision], cases[i].m, cases[i].n, cases[i].k,
                    (int)side, (int)cases[i].side);
        EXPECT(side == cases[i].side);
    }
}

// v9 (sm_90a) runs on compute capability 9.0 alone, and only in a build that compiled it;
// each refusal says which of the two it is.
static void test_hopper_refusal(void)
{
    EXPECT(matmul_hopper_refusal(9, 0, true) == NULL);
    const char *not_built = matmul_hopper_refusal(9, 0, false);
    EXPECT(not_built && strstr(not_built, "ARCH=sm_90"));
    const char *ampere = matmul_hopper_refusal(8, 0, true);
    EXPECT(ampere && strstr(ampere, "compute capability 9.0"));
    EXPECT(matmul_hopper_refusal(10, 0, true) != NULL); // sm_90a code does not run on Blackwell
    EXPECT(matmul_hopper_refusal(8, 6, false) != NULL);
}

int main(void)
{
    RUN_TEST(test_bf16_rounding);
    RUN_TEST(test_fp16_rounding);
    RUN_TEST(test_gold_small);
    RUN_TEST(test_gold_odd_shapes);
    RUN_TEST(test_tolerances_fit_fp32_sums);
    RUN_TEST(test_tf32_allowance_is_tight);
    RUN_TEST(test_tensor_truncation_at_long_k);
    RUN_TEST(test_freivalds_catches_one_element);
    RUN_TEST(test_freivalds_long_sums);
    RUN_TEST(test_split_k_plan);
    RUN_TEST(test_tail_plan);
    RUN_TEST(test_wave_splits);
    RUN_TEST(test_v6_tile_plan);
    RUN_TEST(test_v9_tile_plan);
    RUN_TEST(test_thin_rule);
    RUN_TEST(test_hopper_refusal);
    return UNIT_RESULT();
}
