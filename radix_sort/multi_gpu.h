// radix_sort --gpus N: a sort whose keys start spread over N GPUs and end there, GPU r
// holding the r-th range of the sorted sequence (multi_gpu.c, m4 in scatter.c, on
// common/team.h's team of GPUs); the arithmetic of the shares and the cuts (splitters.c,
// pure C, unit-tested on the CPU); the kernels they use (multi_gpu_kernels.cu).
#ifndef RADIX_SORT_MULTI_GPU_H
#define RADIX_SORT_MULTI_GPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#include "rng.h"
#include "sort.h"
#include "team.h"

#ifdef __cplusplus
extern "C" {
#endif

// --- the arithmetic (splitters.c) ------------------------------------------------------

// GPU r's share of n keys over `gpus`: the keys of global index first .. first+count-1,
// the first n % gpus shares one key more. The sort gives each GPU back as many keys as
// its share had, so GPU r's result is the range [first, first + count) of the sorted
// sequence.
typedef struct {
    size_t first, count;
} radix_share;
radix_share radix_share_of(size_t n, int gpus, int r);

// What the cut search asks of the team: for each of `nprobes` masked key values, how
// many keys each rank's sorted keys hold below it (lt) and at most it (le), every rank's
// counts, lt[r * nprobes + j] and le[r * nprobes + j].
typedef void (*radix_bounds_fn)(void *ctx, const uint32_t *probes, int nprobes, uint64_t *lt,
                                uint64_t *le);

// The cuts of a sorted exchange: with every rank's keys sorted (stable) by their low
// `bits` bits, cuts[r * (gpus + 1) + d] is where rank r's keys for rank d start (d = 0:
// 0; d = gpus: the share's count), so that rank d receives exactly the keys of global
// ranks [share d's first, + count) of the order (masked key, rank, place): the order of a
// stable sort of the whole input. A binary search on the key for each cut (at most `bits`
// rounds of `bounds`, every cut at once), then the keys equal to the cut's key dealt out
// in rank order.
void radix_find_cuts(size_t n, int gpus, int bits, radix_bounds_fn bounds, void *ctx,
                     uint64_t *cuts);

// m3's merge of `runs` sorted runs laid end to end (run[k] keys each, in rank order) in
// buffer 0, with a second buffer, 1: pairwise rounds, the left run first among equal
// keys (stable), each round reading the buffer the one before wrote. A step merges the
// runs of na and nb keys at `at` of buffer `from` into the other buffer (nb = 0: the odd
// run out, copied across); returns how many steps (at most 2 runs), in order, and in
// *result the buffer that holds the whole merge at the end (0 when there is one run).
typedef struct {
    size_t at, na, nb;
    int from;
} radix_merge_step;
int radix_merge_plan(const size_t *run, int runs, radix_merge_step *steps, int *result);

// m4's plans (common/sort.h's spread sort). A scatter over places [lo, hi) of the whole
// sequence, whose keys the GPUs hold in rank order (each its places of the range, in
// input order): counts[g * 256 + d] is rank g's keys of the scatter's digit d there.
// Where rank `rank`'s keys of each digit go: lo, plus every rank's keys of the smaller
// digits, plus the same digit's keys of the ranks below.
void radix_scatter_starts(const uint64_t *counts, int gpus, int rank, uint64_t lo,
                          unsigned long long starts[256]);
// The digits' runs of such a scatter that a boundary between GPUs (first[1] ..
// first[gpus - 1], first[] the shares' first places) cuts strictly inside: their keys
// lie in input order across the boundary, not split by value, and are refined by a
// scatter of the next digit over the run's places. Each run once, in order:
// runs[2 k] .. runs[2 k + 1] - 1; returns how many (at most gpus - 1).
int radix_runs_cut(const uint64_t *counts, int gpus, uint64_t lo, const uint64_t *first,
                   uint64_t *runs);
// Rank `rank`'s segments after the scatters (the first one's counts, over all places):
// the runs of each top digit among its places first[rank] .. first[rank + 1] - 1, as
// places in its part, and their tiles of CL_SORT_TILE keys.
void radix_segments(const uint64_t *counts, int gpus, const uint64_t *first, int rank,
                    cl_sort_segments *segments);

// Rank r's places among [lo, hi) of the whole sequence (first[] the parts' first places),
// as places in its part: [*at, *at + *len).
void radix_portion(const uint64_t *first, int r, uint64_t lo, uint64_t hi, size_t *at, size_t *len);
// m4's first scatter runs a rank's places in chunks (scatter.c: each chunk's keys for
// other ranks go on by copy engines while the next chunk's pass runs). Chunk c of
// `chunks` of len places: whole tiles of `tile` places (the sort's), [*from, *from +
// *count), the last maybe partial and late ones maybe empty.
void radix_chunk(size_t len, int chunks, int c, size_t tile, size_t *from, size_t *count);
// Where each chunk's keys of each digit go: starts[0] the rank's (radix_scatter_starts)
// on entry; chunk c's after chunk c - 1's counts[c - 1] keys of the digit.
void radix_chunk_starts(const unsigned (*counts)[256], int chunks,
                        unsigned long long (*starts)[256]);
// Rank `rank`'s mirror of the other parts' places: those of the parts below its own,
// then above, end to end; part p's place at (from its first) lies at radix_mirror_at(...,
// p) + at.
uint64_t radix_mirror_at(const uint64_t *first, int rank, int part);
// The copies that carry one chunk's keys from rank `rank`'s mirror to the parts holding
// their places: its keys of digit d hold places starts[d] .. + counts[d] (of the whole
// sequence); each such run's places on another part are one copy, of `count` keys from
// place `at` of part `part` (from its first). By part first, starting from the part after
// `rank`'s and wrapping, then by digit: with the parts' places in digit order, copies in
// digit order would have every GPU send to part 0 first, then part 1 (all of a GPU's
// senders on its one link while the others idle); rotated, each GPU receives from one
// sender at a time. Returns how many: at most 256 + parts - 1.
typedef struct {
    int part;
    uint64_t at, count;
} radix_copy;
int radix_chunk_copies(const unsigned long long starts[256], const unsigned counts[256],
                       const uint64_t *first, int parts, int rank, radix_copy *copies);

// --- the kernels (multi_gpu_kernels.cu), each enqueued on `stream` ----------------------

enum {
    RADIX_INPUT_UNIFORM,
    RADIX_INPUT_FEW,
    RADIX_INPUT_SORTED,
    RADIX_INPUT_REVERSED,
    RADIX_INPUT_ZERO
};
extern const char *const radix_input_names[]; // "uniform", ..., "zero", NULL

// Key i of an n-key input of kind `input` (the host's fill in main.c and the GPUs' below
// both call it): uniform from stream 0 of -S; few: one of 8 values drawn from stream 1
// (`few`); sorted and reversed: i spread over 0 .. 2^32 - 1; zero.
#ifdef __CUDACC__
__host__ __device__
#endif
    static inline uint32_t
    radix_input_key(int input, size_t i, size_t n, uint64_t key, const uint32_t *few)
{
    // floor(i 2^32 / n): 0 ... 2^32 - 1, ascending; in two halves of 16 bits so that no
    // product overflows for n < 2^48
    const uint64_t high = ((uint64_t)i << 16) / n, rest = ((uint64_t)i << 16) % n;
    const uint64_t rising = (high << 16) + (rest << 16) / n;
    switch (input) {
    case RADIX_INPUT_UNIFORM:
        return (uint32_t)cl_rng_u64(key, i);
    case RADIX_INPUT_FEW:
        return few[cl_rng_below(key, i, 8)];
    case RADIX_INPUT_SORTED:
        return (uint32_t)rising;
    case RADIX_INPUT_REVERSED:
        return (uint32_t)(0xFFFFFFFFu - rising);
    default:
        return 0;
    }
}
// The first place in keys[0..count) (sorted by key & mask) whose masked key is above
// `probe` (or at least it, when !or_equal): a binary search. The cut search's counts on
// the GPUs (radix_bounds) and in the unit tests.
#ifdef __CUDACC__
__host__ __device__
#endif
    static inline size_t
    radix_first_above(const uint32_t *keys, size_t count, uint32_t mask, uint32_t probe,
                      bool or_equal)
{
    size_t lo = 0, hi = count;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        const uint32_t k = keys[mid] & mask;
        if (k < probe || (or_equal && k == probe))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

// The merge path (Green, McColl & Bader 2012; Odeh et al. 2012), stable: the merge of
// sorted runs a[0..na) and b[0..nb) (by key & mask; a first among equal keys) splits at
// any output place `diag` into a[0..i) and b[0..diag-i); merge_split finds i by a binary
// search (the smallest i with a[i] above b[diag-1-i]), so each thread of a merge starts
// where its outputs start, without waiting for the others. merge_run then writes the
// `count` outputs from (i, j) to out[0..count) (values with them where av is not NULL).
// Host and device share them (the unit tests run them on the CPU).
#ifdef __CUDACC__
__host__ __device__
#endif
    static inline size_t
    merge_split(const uint32_t *a, size_t na, const uint32_t *b, size_t nb, size_t diag,
                uint32_t mask)
{
    size_t lo = diag > nb ? diag - nb : 0, hi = diag < na ? diag : na;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if ((a[mid] & mask) <= (b[diag - 1 - mid] & mask))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}
#ifdef __CUDACC__
__host__ __device__
#endif
    static inline void
    merge_run(const uint32_t *a, const uint32_t *av, size_t na, const uint32_t *b,
              const uint32_t *bv, size_t nb, size_t i, size_t j, size_t count, uint32_t mask,
              uint32_t *out, uint32_t *outv)
{
    for (size_t k = 0; k < count; k++) {
        const bool from_a = j >= nb || (i < na && (a[i] & mask) <= (b[j] & mask));
        out[k] = from_a ? a[i] : b[j];
        if (av)
            outv[k] = from_a ? av[i] : bv[j];
        i += from_a;
        j += !from_a;
    }
}

// The 8 values of the input `few` under `seed`.
void radix_few_values(uint64_t seed, uint32_t few[8]);

// Keys of global index first .. first+count-1 of an n-key input of kind `input` under
// `seed` (radix_input_key), so no host holds the whole input; with values != NULL,
// values[i] = the key's global index (stability shows).
void radix_fill_share(uint32_t *keys, uint32_t *values, size_t first, size_t count, size_t n,
                      int input, uint64_t seed, cudaStream_t stream);

// For each probe j, the count of keys[0..count) (sorted by key & mask) below probes[j] and
// at most it, into lt[j] and le[j] (device arrays).
void radix_bounds(const uint32_t *keys, size_t count, uint32_t mask, const uint32_t *probes,
                  int nprobes, unsigned long long *lt, unsigned long long *le, cudaStream_t stream);

// Merges the sorted runs in[at .. at+na) and in[at+na .. at+na+nb) into out[at ..)
// (values alike when values_in is not NULL), stable. `splits`: device scratch of
// radix_merge_splits(na + nb) entries.
size_t radix_merge_splits(size_t n);
void radix_merge(const uint32_t *keys_in, const uint32_t *values_in, uint32_t *keys_out,
                 uint32_t *values_out, size_t at, size_t na, size_t nb, uint32_t mask,
                 size_t *splits, cudaStream_t stream);

// What the check adds up (device, zeroed by the call): [0] the multiset hash, a sum over
// elements of a 64-bit mix of (key, value) that no order changes; [1] the positional
// hash, a sum of a mix of (first + i, key, value), equal for two sequences that are the
// same element for element; [2] the adjacent pairs out of order (key & mask descending,
// or with values, equal keys whose values, the global indices, descend: unstable).
enum {
    RADIX_DIGEST_MULTISET,
    RADIX_DIGEST_POSITIONAL,
    RADIX_DIGEST_DISORDERED,
    RADIX_DIGEST_WORDS
};
void radix_digest(const uint32_t *keys, const uint32_t *values, size_t count, size_t first,
                  uint32_t mask, unsigned long long *digest, cudaStream_t stream);

// --- the run (multi_gpu.c) -------------------------------------------------------------

enum {
    SPREAD_GATHER,
    SPREAD_SAMPLE,
    SPREAD_MERGE,
    SPREAD_SCATTER,
    SPREAD_COUNT,
    SPREAD_ALL = SPREAD_COUNT
};
extern const char *const radix_spread_names[]; // "m1-gather", ..., "all", NULL

typedef struct {
    size_t n;
    int gpus, bits, input, method, reps, watchdog_s;
    bool pairs;
    uint64_t seed;
    const char *id_file;
} radix_gpus_options;

// Runs the multi-GPU ladder and prints its table (rank 0); returns the exit code.
int radix_run_gpus(const radix_gpus_options *opt, cl_launch launch);

#ifdef __cplusplus
}
#endif

#endif
