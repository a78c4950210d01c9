// test_fft's check of fft's codelets on the CPU: dft<R> (codelets.cuh, compiled for the host
// here, the same templates the kernels inline) against the DFT's definition in double.
#include <math.h>

#include "codelets.cuh"

template <int R> static double codelet_error(unsigned seed)
{
    float2 v[R];
    double re[R], im[R];
    for (int q = 0; q < R; q++) { // deterministic values in [-1, 1]
        seed = seed * 1664525u + 1013904223u;
        re[q] = (double)(seed >> 8) / (double)(1u << 23) - 1.0;
        seed = seed * 1664525u + 1013904223u;
        im[q] = (double)(seed >> 8) / (double)(1u << 23) - 1.0;
        v[q] = make_float2((float)re[q], (float)im[q]);
    }
    if constexpr (R == 17 || R == 19 || R == 23 || R == 29 || R == 31 || R == 37 || R == 41 ||
                  R == 43 || R == 47)
        dft_odd<R>(v); // the primes' stages use it (dft_odd_each)
    else
        dft<R>(v);
    double worst = 0;
    for (int k = 0; k < R; k++) {
        double sr = 0, si = 0;
        for (int q = 0; q < R; q++) {
            const double a = -2.0 * M_PI * (double)(q * k % R) / R;
            sr += re[q] * cos(a) - im[q] * sin(a);
            si += re[q] * sin(a) + im[q] * cos(a);
        }
        const double e = hypot(v[k].x - sr, v[k].y - si);
        worst = e > worst ? e : worst;
    }
    return worst;
}

// The codelets the kernels have: the radices 2 .. 16, the large stages' (the primes 17 ..
// 31 and the composites 18 .. 30) and the huge stages' (the primes 37 .. 47).
static const struct {
    int radix;
    double (*error)(unsigned seed);
} codelets[] = {{2, codelet_error<2>},   {3, codelet_error<3>},   {4, codelet_error<4>},
                {5, codelet_error<5>},   {6, codelet_error<6>},   {7, codelet_error<7>},
                {8, codelet_error<8>},   {9, codelet_error<9>},   {10, codelet_error<10>},
                {11, codelet_error<11>}, {12, codelet_error<12>}, {13, codelet_error<13>},
                {14, codelet_error<14>}, {15, codelet_error<15>}, {16, codelet_error<16>},
                {17, codelet_error<17>}, {19, codelet_error<19>}, {23, codelet_error<23>},
                {29, codelet_error<29>}, {31, codelet_error<31>}, {18, codelet_error<18>},
                {20, codelet_error<20>}, {21, codelet_error<21>}, {22, codelet_error<22>},
                {24, codelet_error<24>}, {26, codelet_error<26>}, {28, codelet_error<28>},
                {30, codelet_error<30>}, {37, codelet_error<37>}, {41, codelet_error<41>},
                {43, codelet_error<43>}, {47, codelet_error<47>}};

// The largest error of dft<R>'s outputs over a few inputs, or -1 for an R with no codelet.
extern "C" double fft_codelet_error(int R)
{
    for (const auto &c : codelets)
        if (c.radix == R) {
            double worst = 0;
            for (unsigned seed = 1; seed <= 8; seed++) {
                const double e = c.error(seed);
                worst = e > worst ? e : worst;
            }
            return worst;
        }
    return -1;
}

// div_mod's misses: every d from 1 to 2^15, with inv_d 1.0f / d and the floats up to 2 ulps
// either side (the kernels' reciprocals: the host's, or the special-function unit's
// __fdividef), at the i where an error would show first, on either side of each multiple of d
// below 2^17 (and i = 0 .. 2^17 - 1 for d up to 64).
extern "C" long fft_div_mod_misses(void)
{
    long misses = 0;
    for (int d = 1; d <= 1 << 15; d++) {
        float inv[5];
        inv[2] = 1.0f / (float)d;
        inv[1] = nextafterf(inv[2], 0.0f);
        inv[0] = nextafterf(inv[1], 0.0f);
        inv[3] = nextafterf(inv[2], 1.0f);
        inv[4] = nextafterf(inv[3], 1.0f);
        const int step = d <= 64 ? 1 : d;
        for (int base = 0; base < 1 << 17; base += step)
            for (int i = base > 0 ? base - 1 : 0; i <= base + 1 && i < 1 << 17; i++)
                for (int u = 0; u < 5; u++) {
                    int r;
                    const int q = div_mod(i, d, inv[u], r);
                    misses += q != i / d || r != i % d;
                }
    }
    return misses;
}
