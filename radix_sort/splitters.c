// The arithmetic of radix_sort --gpus (multi_gpu.h): each GPU's share of the keys, the
// input's few values, the cuts that deal the locally sorted keys out so that GPU d
// receives exactly its range of the stable order (m2, m3), and m4's plans.
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "multi_gpu.h"

const char *const radix_input_names[] = {"uniform", "few", "sorted", "reversed", "zero", NULL};

radix_share radix_share_of(size_t n, int gpus, int r)
{
    const size_t base = n / gpus, extra = n % gpus, ur = (size_t)r;
    return (radix_share){ur * base + (ur < extra ? ur : extra), base + (ur < extra)};
}

void radix_few_values(uint64_t seed, uint32_t few[8])
{
    for (int j = 0; j < 8; j++)
        few[j] = (uint32_t)cl_rng_u64(cl_rng_key(seed, 1), j);
}

// Cut j (1 .. gpus-1) is at global rank T = share j's first: the keys before it in the
// order (masked key, rank, place) go to ranks below j. Its key k is the smallest with
// more than T keys at most k (a binary search over 0 .. 2^bits - 1, every cut's probe in
// one call of `bounds`); then the T - (keys below k) keys equal to k that precede the cut
// are the lowest ranks' first: rank r keeps below the cut its keys below k and
// min(its keys equal to k, what is left of them after ranks 0 .. r-1).
void radix_find_cuts(size_t n, int gpus, int bits, radix_bounds_fn bounds, void *ctx,
                     uint64_t *cuts)
{
    const int ncuts = gpus - 1, stride = gpus + 1;
    for (int r = 0; r < gpus; r++) {
        cuts[r * stride] = 0;
        cuts[r * stride + gpus] = radix_share_of(n, gpus, r).count;
    }
    if (ncuts == 0)
        return;
    uint64_t *lo = cl_host_alloc(ncuts * sizeof *lo, "cut search"),
             *hi = cl_host_alloc(ncuts * sizeof *hi, "cut search"),
             *target = cl_host_alloc(ncuts * sizeof *target, "cut search"),
             *lt = cl_host_alloc((size_t)gpus * ncuts * sizeof *lt, "cut search"),
             *le = cl_host_alloc((size_t)gpus * ncuts * sizeof *le, "cut search");
    uint32_t *probe = cl_host_alloc(ncuts * sizeof *probe, "cut search");
    for (int j = 0; j < ncuts; j++) {
        lo[j] = 0;
        hi[j] = bits == 32 ? 0xFFFFFFFFull : (1ull << bits) - 1;
        target[j] = radix_share_of(n, gpus, j + 1).first;
    }
    for (;;) {
        bool searching = false;
        for (int j = 0; j < ncuts; j++) {
            probe[j] = (uint32_t)(lo[j] + (hi[j] - lo[j]) / 2);
            searching = searching || lo[j] < hi[j];
        }
        if (!searching)
            break;
        bounds(ctx, probe, ncuts, lt, le);
        for (int j = 0; j < ncuts; j++) {
            uint64_t at_most = 0;
            for (int r = 0; r < gpus; r++)
                at_most += le[r * ncuts + j];
            if (lo[j] == hi[j])
                continue;
            if (at_most > target[j])
                hi[j] = probe[j];
            else
                lo[j] = (uint64_t)probe[j] + 1;
        }
    }
    bounds(ctx, probe, ncuts, lt, le); // probe[j] = lo[j]: the cut's key
    for (int j = 0; j < ncuts; j++) {
        uint64_t below = 0;
        for (int r = 0; r < gpus; r++)
            below += lt[r * ncuts + j];
        uint64_t equal_left = target[j] - below;
        for (int r = 0; r < gpus; r++) {
            const uint64_t equal = le[r * ncuts + j] - lt[r * ncuts + j];
            const uint64_t taken = equal < equal_left ? equal : equal_left;
            cuts[r * stride + j + 1] = lt[r * ncuts + j] + taken;
            equal_left -= taken;
        }
    }
    free(lo);
    free(hi);
    free(target);
    free(lt);
    free(le);
    free(probe);
}

// --- m3 -------------------------------------------------------------------------------

int radix_merge_plan(const size_t *run, int runs, radix_merge_step *steps, int *result)
{
    size_t len[CL_TEAM_MAX_GPUS];
    int nsteps = 0;
    memcpy(len, run, (size_t)runs * sizeof *len);
    *result = 0;
    for (; runs > 1; *result = 1 - *result) {
        size_t at = 0;
        int merged = 0;
        for (int q = 0; q < runs; q += 2) {
            const size_t second = q + 1 < runs ? len[q + 1] : 0, total = len[q] + second;
            steps[nsteps++] = (radix_merge_step){at, len[q], second, *result};
            len[merged++] = total; // after len[q] is read: merged <= q
            at += total;
        }
        runs = merged;
    }
    return nsteps;
}

// --- m4 -------------------------------------------------------------------------------

void radix_scatter_starts(const uint64_t *counts, int gpus, int rank, uint64_t lo,
                          unsigned long long starts[256])
{
    uint64_t at = lo;
    for (int d = 0; d < 256; d++) {
        uint64_t below = 0, total = 0;
        for (int g = 0; g < gpus; g++) {
            below += g < rank ? counts[g * 256 + d] : 0;
            total += counts[g * 256 + d];
        }
        starts[d] = at + below;
        at += total;
    }
}

int radix_runs_cut(const uint64_t *counts, int gpus, uint64_t lo, const uint64_t *first,
                   uint64_t *runs)
{
    int nruns = 0;
    uint64_t at = lo;
    for (int d = 0; d < 256; d++) {
        uint64_t total = 0;
        for (int g = 0; g < gpus; g++)
            total += counts[g * 256 + d];
        bool cut = false;
        for (int r = 1; r < gpus; r++)
            cut = cut || (first[r] > at && first[r] < at + total);
        if (cut) {
            runs[2 * nruns] = at;
            runs[2 * nruns + 1] = at + total;
            nruns++;
        }
        at += total;
    }
    return nruns;
}

void radix_segments(const uint64_t *counts, int gpus, const uint64_t *first, int rank,
                    cl_sort_segments *segments)
{
    const uint64_t lo = first[rank], hi = first[rank + 1];
    uint64_t at = 0;
    unsigned tiles = 0;
    for (int d = 0; d < 256; d++) {
        uint64_t total = 0;
        for (int g = 0; g < gpus; g++)
            total += counts[g * 256 + d];
        const uint64_t from = at < lo   ? lo
                              : at > hi ? hi
                                        : at,
                       to = at + total < lo   ? lo
                            : at + total > hi ? hi
                                              : at + total;
        segments->first[d] = (unsigned)(from - lo);
        segments->first_tile[d] = tiles;
        tiles += (unsigned)((to - from + CL_SORT_TILE - 1) / CL_SORT_TILE);
        at += total;
    }
    segments->first[256] = (unsigned)(hi - lo);
    segments->first_tile[256] = tiles;
}

void radix_portion(const uint64_t *first, int r, uint64_t lo, uint64_t hi, size_t *at, size_t *len)
{
    const uint64_t from = lo > first[r] ? lo : first[r], to = hi < first[r + 1] ? hi : first[r + 1];
    *at = (size_t)(from - first[r]);
    *len = to > from ? (size_t)(to - from) : 0;
}

void radix_chunk(size_t len, int chunks, int c, size_t tile, size_t *from, size_t *count)
{
    const size_t tiles = (len + tile - 1) / tile, per = (tiles + chunks - 1) / chunks * tile,
                 lo = (size_t)c * per;
    *from = lo < len ? lo : len;
    *count = lo + per < len ? lo + per - *from : len - *from;
}

void radix_chunk_starts(const unsigned (*counts)[256], int chunks,
                        unsigned long long (*starts)[256])
{
    for (int c = 1; c < chunks; c++)
        for (int d = 0; d < 256; d++)
            starts[c][d] = starts[c - 1][d] + counts[c - 1][d];
}

uint64_t radix_mirror_at(const uint64_t *first, int rank, int part)
{
    return first[part] - (part > rank ? first[rank + 1] - first[rank] : 0);
}

int radix_chunk_copies(const unsigned long long starts[256], const unsigned counts[256],
                       const uint64_t *first, int parts, int rank, radix_copy *copies)
{
    int n = 0;
    for (int q = 1; q < parts; q++) {
        const int p = (rank + q) % parts;
        for (int d = 0; d < 256; d++) {
            size_t at, len;
            radix_portion(first, p, starts[d], starts[d] + counts[d], &at, &len);
            if (len > 0)
                copies[n++] = (radix_copy){p, at, len};
        }
    }
    return n;
}
