// Unit tests of stencil1d's CPU gold and its float tolerance.
#include <math.h>
#include <stdlib.h>

#include "stencil1d.h"
#include "unit.h"

// The notes' program: N = 1024 ones with RADIUS 3 give 7 everywhere.
static void test_gold_notes_program(void)
{
    enum { N = 1024, R = 3 };
    int32_t in[N + 2 * R], out[N];
    for (int i = 0; i < N + 2 * R; i++)
        in[i] = 1;
    stencil_gold_int(in, N, R, out);
    int sevens = 0;
    for (int i = 0; i < N; i++)
        sevens += out[i] == 7;
    EXPECT(sevens == N);
}

// The sliding gold against the plain double loop, across chunk boundaries (4096) and for
// radius 1 and 64; ints wrap as two's complement.
static void test_gold_against_direct(void)
{
    const int radii[] = {1, 5, 64};
    const size_t n = 3 * 4096 + 17;
    for (int r = 0; r < 3; r++) {
        const int radius = radii[r];
        const size_t count = n + 2 * (size_t)radius;
        int32_t *in = malloc(count * sizeof *in), *out = malloc(n * sizeof *out);
        float *fin = malloc(count * sizeof *fin);
        double *fout = malloc(n * sizeof *fout);
        for (size_t i = 0; i < count; i++) {
            in[i] = (int32_t)((i * 2654435761u) % 2000001u) - 1000000;
            fin[i] = (float)in[i] * 1e-6f;
        }
        in[7] = INT32_MAX; // wraps in a sum: the GPU's int adds wrap too
        stencil_gold_int(in, n, radius, out);
        stencil_gold_float(fin, n, radius, fout);
        size_t bad = 0;
        for (size_t i = 0; i < n; i++) {
            uint32_t want = 0;
            double fwant = 0.0;
            for (int j = 0; j <= 2 * radius; j++) {
                want += (uint32_t)in[i + j];
                fwant += fin[i + j];
            }
            bad += out[i] != (int32_t)want || fabs(fout[i] - fwant) > 1e-12;
        }
        EXPECT(bad == 0);
        free(in), free(out), free(fin), free(fout);
    }
}

// One output at n = 1 and the widest window: 129 inputs.
static void test_gold_single_output(void)
{
    int32_t in[129], out[1];
    for (int i = 0; i < 129; i++)
        in[i] = i;
    stencil_gold_int(in, 1, 64, out);
    EXPECT(out[0] == 128 * 129 / 2);
}

// The tolerance: v4's prefixes (24 roundings over 256 inputs) dominate at small radii, v3's
// sliding sum at large ones; it scales with the largest input and stays far below the
// smallest change a missing input would make at the test's values.
static void test_float_tolerance(void)
{
    EXPECT(stencil_float_tolerance(3, 1.0) == 24.0 * 256.0 * 0x1.0p-24);
    EXPECT(stencil_float_tolerance(64, 1.0) == (128.0 + 28.0) * 130.0 * 0x1.0p-24);
    EXPECT(stencil_float_tolerance(64, 4.0) == 4.0 * stencil_float_tolerance(64, 1.0));
    EXPECT(stencil_float_tolerance(64, 1.0) < 2e-3);
}

int main(void)
{
    RUN_TEST(test_gold_notes_program);
    RUN_TEST(test_gold_against_direct);
    RUN_TEST(test_gold_single_output);
    RUN_TEST(test_float_tolerance);
    return UNIT_RESULT();
}
