// The suite's deterministic input generator (seeded by -S).
//
// Counter-based SplitMix64: value i of stream s under seed S is
//   cl_rng_u64(cl_rng_key(S, s), i) = mix(key + (i + 1) * 0x9E3779B97F4A7C15)
// where mix is Stafford's variant 13 finalizer as used by Vigna's splitmix64.c:
//   z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9; z = (z ^ (z >> 27)) * 0x94D049BB133111EB;
//   z ^ (z >> 31).
// So cl_rng_u64(K, 0), cl_rng_u64(K, 1), ... is exactly the output of splitmix64
// seeded with K (seed 0 starts 0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4). Any element
// can be computed alone, so fills are parallel and still identical on every run.
#ifndef CUDALAB_RNG_H
#define CUDALAB_RNG_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// Inline and callable from device code too (a kernel that fills its own slab of a
// grid gives the same values as the host), so one definition serves both.
#ifdef __CUDACC__
#define CL_RNG_FN static inline __host__ __device__
#else
#define CL_RNG_FN static inline
#endif
CL_RNG_FN uint64_t cl_rng_u64(uint64_t key, uint64_t index)
{
    uint64_t z = key + (index + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// The key of stream `stream` under `seed`: independent sequences for x and y, etc.
uint64_t cl_rng_key(uint64_t seed, uint64_t stream);

// Uniform in [0, 1): the top 24 bits scaled by 2^-24 (every value exact in float).
CL_RNG_FN float cl_rng_uniform_f32(uint64_t key, uint64_t index)
{
    return (float)(cl_rng_u64(key, index) >> 40) * 0x1.0p-24f;
}

// Uniform in [0, 1): the top 53 bits scaled by 2^-53.
double cl_rng_uniform_f64(uint64_t key, uint64_t index);

// In [0, bound): Lemire's multiply-shift of the top 32 bits (bias below 2^-32 * bound).
CL_RNG_FN uint32_t cl_rng_below(uint64_t key, uint64_t index, uint32_t bound)
{
    return (uint32_t)(((cl_rng_u64(key, index) >> 32) * (uint64_t)bound) >> 32);
}

// out[i] = lo + (hi - lo) * uniform(key, i), in parallel.
void cl_fill_uniform_f32(float *out, size_t n, uint64_t key, float lo, float hi);

// out[i] = below(key, i, bound), in parallel.
void cl_fill_below_i32(int32_t *out, size_t n, uint64_t key, uint32_t bound);

#ifdef __cplusplus
}
#endif

#endif
