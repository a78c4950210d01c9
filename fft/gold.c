// fft's CPU side: the gold transform in double (any n), the direct DFT that checks it,
// the error allowed a single-precision result, and the Oxford practical's convolution.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fft.h"

// --- lengths ---------------------------------------------------------------------------

long fft_largest_prime_factor(long n)
{
    long largest = 1;
    for (long p = 2; p * p <= n; p++)
        while (n % p == 0) {
            largest = p;
            n /= p;
        }
    return n > 1 ? n : largest;
}

bool fft_is_smooth(long n) { return n >= 1 && fft_largest_prime_factor(n) <= 7; }

long fft_next_smooth(long n)
{
    long m = n < 1 ? 1 : n;
    while (!fft_is_smooth(m))
        m++;
    return m;
}

long fft_bluestein_length(int n) { return fft_next_smooth(2L * n - 1); }

// Each output is a sum over log2(n) rounds of butterflies; each round's rounding errors are
// about 2^-24 of the values it adds, whose size is ||x||_2 (the transform scales the norm
// by sqrt(n), spread over n outputs). So |error| <= c log2(n) 2^-24 ||x||_2 with a c of a
// few; we allow c = 4 (each round counted whole), and Bluestein's chain of a forward and
// an inverse transform of length m and three products the rounds of both.
double fft_allowed_error(int n)
{
    const double rounds = fft_is_smooth(n) ? log2((double)n) + 1.0
                                           : 2.0 * log2((double)fft_bluestein_length(n)) + 3.0;
    return 4.0 * rounds * 0x1p-24;
}

// --- the gold: Stockham in double ---------------------------------------------------------

typedef struct {
    double re, im;
} cdouble;

static cdouble cmul(cdouble a, cdouble b)
{
    return (cdouble){a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}

// w[t] = e^{sign 2 pi i t / n}, t < n, each from its own angle (no recurrence).
static cdouble *roots_of_unity(long n, int sign)
{
    cdouble *w = cl_host_alloc((size_t)n * sizeof *w, "twiddles");
#pragma omp parallel for schedule(static) if (n > 65536)
    for (long t = 0; t < n; t++) {
        const double angle = 2.0 * M_PI * (double)t / (double)n;
        w[t] = (cdouble){cos(angle), sign * sin(angle)};
    }
    return w;
}

// The radices of n, largest prime factors last: 4s, a 2, then odd primes up to 64.
// Returns the count; 0 when a prime factor is above 64 (Bluestein's case).
static int gold_radices(long n, int radix[64])
{
    int count = 0;
    while (n % 4 == 0) {
        radix[count++] = 4;
        n /= 4;
    }
    if (n % 2 == 0) {
        radix[count++] = 2;
        n /= 2;
    }
    for (int p = 3; p <= 64 && n > 1; p += 2)
        while (n % p == 0) {
            radix[count++] = p;
            n /= p;
        }
    return n == 1 ? count : 0;
}

// One Stockham stage of radix r: for each j < n/r, the r points j + q n/r, each times
// the twiddle w_{ns r}^{q (j mod ns)}, go through an r-point DFT to positions
// (j / ns) ns r + (j mod ns) + q ns. w holds the n-th roots: w_L^u = w[u n / L].
static void stage(long n, int r, long ns, const cdouble *w, const cdouble *src, cdouble *dst,
                  bool parallel)
{
    const long count = n / r, span = ns * r, step = n / span;
#pragma omp parallel for schedule(static) if (parallel)
    for (long j = 0; j < count; j++) {
        cdouble v[64], y[64];
        const long jm = j % ns;
        for (int q = 0; q < r; q++)
            v[q] = cmul(src[j + q * count], w[(q * jm) * step]);
        if (r == 2) {
            y[0] = (cdouble){v[0].re + v[1].re, v[0].im + v[1].im};
            y[1] = (cdouble){v[0].re - v[1].re, v[0].im - v[1].im};
        } else if (r == 4) {
            // w_4 = sign i (w[n/4] is (~0, sign)): y_1 = t1 + sign i t3, y_3 = t1 - sign i t3.
            const double sign = w[n / 4].im;
            const cdouble t0 = {v[0].re + v[2].re, v[0].im + v[2].im};
            const cdouble t1 = {v[0].re - v[2].re, v[0].im - v[2].im};
            const cdouble t2 = {v[1].re + v[3].re, v[1].im + v[3].im};
            const cdouble t3 = {-sign * (v[1].im - v[3].im), sign * (v[1].re - v[3].re)};
            y[0] = (cdouble){t0.re + t2.re, t0.im + t2.im};
            y[2] = (cdouble){t0.re - t2.re, t0.im - t2.im};
            y[1] = (cdouble){t1.re + t3.re, t1.im + t3.im};
            y[3] = (cdouble){t1.re - t3.re, t1.im - t3.im};
        } else {
            // y_k = sum_q v_q w_r^{qk}, w_r^u = w[u n / r]
            for (int k = 0; k < r; k++) {
                cdouble s = {0.0, 0.0};
                for (int q = 0; q < r; q++) {
                    const cdouble t = cmul(v[q], w[(long)((q * k) % r) * (n / r)]);
                    s.re += t.re;
                    s.im += t.im;
                }
                y[k] = s;
            }
        }
        const long base = (j / ns) * span + jm;
        for (int q = 0; q < r; q++)
            dst[base + q * ns] = y[q];
    }
}

// A smooth-enough n (prime factors up to 64) in place in data, scratch the same size.
static void transform_mixed(long n, const int *radix, int stages, const cdouble *w, cdouble *data,
                            cdouble *scratch, bool parallel)
{
    cdouble *src = data, *dst = scratch;
    long ns = 1;
    for (int s = 0; s < stages; s++) {
        stage(n, radix[s], ns, w, src, dst, parallel);
        ns *= radix[s];
        cdouble *t = src;
        src = dst;
        dst = t;
    }
    if (src != data)
        memcpy(data, src, (size_t)n * sizeof *data);
}

// Bluestein's algorithm: with jk = (j^2 + k^2 - (k - j)^2) / 2, the transform is
// X_k = c_k sum_j (x_j c_j) conj(c_{k-j}), c_k = e^{sign pi i k^2 / n}: a convolution,
// done with transforms of a power of two m >= 2n - 1.
typedef struct {
    long n, m;
    int radix[64], stages;
    cdouble *chirp;    // c_k, k < n
    cdouble *spectrum; // the transform of conj(c) wrapped to length m, over m
    cdouble *w_m;      // m-th roots, forward
} bluestein;

static bluestein bluestein_make(long n, int sign)
{
    bluestein b = {.n = n, .m = 1};
    while (b.m < 2 * n - 1)
        b.m *= 2;
    b.stages = gold_radices(b.m, b.radix);
    b.chirp = cl_host_alloc((size_t)n * sizeof(cdouble), "chirp");
    for (long k = 0; k < n; k++) {
        // k^2 mod 2n keeps the angle small and exact (k < 2^27: k^2 < 2^54).
        const double angle = M_PI * (double)(((uint64_t)k * (uint64_t)k) % (uint64_t)(2 * n)) / n;
        b.chirp[k] = (cdouble){cos(angle), sign * sin(angle)};
    }
    b.w_m = roots_of_unity(b.m, -1);
    b.spectrum = cl_host_alloc((size_t)b.m * sizeof(cdouble), "Bluestein spectrum");
    cdouble *scratch = cl_host_alloc((size_t)b.m * sizeof(cdouble), "scratch");
    memset(b.spectrum, 0, (size_t)b.m * sizeof(cdouble));
    for (long k = 0; k < n; k++) {
        const cdouble conj = {b.chirp[k].re, -b.chirp[k].im};
        b.spectrum[k] = conj;
        if (k > 0)
            b.spectrum[b.m - k] = conj;
    }
    transform_mixed(b.m, b.radix, b.stages, b.w_m, b.spectrum, scratch, b.m > 65536);
    for (long k = 0; k < b.m; k++) {
        b.spectrum[k].re /= (double)b.m;
        b.spectrum[k].im /= (double)b.m;
    }
    free(scratch);
    return b;
}

// One transform: x (n values) to out, work and scratch m values each.
static void bluestein_run(const bluestein *b, const cdouble *x, cdouble *out, cdouble *work,
                          cdouble *scratch, bool parallel)
{
    memset(work, 0, (size_t)b->m * sizeof *work);
    for (long k = 0; k < b->n; k++)
        work[k] = cmul(x[k], b->chirp[k]);
    transform_mixed(b->m, b->radix, b->stages, b->w_m, work, scratch, parallel);
    // The inverse transform as conj(forward(conj(.))): conjugate the product here, and
    // the result below.
    for (long k = 0; k < b->m; k++) {
        const cdouble p = cmul(work[k], b->spectrum[k]);
        work[k] = (cdouble){p.re, -p.im};
    }
    transform_mixed(b->m, b->radix, b->stages, b->w_m, work, scratch, parallel);
    for (long k = 0; k < b->n; k++)
        out[k] = cmul((cdouble){work[k].re, -work[k].im}, b->chirp[k]);
}

static void bluestein_free(bluestein *b)
{
    free(b->chirp);
    free(b->spectrum);
    free(b->w_m);
}

void fft_gold(int n, size_t batch, bool inverse, const float *in, double *out)
{
    const int sign = inverse ? 1 : -1;
    int radix[64];
    const int stages = gold_radices(n, radix);
    // A long transform uses every core itself; short ones go one to a core.
    const bool inside = n >= 65536;
    bluestein b = {0};
    cdouble *w = NULL;
    long work_len = n;
    if (stages > 0 || n == 1) {
        w = roots_of_unity(n, sign);
    } else {
        b = bluestein_make(n, sign);
        work_len = b.m;
    }
#pragma omp parallel if (!inside)
    {
        cdouble *data = cl_host_alloc((size_t)work_len * sizeof(cdouble), "gold data");
        cdouble *scratch = cl_host_alloc((size_t)work_len * sizeof(cdouble), "gold scratch");
        cdouble *x = b.m ? cl_host_alloc((size_t)n * sizeof(cdouble), "gold input") : data;
#pragma omp for schedule(dynamic, 1)
        for (size_t t = 0; t < batch; t++) {
            const float *src = in + 2 * t * (size_t)n;
            for (long k = 0; k < n; k++)
                x[k] = (cdouble){src[2 * k], src[2 * k + 1]};
            if (b.m)
                bluestein_run(&b, x, data, data, scratch, inside);
            else
                transform_mixed(n, radix, stages, w, data, scratch, inside);
            memcpy(out + 2 * t * (size_t)n, data, (size_t)n * sizeof(cdouble));
        }
        if (x != data)
            free(x);
        free(data);
        free(scratch);
    }
    free(w);
    if (b.m)
        bluestein_free(&b);
}

void fft_dft_direct(int n, bool inverse, const float *in, double *out)
{
    const double sign = inverse ? 1.0 : -1.0;
    for (long k = 0; k < n; k++) {
        double re = 0.0, im = 0.0;
        for (long j = 0; j < n; j++) {
            const double angle = sign * 2.0 * M_PI * (double)((j * k) % n) / n;
            const double c = cos(angle), s = sin(angle);
            re += in[2 * j] * c - in[2 * j + 1] * s;
            im += in[2 * j] * s + in[2 * j + 1] * c;
        }
        out[2 * k] = re;
        out[2 * k + 1] = im;
    }
}

// --- the practical's convolution ------------------------------------------------------------

long fft_conv_length(int n_signal, int n_filter)
{
    return fft_next_smooth((long)n_signal + (n_filter - n_filter / 2));
}

void fft_conv_pad(const float *signal, int n_signal, const float *filter, int n_filter, long len,
                  float *padded_signal, float *padded_filter)
{
    const int min_radius = n_filter / 2, max_radius = n_filter - min_radius;
    memset(padded_signal, 0, 2 * (size_t)len * sizeof(float));
    memset(padded_filter, 0, 2 * (size_t)len * sizeof(float));
    memcpy(padded_signal, signal, 2 * (size_t)n_signal * sizeof(float));
    memcpy(padded_filter, filter + 2 * min_radius, 2 * (size_t)max_radius * sizeof(float));
    memcpy(padded_filter + 2 * (len - min_radius), filter, 2 * (size_t)min_radius * sizeof(float));
}

void fft_convolve_gold(const float *signal, int n_signal, const float *filter, int n_filter,
                       double *out)
{
    const int min_radius = n_filter / 2, max_radius = n_filter - min_radius;
#pragma omp parallel for schedule(static) if (n_signal > 4096)
    for (int i = 0; i < n_signal; i++) {
        double re = 0.0, im = 0.0;
        for (int j = -max_radius + 1; j <= min_radius; j++) {
            const int k = i + j;
            if (k < 0 || k >= n_signal)
                continue;
            const float *s = signal + 2 * k, *f = filter + 2 * (min_radius - j);
            re += (double)s[0] * f[0] - (double)s[1] * f[1];
            im += (double)s[0] * f[1] + (double)s[1] * f[0];
        }
        out[2 * i] = re;
        out[2 * i + 1] = im;
    }
}

// The convolution out = IFFT(FFT(s) FFT(f)) / L: with each transform's outputs within
// a = fft_allowed_error(L) of its input's norm, the product's error is e_s F + S e_f,
// ||.||_2 <= 2 a sqrt(L) ||s|| ||f|| (||S|| = sqrt(L) ||s||), which the inverse spreads to at
// most 2 a ||s|| ||f|| an output (1/L times a sum of L terms, Cauchy-Schwarz), plus the
// inverse's own a ||S F|| / L <= a ||s|| ||f|| and the product's rounding.
double fft_conv_allowed_error(long len, const float *signal, int n_signal, const float *filter,
                              int n_filter)
{
    double ss = 0.0, ff = 0.0;
    for (int i = 0; i < 2 * n_signal; i++)
        ss += (double)signal[i] * signal[i];
    for (int i = 0; i < 2 * n_filter; i++)
        ff += (double)filter[i] * filter[i];
    return (3.0 * fft_allowed_error((int)len) + 0x1p-24) * sqrt(ss) * sqrt(ff);
}

double fft_rel_l2(const float *got, const double *want, size_t n)
{
    double err = 0.0, norm = 0.0;
    for (size_t i = 0; i < 2 * n; i++) {
        const double d = got[i] - want[i];
        err += d * d;
        norm += want[i] * want[i];
    }
    return norm > 0.0 ? sqrt(err / norm) : sqrt(err);
}
