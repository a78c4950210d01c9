// fft: batched 1D complex-to-complex FFTs in single precision, any length. The C
// interface between main.c, gold.c and the kernels (fft.cu, yours.cu).
#ifndef FFT_H
#define FFT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#include "cli.h"

#ifdef __cplusplus
extern "C" {
#endif

// The longest transform and the most points a run takes (batch x n).
enum { FFT_MAX_N = 1 << 27 };
#define FFT_MAX_POINTS ((size_t)1 << 31)

// One call: `batch` transforms of n points each, transform b at in + b n (interleaved
// float pairs: re, im), forward (e^{-2 pi i jk/n}) or inverse (e^{+...}, unnormalised,
// as cuFFT). in == out: in place. Device pointers.
typedef struct {
    int n;
    size_t batch;
    bool inverse;
    const void *in;
    void *out;
} fft_args;

// A version's plan: what it precomputes before it is timed (the factorisation, twiddle
// tables, Bluestein's chirp and its spectrum, scratch buffers), as a cuFFT plan does.
typedef struct fft_plan fft_plan;

typedef struct {
    cl_kernel_info info;
    // Plans `batch` transforms of n (in_place: in == out at run time). Returns NULL with
    // the reason in why (a static string) when the version does not do this n.
    fft_plan *(*plan)(int n, size_t batch, bool in_place, char *why, size_t why_len);
    // Device bytes the plan would allocate (checked against free memory first).
    size_t (*plan_bytes)(int n, size_t batch, bool in_place);
} fft_version;

extern const fft_version fft_versions[];
// The limits version k has on any GPU (v1 and yours: the O(n^2) bound on n, out of place
// only): false with the reason, so a run that names the version is refused before the
// device is opened. The others' limits depend on the GPU (their plans say).
bool fft_version_fits(int k, int n, bool in_place, char *why, size_t why_len);
extern const int fft_version_count;
extern const char fft_fastest_version[];

void fft_run(const fft_plan *plan, const fft_args *args, cudaStream_t stream);
void fft_plan_destroy(fft_plan *plan);
// How the plan does its n, for the ladder: "1 pass (radix 8 8 8 8)", "2 passes
// (1024 x 1024)", "Bluestein, 2048-point transforms", ...
const char *fft_plan_describe(const fft_plan *plan);
// Passes over the data in DRAM a call makes (kernels that read and write every point).
int fft_plan_passes(const fft_plan *plan);

// The direct transform (v1 and yours): O(n^2) work; longer n are left to the FFTs.
enum { FFT_DIRECT_MAX_N = 4096 };

// yours.cu: the learner's version, listed last as "yours" (v1's loop to start with).
extern const char fft_yours_idea[];
extern const int fft_yours_max_n; // longer n are left out (it starts as O(n^2) work)
void fft_yours(const fft_args *args, cudaStream_t stream);

// The peer: cuFFT, cufftPlanMany (C2C, batch) made before timing, cufftExecC2C.
typedef struct fft_peer fft_peer;
fft_peer *fft_peer_create(int n, size_t batch);
void fft_peer_run(fft_peer *peer, const fft_args *args);
void fft_peer_destroy(fft_peer *peer);

// The direct convolution on the GPU, beside the FFT one of --conv: out[i] = sum over the
// taps of the practical's window (see fft_convolve_gold); complex, n_signal outputs.
void fft_convolve_direct(const void *signal, int n_signal, const void *filter, int n_filter,
                         void *out, cudaStream_t stream);
// The practical's ComplexPointwiseMulAndScale: a[i] = a[i] * b[i] * scale, i < count.
void fft_pointwise_mul_scale(void *a, const void *b, size_t count, float scale,
                             cudaStream_t stream);

// --- gold.c: the CPU side ------------------------------------------------------------

// The suite's transform in double, any n: mixed radix (Stockham) for lengths whose prime
// factors are all at most 64, Bluestein's algorithm on a power of two for the others.
// `batch` transforms, in and out interleaved (re, im). OpenMP over the transforms, or
// inside one when it is long.
void fft_gold(int n, size_t batch, bool inverse, const float *in, double *out);
// The definition, O(n^2), in double with the exponent jk reduced mod n exactly: the check
// of the gold itself. One transform.
void fft_dft_direct(int n, bool inverse, const float *in, double *out);

// n's prime factors are all 2, 3, 5 or 7 (the radices the kernels have).
bool fft_is_smooth(long n);
// The smallest smooth length >= n.
long fft_next_smooth(long n);
// The largest prime factor of n (1 for n = 1).
long fft_largest_prime_factor(long n);

// The planner's arithmetic (factor.c). v7's stages of m: the fewest, each a radix of 2 ..
// 16 (a codelet each; 6, 10, 12, 14 and 15 made of two) or, when max_prime passes 16, a
// large radix up to max_prime (a prime 17 .. 31, or 18 20 21 22 24 26 28 30: two coprime
// codelets) or, in a length with a prime 37 .. 47, that prime (the HUGE kernels; no large
// radix beside it), and of those the radices with the least sum (the most even: 60 = 10 6
// rather than 15 4), largest first, into radix (FFT_STAGED_MAX_STAGES entries); returns how
// many, 0 when m has a prime factor above max_prime or m < 2. 10 stages: a radix's code is 6
// bits of a 64-bit word (staged.cu). v7's largest prime radix: lengths whose prime factors
// are at most it run direct.
// A length whose factors are at most 13 takes a large radix (18 .. 30) only where it saves one
// of four stages or more and its first stage busies half a block of FFT_STAGED_THREADS, the
// staged kernels' block (factor.c says why).
enum { FFT_STAGED_MAX_STAGES = 10, FFT_STAGED_MAX_PRIME = 47, FFT_STAGED_THREADS = 256 };
int fft_staged_radices(int m, int max_prime, unsigned char *radix);
// n split into `count` factors for passes, as even as the prime factors allow (each prime
// to the smallest product so far, largest primes first), into m; false when one passes
// max_m or n has a prime factor above max_prime (13, or v7's 47).
bool fft_split_passes(int n, int count, int max_m, int max_prime, int *m);
// Where v7's stages in place (decimation in frequency, radix[0] first) leave output k of
// an m-point transform: its digits k = k0 + r0 (k1 + r1 (k2 + ...)) reversed, k0 r1 r2 ...
// + k1 r2 ... + ...
int fft_dif_slot(const unsigned char *radix, int stages, int k);
// The layout of v7's whole-transform buffers (staged.cu), chosen by counting the shared
// memory wavefronts of each stage's first warps: the buffer before stage b (b = 0 ..
// stages; b = stages: after the last) holds point x of transform c (transforms a block)
// at slot c pitch[b] + x + pad[b] floor(x / G_b), G_b the product of the radices before
// stage b (pitch[b] = m + pad[b] m / G_b + a transform's extra slots). Returns the slots a
// buffer needs. read_first: the first stage reads buffer 0 (its points copied in);
// write_last: the last stage writes buffer `stages`.
int fft_staged_layout(int m, const unsigned char *radix, int stages, int transforms,
                      bool read_first, bool write_last, int *pad, int *pitch);

// The error an output may carry: |y_k - gold_k| <= fft_allowed_error(n) ||x||_2, x the
// transform's input (see the README: c log2(n) 2^-24, Bluestein's through its inner
// transforms' length).
double fft_allowed_error(int n);
// The transform's length Bluestein's algorithm uses for n (the next smooth length
// >= 2n - 1), and whether n goes through it (a prime factor above 7).
long fft_bluestein_length(int n);

// The Oxford practical's convolution (simpleCUFFT): a signal of n_signal samples and a
// filter of n_filter taps; the filter's centre tap is at n_filter / 2 (its "min radius").
// fft_conv_length: the transforms' length: n_signal + the filter's larger half, rounded
// up to a smooth length (50 and 11 give 56, the practical's own).
long fft_conv_length(int n_signal, int n_filter);
// Pads the signal (zeros after it) and the filter (its centre at 0, wrapped) to length
// `len`, as the practical's PadData does; complex, interleaved.
void fft_conv_pad(const float *signal, int n_signal, const float *filter, int n_filter, long len,
                  float *padded_signal, float *padded_filter);
// The host convolution of the practical (Convolve), in double.
void fft_convolve_gold(const float *signal, int n_signal, const float *filter, int n_filter,
                       double *out);
// The error each output of the convolution through transforms of length len may carry:
// (3 fft_allowed_error(len) + 2^-24) ||signal||_2 ||filter||_2 (gold.c says why); the
// inputs complex, interleaved.
double fft_conv_allowed_error(long len, const float *signal, int n_signal, const float *filter,
                              int n_filter);
// Relative L2 error of got against want, n complex values: ||got - want|| / ||want||.
double fft_rel_l2(const float *got, const double *want, size_t n);

#ifdef __cplusplus
}
#endif

#endif
