// Unit tests of fft's CPU side: the gold transform against the plain O(n^2) DFT (every
// path: radix 2 and 4, odd radices up to 64, Bluestein), forward and inverse, batches;
// smooth lengths; v7's stages and the passes' split (the planner's arithmetic); the
// practical's padding and convolution; the error allowed.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fft.h"
#include "rng.h"
#include "unit.h"

// The largest |gold - direct| over ||x||_2, for `batch` random transforms of n.
static double gold_vs_direct(int n, size_t batch, bool inverse)
{
    float *x = malloc(2 * sizeof(float) * n * batch);
    double *gold = malloc(2 * sizeof(double) * n * batch), *direct = malloc(2 * sizeof(double) * n);
    cl_fill_uniform_f32(x, 2 * (size_t)n * batch, cl_rng_key(3, (uint64_t)n), -1.0f, 1.0f);
    fft_gold(n, batch, inverse, x, gold);
    double worst = 0.0;
    for (size_t b = 0; b < batch; b++) {
        const float *xb = x + 2 * b * n;
        fft_dft_direct(n, inverse, xb, direct);
        double norm = 0.0;
        for (int i = 0; i < 2 * n; i++)
            norm += (double)xb[i] * xb[i];
        for (int k = 0; k < n; k++) {
            const double dre = gold[2 * (b * n + k)] - direct[2 * k],
                         dim = gold[2 * (b * n + k) + 1] - direct[2 * k + 1];
            const double e = sqrt(dre * dre + dim * dim) / sqrt(norm);
            worst = e > worst ? e : worst;
        }
    }
    free(x);
    free(gold);
    free(direct);
    return worst;
}

static void test_gold_matches_the_definition(void)
{
    // 1 2 3 5 7 (single radices), 56 = 8 7 (the practical's), 97 (a prime: Bluestein),
    // 1000 = 2^3 5^3, 1009 (prime), 4095 = 3^2 5 7 13 (radix 13), 2^10 (radix 4s),
    // 2^11 (a radix 2), 131 = prime above 64 (Bluestein), 2 * 67 (Bluestein).
    const int sizes[] = {1, 2, 3, 5, 7, 56, 97, 1000, 1009, 4095, 1024, 2048, 131, 134};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        for (int inverse = 0; inverse <= 1; inverse++) {
            const double e = gold_vs_direct(sizes[i], sizes[i] < 200 ? 3 : 1, inverse);
            if (!(e < 1e-12))
                printf("  n = %d %s: gold off the DFT by %g ||x||\n", sizes[i],
                       inverse ? "inverse" : "forward", e);
            EXPECT(e < 1e-12);
        }
}

static void test_gold_known_values(void)
{
    // An impulse gives all ones; ones give n at 0; e^{2 pi i 3 j / n} gives n at bin 3.
    enum { N = 12 };
    float x[2 * N] = {0};
    double y[2 * N];
    x[0] = 1.0f;
    fft_gold(N, 1, false, x, y);
    bool ones = true;
    for (int k = 0; k < N; k++)
        ones = ones && fabs(y[2 * k] - 1.0) < 1e-15 && fabs(y[2 * k + 1]) < 1e-15;
    EXPECT(ones);
    for (int j = 0; j < N; j++) {
        x[2 * j] = (float)cos(2 * M_PI * 3 * j / N);
        x[2 * j + 1] = (float)sin(2 * M_PI * 3 * j / N);
    }
    fft_gold(N, 1, false, x, y);
    EXPECT(fabs(y[6] - N) < 1e-5 && fabs(y[7]) < 1e-5);
    EXPECT(fabs(y[0]) < 1e-5 && fabs(y[2]) < 1e-5);
}

static void test_round_trip(void)
{
    // forward then inverse = n x, for a long Bluestein length too (2^16 + 1 = 65537, prime).
    const int n = 65537;
    float *x = malloc(2 * sizeof(float) * n), *yf = malloc(2 * sizeof(float) * n);
    double *y = malloc(2 * sizeof(double) * n), *z = malloc(2 * sizeof(double) * n);
    cl_fill_uniform_f32(x, 2 * (size_t)n, cl_rng_key(5, 0), -1.0f, 1.0f);
    fft_gold(n, 1, false, x, y);
    for (int i = 0; i < 2 * n; i++)
        yf[i] = (float)(y[i] / n); // scaled so the float copy keeps the digits
    fft_gold(n, 1, true, yf, z);
    double worst = 0.0;
    for (int i = 0; i < 2 * n; i++)
        worst = fabs(z[i] - x[i]) > worst ? fabs(z[i] - x[i]) : worst;
    EXPECT(worst < 1e-6); // the float rounding of y / n, not the transforms
    free(x);
    free(yf);
    free(y);
    free(z);
}

static void test_smooth_lengths(void)
{
    EXPECT(fft_is_smooth(1) && fft_is_smooth(56) && fft_is_smooth(1000) && fft_is_smooth(1 << 27));
    EXPECT(!fft_is_smooth(97) && !fft_is_smooth(4095) && !fft_is_smooth((1 << 20) + 1));
    EXPECT(fft_next_smooth(97) == 98 && fft_next_smooth(56) == 56 && fft_next_smooth(1009) == 1024);
    EXPECT(fft_largest_prime_factor(4095) == 13 && fft_largest_prime_factor(1) == 1);
    EXPECT(fft_largest_prime_factor((1 << 20) + 1) == 61681); // 17 x 61681
    EXPECT(fft_bluestein_length(1009) == 2025);               // 3^4 5^2 >= 2017
    EXPECT(fft_bluestein_length(97) >= 193 && fft_is_smooth(fft_bluestein_length(97)));
}

// Whether r is one of v7's stage radices with large ones to max_prime: 2 .. 16, and either
// the primes 17 .. 31 and the coprime products 18 .. 30 up to max_prime or (huge: a length
// with a prime 37 .. 47, which takes no large radix beside it) the primes 37 .. 47.
static bool stage_radix(int r, int max_prime, bool huge)
{
    if (r >= 2 && r <= 16)
        return true;
    static const int large[] = {17, 18, 19, 20, 21, 22, 23, 24, 26, 28, 29, 30, 31};
    static const int huge_primes[] = {37, 41, 43, 47};
    if (huge) {
        for (int i = 0; i < 4; i++)
            if (r == huge_primes[i])
                return r <= max_prime;
        return false;
    }
    for (int i = 0; i < (int)(sizeof large / sizeof large[0]); i++)
        if (r == large[i])
            return r <= max_prime;
    return false;
}
static bool has_huge_prime(int m)
{
    return m % 37 == 0 || m % 41 == 0 || m % 43 == 0 || m % 47 == 0;
}

// The fewest stages of radices allowed to max_prime at every m to TOP, of those the least
// sum, and of those the largest first (greatest) radix, as the planner breaks ties: by
// dynamic programming over the divisors, into stages, sum and first (stages -1: none).
// huge: the radices of lengths with a prime 37 .. 47 (each table holds one set's best).
enum { TOP = 16384 };
static void least_stages(int max_prime, bool huge, int *stages, int *sum, int *first)
{
    stages[1] = sum[1] = first[1] = 0;
    for (int m = 2; m <= TOP; m++) {
        stages[m] = sum[m] = first[m] = -1;
        for (int r = 2; r <= 47 && r <= m; r++) {
            if (m % r != 0 || !stage_radix(r, max_prime, huge) || stages[m / r] < 0)
                continue;
            const int st = stages[m / r] + 1, su = sum[m / r] + r;
            const int fi = r > first[m / r] ? r : first[m / r];
            if (stages[m] < 0 || st < stages[m] || (st == stages[m] && su < sum[m]) ||
                (st == stages[m] && su == sum[m] && fi > first[m])) {
                stages[m] = st;
                sum[m] = su;
                first[m] = fi;
            }
        }
    }
}

// v7's stages at every length to 16384, against tables built apart (least_stages): the
// count and sum match, the radices multiply to m, are allowed and non-increasing; lengths
// with a larger prime factor get none. A length whose radices to 16 suffice takes large ones
// only where they save one of four stages or more and its first stage has at least
// FFT_STAGED_THREADS / 2 butterflies.
static void check_staged_radices(int max_prime)
{
    static int stages[TOP + 1], sum[TOP + 1], first[TOP + 1];
    static int small_stages[TOP + 1], small_sum[TOP + 1], small_first[TOP + 1];
    static int huge_stages[TOP + 1], huge_sum[TOP + 1], huge_first[TOP + 1];
    least_stages(max_prime, false, stages, sum, first);
    least_stages(16, false, small_stages, small_sum, small_first);
    least_stages(max_prime, true, huge_stages, huge_sum, huge_first);
    for (int m = 2; m <= TOP; m++)
        if (has_huge_prime(m)) {
            stages[m] = huge_stages[m];
            sum[m] = huge_sum[m];
            first[m] = huge_first[m];
        }
    for (int m = 2; m <= TOP; m++)
        if (small_stages[m] > 0 && (small_stages[m] < 4 || stages[m] == small_stages[m] ||
                                    m / first[m] < FFT_STAGED_THREADS / 2)) {
            stages[m] = small_stages[m];
            sum[m] = small_sum[m];
        }
    int wrong = 0, first_wrong = 0;
    for (int m = 1; m <= TOP; m++) {
        unsigned char radix[FFT_STAGED_MAX_STAGES];
        const int got = fft_staged_radices(m, max_prime, radix);
        bool ok = m == 1 || stages[m] < 0 ? got == 0 : got == stages[m];
        long product = 1;
        int total = 0;
        for (int s = 0; s < got && ok; s++) {
            ok = stage_radix(radix[s], max_prime, has_huge_prime(m)) &&
                 (s == 0 || radix[s] <= radix[s - 1]);
            product *= radix[s];
            total += radix[s];
        }
        if (ok && got > 0)
            ok = product == m && total == sum[m];
        if (!ok && wrong++ == 0)
            first_wrong = m;
    }
    if (wrong)
        printf("  max prime %d: %d lengths wrong, the first %d\n", max_prime, wrong, first_wrong);
    EXPECT(wrong == 0);
}

static void test_staged_radices(void)
{
    check_staged_radices(FFT_STAGED_MAX_PRIME);
    check_staged_radices(13); // the column passes' set before primes, Bluestein's inner m
    unsigned char radix[FFT_STAGED_MAX_STAGES];
    EXPECT(fft_staged_radices(60, 31, radix) == 2 && radix[0] == 10 && radix[1] == 6);
    EXPECT(fft_staged_radices(900, 31, radix) == 3 && radix[0] == 10); // 10 10 9, not 30 30
    EXPECT(fft_staged_radices(2000, 31, radix) == 4); // 10 8 5 5: 20 10 10 starts with 100
    EXPECT(fft_staged_radices(6480, 31, radix) == 3 && radix[0] == 20); // 20 18 18: 4 -> 3
    EXPECT(fft_staged_radices(1360, 31, radix) == 3 && radix[0] == 17); // 17 10 8
    EXPECT(fft_staged_radices(8000, 31, radix) == 3 && radix[0] == 20); // 20 20 20
    EXPECT(fft_staged_radices(8000, 13, radix) == 4); // 10 10 10 8 with radices to 16
    EXPECT(fft_staged_radices(37, 31, radix) == 0 && fft_staged_radices(17, 13, radix) == 0);
    EXPECT(fft_staged_radices(53, FFT_STAGED_MAX_PRIME, radix) == 0);   // Bluestein's
    EXPECT(fft_staged_radices(2064, 47, radix) == 3 && radix[0] == 43); // 43 8 6 (2^4 3 43)
    EXPECT(fft_staged_radices(629, 47, radix) == 0); // 17 37: a large radix beside a huge one
    EXPECT(fft_staged_radices(1517, 47, radix) == 2 && radix[0] == 41 && radix[1] == 37);
}

// The passes' split: the factors multiply to n, each at most max_m, as even as the greedy
// rule makes them; false exactly when a prime factor passes max_prime or a factor max_m.
static void test_split_passes(void)
{
    int m[4];
    EXPECT(fft_split_passes(1 << 20, 2, 2048, 13, m) && m[0] == 1024 && m[1] == 1024);
    EXPECT(fft_split_passes(14450, 2, 2048, 31, m) && m[0] * m[1] == 14450); // 2 5^2 17^2
    EXPECT(!fft_split_passes(14450, 2, 2048, 13, m));                        // 17: Bluestein
    EXPECT(!fft_split_passes(1 << 24, 2, 2048, 13, m));                      // 4096 each
    EXPECT(fft_split_passes(1 << 24, 3, 2048, 13, m) && m[0] * m[1] * m[2] == 1 << 24);
    int wrong = 0;
    for (int n = 2; n <= 1 << 18; n += 7) {
        for (int count = 2; count <= 3; count++) {
            const bool fits = fft_split_passes(n, count, 2048, 31, m);
            long product = 1;
            bool within = true;
            for (int i = 0; i < count && fits; i++) {
                product *= m[i];
                within = within && m[i] >= 1 && m[i] <= 2048;
            }
            if (fits && (product != n || !within))
                wrong++;
            if (!fits && fft_largest_prime_factor(n) <= 31 && count == 3 && n <= 2048 * 2)
                wrong++; // three passes of short factors always fit such an n
        }
    }
    EXPECT(wrong == 0);
}

// The order v7's stages in place leave a transform in (fft_dif_slot): a decimation in
// frequency written here apart (double precision, the kernels' indices: sub-transforms of
// L = m / ns points, butterfly j < L / R at b L + j + q L / R, outputs twiddled by
// w_L^{j k}) puts X_k at slot fft_dif_slot(k) for mixed radices; with radix 2 the slot is
// k's bits reversed; the slots are a permutation at lengths in the in-place range.
static void test_dif_slot(void)
{
    static const unsigned char shapes[][5] = {
        {4, 3, 5, 0}, {2, 3, 0}, {5, 2, 2, 7, 0}, {16, 3, 0}, {7, 6, 4, 0}};
    double worst = 0;
    for (size_t t = 0; t < sizeof shapes / sizeof shapes[0]; t++) {
        int stages = 0, m = 1;
        while (shapes[t][stages])
            m *= shapes[t][stages++];
        double re[256], im[256], xr[256], xi[256];
        for (int i = 0; i < m; i++) {
            xr[i] = re[i] = sin(1.0 + 0.7 * i * i);
            xi[i] = im[i] = cos(0.3 * i);
        }
        int ns = 1;
        for (int s = 0; s < stages; s++) {
            const int R = shapes[t][s], L = m / ns, count = L / R;
            for (int i = 0; i < m / R; i++) {
                const int b = i / count, j = i % count;
                double ur[32], ui[32];
                for (int k = 0; k < R; k++) {
                    double sr = 0, si = 0;
                    for (int q = 0; q < R; q++) {
                        const double a = -2 * M_PI * q * k / R;
                        const int at = b * L + j + q * count;
                        sr += re[at] * cos(a) - im[at] * sin(a);
                        si += re[at] * sin(a) + im[at] * cos(a);
                    }
                    const double w = -2 * M_PI * j * k / L;
                    ur[k] = sr * cos(w) - si * sin(w);
                    ui[k] = sr * sin(w) + si * cos(w);
                }
                for (int k = 0; k < R; k++) {
                    re[b * L + j + k * count] = ur[k];
                    im[b * L + j + k * count] = ui[k];
                }
            }
            ns *= R;
        }
        for (int k = 0; k < m; k++) {
            double sr = 0, si = 0;
            for (int p = 0; p < m; p++) {
                const double a = -2 * M_PI * (double)p * k / m;
                sr += xr[p] * cos(a) - xi[p] * sin(a);
                si += xr[p] * sin(a) + xi[p] * cos(a);
            }
            const int slot = fft_dif_slot(shapes[t], stages, k);
            const double e = fabs(re[slot] - sr) + fabs(im[slot] - si);
            worst = e > worst ? e : worst;
        }
    }
    EXPECT(worst < 1e-9);
    const unsigned char twos[4] = {2, 2, 2, 2};
    EXPECT(fft_dif_slot(twos, 4, 1) == 8 && fft_dif_slot(twos, 4, 6) == 6 &&
           fft_dif_slot(twos, 4, 11) == 13);
    int wrong = 0;
    for (int m = 13674; m <= 27000; m += 37) {
        unsigned char radix[FFT_STAGED_MAX_STAGES];
        const int stages = fft_staged_radices(m, 16, radix);
        if (stages == 0)
            continue;
        static unsigned char seen[27001];
        memset(seen, 0, sizeof seen);
        for (int k = 0; k < m; k++) {
            const int slot = fft_dif_slot(radix, stages, k);
            if (slot < 0 || slot >= m || seen[slot]++)
                wrong++;
        }
    }
    EXPECT(wrong == 0);
}

// The whole-transform buffers' layout (fft_staged_layout): for every length to 14,848 of
// radices to 47 (a block's transforms and copies as staged.cu's whole_shape gives them),
// each buffer's slots are distinct and within the slots returned; counted over every warp
// of every stage (here, apart from the planner's count of the first warps), the layout
// takes fewer shared-memory wavefronts than one slot skipped in 16 (the kernels' layout
// before it): a third fewer over all lengths, none more than an eighth more; 3375 = 15 15
// 15, 16-way conflicts in the first stage's writes before, is conflict-free.
static long layout_wavefronts_all(int m, const unsigned char *radix, int stages, int C,
                                  bool read_first, bool write_last, const int *pad,
                                  const int *pitch, bool skip16)
{
    long sum = 0;
    for (int s = 0, ns = 1; s < stages; ns *= radix[s++]) {
        const int R = radix[s], count = m / R, total = C * count;
        for (int write = 0; write < 2; write++) {
            if (write ? s == stages - 1 && !write_last : s == 0 && !read_first)
                continue;
            const int b = s + write, G = write ? ns * R : ns;
            for (int w = 0; 32 * w < total; w++)
                for (int q = 0; q < R; q++) {
                    int pairs[16] = {0}, most = 0;
                    for (int i = 32 * w; i < 32 * w + 32 && i < total; i++) {
                        const int c = i / count, j = i % count, g = j / ns, jm = j % ns;
                        const int x = write ? g * R * ns + jm + q * ns : j + q * count;
                        const int slot = skip16 ? c * m + x + (c * m + x) / 16
                                                : c * pitch[b] + x + pad[b] * (x / G);
                        const int k = ++pairs[slot % 16];
                        most = k > most ? k : most;
                    }
                    sum += most;
                }
        }
    }
    return sum;
}

static void test_staged_layout(void)
{
    static unsigned char seen[2048 * 17 + 16 * 14848];
    int overlaps = 0, worse = 0, lengths = 0;
    double log_ratio = 0;
    for (int m = 6; m <= 14848; m++) {
        unsigned char radix[FFT_STAGED_MAX_STAGES];
        const int stages = fft_staged_radices(m, FFT_STAGED_MAX_PRIME, radix);
        if (stages == 0)
            continue;
        const int C = (2048 + m / 2) / m < 1 ? 1 : (2048 + m / 2) / m;
        const bool read_first = stages == 1 || m / radix[0] < 4,
                   write_last = stages == 1 || m / radix[stages - 1] < 4;
        int pad[FFT_STAGED_MAX_STAGES + 1], pitch[FFT_STAGED_MAX_STAGES + 1];
        const int slots =
            fft_staged_layout(m, radix, stages, C, read_first, write_last, pad, pitch);
        for (int b = 0, G = 1; b <= stages; G *= b < stages ? radix[b] : 1, b++) {
            memset(seen, 0, (size_t)slots);
            for (int c = 0; c < C; c++)
                for (int x = 0; x < m; x++) {
                    const int slot = c * pitch[b] + x + pad[b] * (x / G);
                    if (slot >= slots || seen[slot]++)
                        overlaps++;
                }
        }
        const long before =
            layout_wavefronts_all(m, radix, stages, C, read_first, write_last, pad, pitch, true);
        const long after =
            layout_wavefronts_all(m, radix, stages, C, read_first, write_last, pad, pitch, false);
        if (before == 0)
            continue;
        lengths++;
        log_ratio += log((double)after / before);
        if (8 * after > 9 * before && worse++ == 0)
            printf("  %d: %ld wavefronts, %ld before\n", m, after, before);
        if (m == 3375) { // 4 accesses of 15 points by 7 warps of 32 lanes and one of 1
            const long ideal = 4 * 15 * (7 * 2 + 1);
            EXPECT(after == ideal && before > 2 * ideal);
        }
    }
    const double ratio = exp(log_ratio / lengths);
    printf("  %d lengths: wavefronts %.3f of one slot skipped in 16 (geometric mean)\n", lengths,
           ratio);
    EXPECT(overlaps == 0);
    EXPECT(worse == 0);
    EXPECT(ratio < 0.75);
}

// Every codelet the kernels build stages from (dft<R>, codelets.cuh), run on the CPU
// (tests/fft_codelets.cu), against the DFT's definition: within float's rounding of a
// few operations (the outputs are sums of R terms of size ~1).
double fft_codelet_error(int R);
static void test_codelets(void)
{
    static const int radices[] = {2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16, 17,
                                  18, 19, 20, 21, 22, 23, 24, 26, 28, 29, 30, 31, 37, 41, 43, 47};
    for (size_t i = 0; i < sizeof radices / sizeof radices[0]; i++) {
        const double e = fft_codelet_error(radices[i]);
        if (!(e >= 0 && e < 2e-6 * radices[i]))
            printf("  dft<%d>: error %.3g\n", radices[i], e);
        EXPECT(e >= 0 && e < 2e-6 * radices[i]);
    }
    EXPECT(fft_codelet_error(25) == -1); // no such codelet
}

// div_mod (codelets.cuh): the kernels' index division by a float reciprocal, exact for
// the indices they divide (below 2^17) with a reciprocal off by up to 2 ulps.
long fft_div_mod_misses(void);
static void test_div_mod(void) { EXPECT(fft_div_mod_misses() == 0); }

static void test_allowed_error(void)
{
    // 4 (log2 n + 1) 2^-24 for smooth n; Bluestein's counts both inner transforms.
    EXPECT(fabs(fft_allowed_error(1024) - 4 * 11 * 0x1p-24) < 1e-18);
    EXPECT(fft_allowed_error(1009) > fft_allowed_error(1024));
    EXPECT(fft_allowed_error(1 << 27) < 2e-5); // a float FFT's error, far under an element's 1
}

// As the practical's inputs: n complex values, real parts uniform in [0, 1) from `key`,
// imaginary parts 0.
static void practical_input(float *x, int n, uint64_t key)
{
    for (int i = 0; i < n; i++) {
        x[2 * i] = cl_rng_uniform_f32(key, (uint64_t)i);
        x[2 * i + 1] = 0.0f;
    }
}

static void test_conv_padding_and_gold(void)
{
    // The practical: 50 and 11 pad to 56; the FFT route (here in double through the gold
    // of the padded inputs) equals the direct convolution.
    EXPECT(fft_conv_length(50, 11) == 56);
    EXPECT(fft_conv_length(1000000, 4097) >= 1002049 &&
           fft_is_smooth(fft_conv_length(1000000, 4097)));
    enum { S = 50, F = 11, L = 56 };
    float s[2 * S], f[2 * F], ps[2 * L], pf[2 * L];
    practical_input(s, S, cl_rng_key(1, 0));
    practical_input(f, F, cl_rng_key(1, 1));
    fft_conv_pad(s, S, f, F, L, ps, pf);
    EXPECT(pf[0] == f[2 * 5] && pf[2 * 5] == f[2 * 10] && pf[2 * (L - 1)] == f[2 * 4]);
    EXPECT(ps[2 * 49] == s[2 * 49] && ps[2 * 50] == 0.0f);
    double hs[2 * L], hf[2 * L], direct[2 * S], out[2 * L];
    fft_gold(L, 1, false, ps, hs);
    fft_gold(L, 1, false, pf, hf);
    float product[2 * L];
    for (int k = 0; k < L; k++) {
        product[2 * k] = (float)((hs[2 * k] * hf[2 * k] - hs[2 * k + 1] * hf[2 * k + 1]) / L);
        product[2 * k + 1] = (float)((hs[2 * k] * hf[2 * k + 1] + hs[2 * k + 1] * hf[2 * k]) / L);
    }
    fft_gold(L, 1, true, product, out);
    fft_convolve_gold(s, S, f, F, direct);
    float got[2 * S];
    for (int i = 0; i < 2 * S; i++)
        got[i] = (float)out[i];
    EXPECT(fft_rel_l2(got, direct, S) < 1e-6);
    // Each output within the per-point allowance, with room (the route's float roundings).
    const double allowed = fft_conv_allowed_error(L, s, S, f, F);
    double worst = 0.0;
    for (int i = 0; i < 2 * S; i++)
        worst = fmax(worst, fabs(got[i] - direct[i]));
    printf("  50,11: worst output error %.3g, allowed %.3g\n", worst, allowed);
    EXPECT(worst < allowed / 10);
    got[7] += 1.0f; // one wrong value is seen
    EXPECT(fft_rel_l2(got, direct, S) > 1e-3);
    EXPECT(fabs(got[7] - direct[7]) > allowed);
}

// The practical's long case, a 10^6-sample signal and a 4097-tap filter: one output off
// by 1 moves the relative L2 error by about 1e-6 (under the practical's 1e-5), but is past
// its own allowance.
static void test_conv_allowance_catches_one_output(void)
{
    enum { S = 1000000, F = 4097 };
    float *s = malloc(2 * sizeof(float) * S), *f = malloc(2 * sizeof(float) * F);
    practical_input(s, S, cl_rng_key(1, 10));
    practical_input(f, F, cl_rng_key(1, 11));
    const double allowed = fft_conv_allowed_error(fft_conv_length(S, F), s, S, f, F);
    // An output is a sum of ~F products of mean 1/4: ||out|| ~ sqrt(S) F / 4.
    const double out_norm = sqrt((double)S) * F / 4.0;
    printf("  1M,4097: allowed %.3g an output; one output off by 1 moves the L2 error by %.2g\n",
           allowed, 1.0 / out_norm);
    EXPECT(allowed < 1.0);
    EXPECT(1.0 / out_norm < 1e-5);
    free(s);
    free(f);
}

int main(void)
{
    RUN_TEST(test_gold_matches_the_definition);
    RUN_TEST(test_gold_known_values);
    RUN_TEST(test_round_trip);
    RUN_TEST(test_smooth_lengths);
    RUN_TEST(test_staged_radices);
    RUN_TEST(test_split_passes);
    RUN_TEST(test_dif_slot);
    RUN_TEST(test_staged_layout);
    RUN_TEST(test_codelets);
    RUN_TEST(test_div_mod);
    RUN_TEST(test_allowed_error);
    RUN_TEST(test_conv_padding_and_gold);
    RUN_TEST(test_conv_allowance_catches_one_output);
    return UNIT_RESULT();
}
