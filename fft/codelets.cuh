// fft's codelets: complex arithmetic and the butterflies every pass kernel is built from
// (fft.cu's v2..v6, staged.cu's v7): dft<R> transforms R points in registers for R = 2 ..
// 16 but 1, each compiled with its roots as constants; the twiddles
// between stages come from a table of roots (twiddle_from_roots).
#ifndef FFT_CODELETS_CUH
#define FFT_CODELETS_CUH

#include <cuda_runtime.h>

// #pragma unroll for the device; nothing for the host's compiler, which does not know it
// (the codelets compile for the host too, for the unit tests).
#ifdef __CUDA_ARCH__
#define CODELET_UNROLL _Pragma("unroll")
#else
#define CODELET_UNROLL
#endif

// --- complex arithmetic and the odd radices --------------------------------------------

__host__ __device__ inline float2 cadd(float2 a, float2 b)
{
    return make_float2(a.x + b.x, a.y + b.y);
}
__host__ __device__ inline float2 csub(float2 a, float2 b)
{
    return make_float2(a.x - b.x, a.y - b.y);
}
__host__ __device__ inline float2 cmul(float2 a, float2 b)
{
    return make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}
__device__ inline float2 conj_if(float2 a, bool conj)
{
    return make_float2(a.x, conj ? -a.y : a.y);
}
// a with the sign bit of its imaginary part XORed with sign (0 or 0x80000000): conj_if as
// one logic op, where the run-time select costs a negate and a select.
__device__ inline float2 flip_imag(float2 a, unsigned sign)
{
    return make_float2(a.x, __uint_as_float(__float_as_uint(a.y) ^ sign));
}
// flip_imag's sign for a conjugate that is taken (an inverse's) or not.
__device__ inline unsigned sign_mask(bool conj) { return conj ? 0x80000000u : 0u; }
// -i a: a quarter turn clockwise, no multiply.
__host__ __device__ inline float2 mul_minus_i(float2 a) { return make_float2(a.y, -a.x); }

// cos and sin of 2 pi m / P for the odd radices (m is a constant once unrolled), computed
// by the compiler: Taylor series in double at |angle| <= pi, rounded once to float (the
// same floats as the C library's cos and sin for P = 3 .. 13).
__host__ __device__ constexpr double series_cos(double x)
{
    double term = 1.0, sum = 1.0;
    for (int i = 1; i < 40; i++) {
        term *= -x * x / ((2.0 * i - 1.0) * (2.0 * i));
        sum += term;
    }
    return sum;
}
__host__ __device__ constexpr double series_sin(double x)
{
    double term = x, sum = x;
    for (int i = 1; i < 40; i++) {
        term *= -x * x / ((2.0 * i) * (2.0 * i + 1.0));
        sum += term;
    }
    return sum;
}
template <int P> struct odd_roots {
    float c[P], s[P];
    __host__ __device__ constexpr odd_roots() : c(), s()
    {
        for (int m = 0; m < P; m++) {
            const double x = 2.0 * 3.14159265358979323846 * (2 * m <= P ? m : m - P) / P;
            c[m] = (float)series_cos(x);
            s[m] = (float)series_sin(x);
        }
    }
};
template <int P> __host__ __device__ inline float2 odd_root(int m)
{
    constexpr odd_roots<P> roots;
    return make_float2(roots.c[m], roots.s[m]);
}

// An odd P (a prime, or 9): with a_j = v_j + v_{P-j}, b_j = v_j - v_{P-j} (j = 1 .. (P-1)/2),
// y_k = v_0 + sum_j cos(2 pi jk/P) a_j - i sum_j sin(2 pi jk/P) b_j and y_{P-k} the same
// with + i: (P-1)^2 / 2 real multiplies instead of (P-1)^2 complex ones. Each output goes
// to emit(k, y_k) as it is made, so a caller that stores it at once holds the a_j and b_j
// only, not P outputs besides (the primes 17 .. 31 in v7's stages).
template <int P, class Emit>
__host__ __device__ __forceinline__ void dft_odd_each(const float2 *v, Emit emit)
{
    constexpr int h = (P - 1) / 2;
    float2 a[h + 1], b[h + 1];
    float2 y0 = v[0];
    CODELET_UNROLL
    for (int j = 1; j <= h; j++) {
        a[j] = cadd(v[j], v[P - j]);
        b[j] = csub(v[j], v[P - j]);
        y0 = cadd(y0, a[j]);
    }
    emit(0, y0);
    CODELET_UNROLL
    for (int k = 1; k <= h; k++) {
        float2 re = v[0], im = make_float2(0.0f, 0.0f);
        CODELET_UNROLL
        for (int j = 1; j <= h; j++) {
            const float2 w = odd_root<P>((j * k) % P);
            const float c = w.x, s = w.y;
            re = make_float2(re.x + c * a[j].x, re.y + c * a[j].y);
            im = make_float2(im.x + s * b[j].x, im.y + s * b[j].y);
        }
        emit(k, make_float2(re.x + im.y, re.y - im.x));     // re - i im
        emit(P - k, make_float2(re.x - im.y, re.y + im.x)); // re + i im
    }
}
template <int P> __host__ __device__ inline void dft_odd(float2 *v)
{
    float2 out[P];
    dft_odd_each<P>(v, [&](int k, float2 y) { out[k] = y; });
    CODELET_UNROLL
    for (int k = 0; k < P; k++)
        v[k] = out[k];
}

// The forward R-point DFT of v, in place (natural order in and out). Host code can run
// the codelets too: the unit tests check each against the definition on the CPU.
template <int R> __host__ __device__ inline void dft(float2 *v);
template <> __host__ __device__ inline void dft<1>(float2 *) {}
template <> __host__ __device__ inline void dft<2>(float2 *v)
{
    const float2 a = v[0], b = v[1];
    v[0] = cadd(a, b);
    v[1] = csub(a, b);
}
template <> __host__ __device__ inline void dft<4>(float2 *v)
{
    const float2 t0 = cadd(v[0], v[2]), t1 = csub(v[0], v[2]);
    const float2 t2 = cadd(v[1], v[3]), t3 = mul_minus_i(csub(v[1], v[3]));
    v[0] = cadd(t0, t2);
    v[2] = csub(t0, t2);
    v[1] = cadd(t1, t3);
    v[3] = csub(t1, t3);
}
// Radix 8 as two radix-4 DFTs of the even and odd points and a radix-2 step with the
// eighth roots, which are (+-1 +-i) sqrt(1/2): 4 real multiplies in all.
template <> __host__ __device__ inline void dft<8>(float2 *v)
{
    float2 e[4] = {v[0], v[2], v[4], v[6]}, o[4] = {v[1], v[3], v[5], v[7]};
    dft<4>(e);
    dft<4>(o);
    const float r = 0.70710678118654752f;
    o[1] = make_float2(r * (o[1].x + o[1].y), r * (o[1].y - o[1].x));  // e^{-i pi/4}
    o[2] = mul_minus_i(o[2]);                                          // e^{-i pi/2}
    o[3] = make_float2(r * (o[3].y - o[3].x), -r * (o[3].x + o[3].y)); // e^{-3i pi/4}
    CODELET_UNROLL
    for (int k = 0; k < 4; k++) {
        v[k] = cadd(e[k], o[k]);
        v[k + 4] = csub(e[k], o[k]);
    }
}
template <> __host__ __device__ inline void dft<3>(float2 *v) { dft_odd<3>(v); }
template <> __host__ __device__ inline void dft<5>(float2 *v) { dft_odd<5>(v); }
template <> __host__ __device__ inline void dft<7>(float2 *v) { dft_odd<7>(v); }
template <> __host__ __device__ inline void dft<9>(float2 *v) { dft_odd<9>(v); }
template <> __host__ __device__ inline void dft<11>(float2 *v) { dft_odd<11>(v); }
template <> __host__ __device__ inline void dft<13>(float2 *v) { dft_odd<13>(v); }

// q = i / d and r = i mod d for 0 <= i < 2^17 and d > 0, from a float reciprocal inv_d
// within 2 ulps of 1 / d (the host's 1.0f / d, or the special-function unit's): 4
// instructions and no branch (a 32-bit division is ~20). Exact: (i + 1/2) / d lies 1 / (2d)
// or more from the integers on either side, and the float product's relative error (~2^-21
// with inv_d's) times q < 2^17 / d is below 2^-4 / d. Unit-tested on the CPU
// (tests/fft_codelets.cu) at every d to 2^15 and the i on either side of its multiples.
__host__ __device__ inline int div_mod(int i, int d, float inv_d, int &r)
{
    const float x = ((float)i + 0.5f) * inv_d;
#ifdef __CUDA_ARCH__
    const int q = __float2int_rz(x);
#else
    const int q = (int)x;
#endif
    r = i - q * d;
    return q;
}

// e^{-2 pi i e / len}, accurate to a float's rounding (the argument formed in double).
__device__ inline float2 root_of_unity(long long e, long long len)
{
    float s, c;
    sincospif((float)(-2.0 * (double)e / (double)len), &s, &c);
    return make_float2(c, s);
}

// --- radix 16, the composite radices, and the twiddles between stages ----------------

// a w_16^e for a constant e: the multiples of pi/2 and pi/4 without general products.
__host__ __device__ __forceinline__ float2 rotate16(float2 a, int e)
{
    constexpr float c16[16] = {1.0f,  9.238795325e-01f,  7.071067812e-01f,  3.826834324e-01f,
                               0.0f,  -3.826834324e-01f, -7.071067812e-01f, -9.238795325e-01f,
                               -1.0f, -9.238795325e-01f, -7.071067812e-01f, -3.826834324e-01f,
                               0.0f,  3.826834324e-01f,  7.071067812e-01f,  9.238795325e-01f};
    const float r = 0.70710678118654752f;
    e &= 15;
    if (e == 0)
        return a;
    if (e == 4)
        return mul_minus_i(a);
    if (e == 8)
        return make_float2(-a.x, -a.y);
    if (e == 12)
        return make_float2(-a.y, a.x);
    if (e == 2)
        return make_float2(r * (a.x + a.y), r * (a.y - a.x));
    if (e == 6)
        return make_float2(r * (a.y - a.x), -r * (a.x + a.y));
    // w_16^e = cos - i sin, sin(2 pi e / 16) = cos(2 pi (e - 4) / 16)
    return cmul(a, make_float2(c16[e], -c16[(e + 12) & 15]));
}

// Radix 16 as 4 x 4: a radix-4 DFT of each residue class n2 (points 4 n1 + n2), the
// twiddles w_16^{n2 k1}, then a radix-4 DFT across the classes (X[k1 + 4 k2]).
template <> __host__ __device__ inline void dft<16>(float2 *v)
{
    float2 a[4][4];
    CODELET_UNROLL
    for (int n2 = 0; n2 < 4; n2++) {
        CODELET_UNROLL
        for (int n1 = 0; n1 < 4; n1++)
            a[n2][n1] = v[4 * n1 + n2];
        dft<4>(a[n2]);
        CODELET_UNROLL
        for (int k1 = 0; k1 < 4; k1++)
            a[n2][k1] = rotate16(a[n2][k1], n2 * k1);
    }
    CODELET_UNROLL
    for (int k1 = 0; k1 < 4; k1++) {
        float2 b[4] = {a[0][k1], a[1][k1], a[2][k1], a[3][k1]};
        dft<4>(b);
        CODELET_UNROLL
        for (int k2 = 0; k2 < 4; k2++)
            v[k1 + 4 * k2] = b[k2];
    }
}

// N = A B points for A and B coprime, by Good and Thomas's prime-factor mapping: point (B n1
// + A n2) mod N goes to row n2, column n1; an A-point DFT of each row, then a B-point DFT
// of each column, and column k1's output k2 is X[k] for the k that is k1 mod A and k2 mod
// B. The indices are constants once unrolled, and, A and B being coprime, there are no
// twiddles between the two (Cooley-Tukey's A x B split has (A - 1)(B - 1) of them).
// Radices 6, 10, 12, 14 and 15 are made this way: a stage of 12 does the work of a
// stage of 4 and one of 3 with one trip through shared memory instead of two.
template <int A, int B> struct pfa_outputs {
    int k[A][B]; // k[k1][k2]: the k with k mod A = k1 and k mod B = k2
    __host__ __device__ constexpr pfa_outputs() : k()
    {
        for (int i = 0; i < A * B; i++)
            k[i % A][i % B] = i;
    }
};
template <int A, int B> __host__ __device__ __forceinline__ void dft_pfa(float2 *v)
{
    constexpr int N = A * B;
    constexpr pfa_outputs<A, B> out;
    float2 a[B][A];
    CODELET_UNROLL
    for (int n2 = 0; n2 < B; n2++) {
        CODELET_UNROLL
        for (int n1 = 0; n1 < A; n1++)
            a[n2][n1] = v[(B * n1 + A * n2) % N];
        dft<A>(a[n2]);
    }
    CODELET_UNROLL
    for (int k1 = 0; k1 < A; k1++) {
        float2 b[B];
        CODELET_UNROLL
        for (int n2 = 0; n2 < B; n2++)
            b[n2] = a[n2][k1];
        dft<B>(b);
        CODELET_UNROLL
        for (int k2 = 0; k2 < B; k2++)
            v[out.k[k1][k2]] = b[k2];
    }
}
template <> __host__ __device__ inline void dft<6>(float2 *v) { dft_pfa<2, 3>(v); }
template <> __host__ __device__ inline void dft<10>(float2 *v) { dft_pfa<2, 5>(v); }
template <> __host__ __device__ inline void dft<12>(float2 *v) { dft_pfa<4, 3>(v); }
template <> __host__ __device__ inline void dft<14>(float2 *v) { dft_pfa<2, 7>(v); }
template <> __host__ __device__ inline void dft<15>(float2 *v) { dft_pfa<5, 3>(v); }
// Past 16 (v7's large stages, in the kernels' LARGE instances beside the primes 17 .. 31):
// a stage of 18 .. 30 makes 3 stages of a length that took 4 with radices to 16 (3780 =
// 18 15 14, 8000 = 20 20 20).
template <> __host__ __device__ inline void dft<18>(float2 *v) { dft_pfa<2, 9>(v); }
template <> __host__ __device__ inline void dft<20>(float2 *v) { dft_pfa<4, 5>(v); }
template <> __host__ __device__ inline void dft<21>(float2 *v) { dft_pfa<3, 7>(v); }
template <> __host__ __device__ inline void dft<22>(float2 *v) { dft_pfa<2, 11>(v); }
template <> __host__ __device__ inline void dft<24>(float2 *v) { dft_pfa<8, 3>(v); }
template <> __host__ __device__ inline void dft<26>(float2 *v) { dft_pfa<2, 13>(v); }
template <> __host__ __device__ inline void dft<28>(float2 *v) { dft_pfa<4, 7>(v); }
template <> __host__ __device__ inline void dft<30>(float2 *v) { dft_pfa<2, 15>(v); }

// u[q] *= w_L^{q e} for q < R from the table of L-th roots: q = 1, 2, 3 and the multiples
// of 4 read, the rest one product of two reads (at most 1.5 roundings where a product
// chain would carry up to 4).
template <int R>
__device__ __forceinline__ void twiddle_from_roots(float2 *u, const float2 *roots, int e)
{
    float2 w[R];
    CODELET_UNROLL
    for (int q = 1; q < R; q++)
        w[q] = (q < 4 || q % 4 == 0) ? __ldg(&roots[q * e]) : cmul(w[q % 4], w[q - q % 4]);
    CODELET_UNROLL
    for (int q = 1; q < R; q++)
        u[q] = cmul(u[q], w[q]);
}

#endif
