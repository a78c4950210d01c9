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
    if constexpr (R > 16)
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

// The largest error of dft<R>'s outputs over a few inputs, or -1 for an R with no codelet.
extern "C" double fft_codelet_error(int R)
{
    double worst = 0;
    for (unsigned seed = 1; seed <= 8; seed++) {
        double e;
        switch (R) {
#define CASE(N)                                                                                    \
    case N:                                                                                        \
        e = codelet_error<N>(seed);                                                                \
        break;
            CASE(2)
            CASE(3)
            CASE(4)
            CASE(5) CASE(6) CASE(7) CASE(8) CASE(9) CASE(10) CASE(11) CASE(12) CASE(13) CASE(14)
                CASE(15) CASE(16) CASE(17) CASE(19) CASE(23) CASE(29) CASE(31)
#undef CASE
                    default : return -1;
        }
        worst = e > worst ? e : worst;
    }
    return worst;
}
