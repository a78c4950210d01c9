// radix_sort --gpus N: a sort of keys (or key/value pairs) that start spread evenly over
// N GPUs and end there, GPU r holding the r-th range of the sorted sequence (every key
// on GPU r at most every key on GPU r + 1, pairs stable), as many keys as it started
// with. Each GPU makes its own share of the input (the suite's counter-based generator,
// so no host holds the whole input). The ladder is how the keys travel and meet:
//   m1-gather  every share to GPU 0 (ncclSend/ncclRecv), one sort there (the suite's v5,
//              common/sort.cu), each GPU's range sent back: the baseline, and the answer
//              while one GPU holds everything; one GPU's sort plus two trips of all the
//              keys over the links
//   m2-sample  each GPU sorts its share (v5); the cuts that give GPU d exactly its range
//              of the stable order are searched on the sorted shares (a binary search on
//              the key, every cut at once, a round a bit: each GPU counts its keys below
//              and at most each probe, the counts summed across the team; the keys equal
//              to a cut's key dealt out in rank order: radix_find_cuts); the ranges
//              exchanged with ncclSend/ncclRecv in one group; each GPU sorts what it
//              received again (v5, stable, so equal keys keep the order of their GPUs and
//              places)
//   m3-merge   m2 with the received runs, each sorted already, merged instead (the merge
//              path, pairwise rounds for more than two GPUs): one read and one write of
//              the keys where a sort makes five
//   m4-scatter one radix sort across the GPUs (common/sort.h's spread sort), the most
//              significant digit's pass first: the team gathers each GPU's 256 counts
//              of that digit, which place every key in the whole sequence (the keys of
//              smaller digits on every GPU, then the same digit's on lower ranks); the
//              pass stores each key at its place, a place on another GPU in a local
//              mirror of that GPU's places, whose runs copy engines carry over while
//              the next chunk of the share is scattered (small shares: peer stores,
//              the pass itself the exchange); a digit's run that a boundary between
//              GPUs cuts is scattered again by the next digits; each GPU then sorts its
//              keys by the lower digits within each run sharing the top one (v5's
//              passes by segment). No cut search, no merge, four passes
// Napkin (2^30 keys, 2 H200s, NVLink ~385 GB/s a direction): a GPU sorts its 2^29 keys
// in ~10 ms (v5 at ~55 Gkeys/s); m2 and m3 send half of each GPU's keys, 1 GB, ~2.8 ms
// (both directions at once); the cut search is ~32 rounds of a launch, two small copies
// and a sum, a few us each; m2's second sort ~10 ms again, m3's merge ~1 ms (4.3 GB of
// reads and writes); m4 ~10 ms of passes with 1 GB each way under one of them. One GPU
// sorts all 2^30 keys in ~19 ms. Measured (2 x H200, 2026-11-29): m3 22.5 ms, 0.85x, as
// its exchange takes 5.2 ms (~210 GB/s a direction), the cut search 2.5 ms and the merge
// 5.2 ms; m4 12.2 ms, 1.57x: its scatter 3.3 ms (with peer stores 4.8), its sort by
// segments 7.8. README.md says what bounds each and what comes next. m4's code is
// scatter.c; the team's shares and buffers, which both files use, sort_team.h.
// Verification without the whole input on one host: each GPU's result in order (and
// stable: values are the global indices), the boundaries between GPUs in order, each
// GPU's count its share's, a 64-bit hash of the multiset of (key, value) equal to the
// input's; and where one GPU holds the whole sort, a positional hash of every element
// and its place equal to the one-GPU sort's (the same sequence, element for element).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudalab.h"
#include "sort_team.h"

const char *const radix_spread_names[] = {"m1-gather",  "m2-sample", "m3-merge",
                                          "m4-scatter", "all",       NULL};

// The device bytes a sort of n keys on one GPU takes: input, output, the workspace.
static size_t one_sort_bytes(size_t n, bool pairs)
{
    return 2 * n * (pairs ? 2 : 1) * sizeof(uint32_t) + cl_sort_workspace_bytes(n, pairs);
}

// Whether `device` can sort all n keys itself: its free memory, and the sort's 32-bit
// counts.
static bool one_gpu_holds(int device, size_t n, bool pairs)
{
    return n <= CL_SORT_MAX_KEYS && cl_team_device_fits(device, one_sort_bytes(n, pairs));
}

static void share_open(share_gpu *s, cl_team_gpu *gpu, radix_share share, bool pairs)
{
    *s = (share_gpu){.gpu = gpu, .share = share};
    const size_t bytes = share.count * sizeof(uint32_t);
    CL_CUDA_CHECK(cudaSetDevice(gpu->device));
    cl_require_device_memory(one_sort_bytes(share.count, pairs), 0);
    CL_CUDA_CHECK(cudaMalloc((void **)&s->keys, bytes));
    CL_CUDA_CHECK(cudaMalloc((void **)&s->sorted_keys, bytes));
    if (pairs) {
        CL_CUDA_CHECK(cudaMalloc((void **)&s->values, bytes));
        CL_CUDA_CHECK(cudaMalloc((void **)&s->sorted_values, bytes));
    }
    s->ws = cl_sort_workspace_create(share.count, pairs);
    CL_CUDA_CHECK(cudaMalloc((void **)&s->merge_splits,
                             radix_merge_splits(share.count) * sizeof *s->merge_splits));
    CL_CUDA_CHECK(cudaMalloc((void **)&s->counts, 2 * CL_TEAM_MAX_GPUS * sizeof *s->counts));
    CL_CUDA_CHECK(cudaMalloc((void **)&s->digit_counts, SCATTER_CHUNKS * 256 * sizeof(unsigned)));
    CL_CUDA_CHECK(
        cudaMalloc((void **)&s->starts, SCATTER_CHUNKS * 256 * sizeof(unsigned long long)));
    for (int c = 0; c < SCATTER_CHUNKS; c++)
        CL_CUDA_CHECK(cudaEventCreateWithFlags(&s->chunk_passed[c], cudaEventDisableTiming));
}

static void share_close(share_gpu *s)
{
    CL_CUDA_CHECK(cudaSetDevice(s->gpu->device));
    CL_CUDA_CHECK(cudaFree(s->keys));
    CL_CUDA_CHECK(cudaFree(s->sorted_keys));
    CL_CUDA_CHECK(cudaFree(s->values));
    CL_CUDA_CHECK(cudaFree(s->sorted_values));
    CL_CUDA_CHECK(cudaFree(s->counts));
    CL_CUDA_CHECK(cudaFree(s->merge_splits));
    CL_CUDA_CHECK(cudaFree(s->digit_counts));
    CL_CUDA_CHECK(cudaFree(s->starts));
    CL_CUDA_CHECK(cudaFree(s->mirror_keys));
    CL_CUDA_CHECK(cudaFree(s->mirror_values));
    for (int c = 0; c < SCATTER_CHUNKS; c++)
        CL_CUDA_CHECK(cudaEventDestroy(s->chunk_passed[c]));
    cl_sort_workspace_destroy(s->ws);
}

// The shares of the team `plan` lays out, one a GPU.
static sort_team team_open(const radix_gpus_options *opt, const cl_team_plan *plan, size_t n)
{
    sort_team t = {.opt = opt,
                   .gpus = plan->gpus,
                   .mask = opt->bits == 32 ? 0xFFFFFFFFu : (1u << opt->bits) - 1};
    cl_team_open(&t.team, plan, opt->watchdog_s);
    t.local = cl_host_alloc(plan->nlocal * sizeof *t.local, "shares");
    for (int l = 0; l < plan->nlocal; l++)
        share_open(&t.local[l], &t.team.local[l], radix_share_of(n, t.gpus, t.team.local[l].rank),
                   opt->pairs);
    t.cuts = cl_host_alloc((size_t)t.gpus * (t.gpus + 1) * sizeof *t.cuts, "cuts");
    return t;
}

static void team_close(sort_team *t)
{
    if (t->nopened > 0)
        CL_CUDA_CHECK(cudaSetDevice(t->local[0].gpu->device));
    for (int i = 0; i < t->nopened; i++)
        CL_CUDA_CHECK(cudaIpcCloseMemHandle(t->opened[i]));
    for (int l = 0; l < t->team.plan.nlocal; l++)
        share_close(&t->local[l]);
    if (t->all_ws) {
        CL_CUDA_CHECK(cudaSetDevice(t->local[0].gpu->device));
        CL_CUDA_CHECK(cudaFree(t->all_keys));
        CL_CUDA_CHECK(cudaFree(t->all_values));
        CL_CUDA_CHECK(cudaFree(t->all_sorted_keys));
        CL_CUDA_CHECK(cudaFree(t->all_sorted_values));
        cl_sort_workspace_destroy(t->all_ws);
    }
    free(t->local);
    free(t->cuts);
    cl_team_close(&t->team);
}

// The local GPU of `rank`, NULL when another process drives it.
static share_gpu *local_of(sort_team *t, int rank)
{
    const int l = rank - t->team.plan.first_rank;
    return l >= 0 && l < t->team.plan.nlocal ? &t->local[l] : NULL;
}

// m1's buffers on GPU 0, where they fit beside its share; rank 0 decides, every rank
// learns it (a sum), so all take the same path.
static void gather_open(sort_team *t)
{
    const radix_gpus_options *opt = t->opt;
    share_gpu *zero = local_of(t, 0);
    unsigned long long fits = 0, all;
    if (zero && one_gpu_holds(zero->gpu->device, opt->n, opt->pairs)) {
        const size_t bytes = opt->n * sizeof(uint32_t);
        CL_CUDA_CHECK(cudaMalloc((void **)&t->all_keys, bytes));
        CL_CUDA_CHECK(cudaMalloc((void **)&t->all_sorted_keys, bytes));
        if (opt->pairs) {
            CL_CUDA_CHECK(cudaMalloc((void **)&t->all_values, bytes));
            CL_CUDA_CHECK(cudaMalloc((void **)&t->all_sorted_values, bytes));
        }
        t->all_ws = cl_sort_workspace_create(opt->n, opt->pairs);
        fits = 1;
    }
    cl_team_sum(&t->team, &fits, &all, 1);
    t->gather_fits = all == 1;
}

// Every GPU's share of the input made anew (not timed: each run starts from it).
static void make_input(void *ctx)
{
    sort_team *t = ctx;
    for (int l = 0; l < t->team.plan.nlocal; l++) {
        share_gpu *s = &t->local[l];
        CL_CUDA_CHECK(cudaSetDevice(s->gpu->device));
        radix_fill_share(s->keys, s->values, s->share.first, s->share.count, t->opt->n,
                         t->opt->input, t->opt->seed, s->gpu->compute);
    }
    cl_team_wait(&t->team);
}

// --- copies between GPUs (NCCL's point to point) and within one -------------------------------

#ifdef CL_HAVE_NCCL
static void send_range(sort_team *t, share_gpu *s, const uint32_t *keys, const uint32_t *values,
                       size_t count, int peer)
{
    CL_NCCL_CALL(&t->team, s->gpu->nccl,
                 ncclSend(keys, count, ncclUint32, peer, s->gpu->nccl, s->gpu->compute));
    if (values)
        CL_NCCL_CALL(&t->team, s->gpu->nccl,
                     ncclSend(values, count, ncclUint32, peer, s->gpu->nccl, s->gpu->compute));
}

static void recv_range(sort_team *t, share_gpu *s, uint32_t *keys, uint32_t *values, size_t count,
                       int peer)
{
    CL_NCCL_CALL(&t->team, s->gpu->nccl,
                 ncclRecv(keys, count, ncclUint32, peer, s->gpu->nccl, s->gpu->compute));
    if (values)
        CL_NCCL_CALL(&t->team, s->gpu->nccl,
                     ncclRecv(values, count, ncclUint32, peer, s->gpu->nccl, s->gpu->compute));
}

#else
// A build without NCCL refuses --gpus before any team is made (main.c).
#define send_range(...) cl_die(CL_EXIT_USAGE, "--gpus: this build has no NCCL")
#define recv_range(...) cl_die(CL_EXIT_USAGE, "--gpus: this build has no NCCL")
#endif

void copy_range(share_gpu *s, uint32_t *keys, uint32_t *values, const uint32_t *from_keys,
                const uint32_t *from_values, size_t count)
{
    const size_t bytes = count * sizeof(uint32_t);
    CL_CUDA_CHECK(cudaSetDevice(s->gpu->device));
    CL_CUDA_CHECK(
        cudaMemcpyAsync(keys, from_keys, bytes, cudaMemcpyDeviceToDevice, s->gpu->compute));
    if (values)
        CL_CUDA_CHECK(
            cudaMemcpyAsync(values, from_values, bytes, cudaMemcpyDeviceToDevice, s->gpu->compute));
}

// --- m1: gather, sort, scatter -------------------------------------------------------------------

static void sort_gathered(void *ctx)
{
    sort_team *t = ctx;
    const radix_gpus_options *opt = t->opt;
    share_gpu *zero = local_of(t, 0);
    uint32_t *all_values = opt->pairs ? t->all_values : NULL;
    uint32_t *all_sorted_values = opt->pairs ? t->all_sorted_values : NULL;
    if (zero)
        copy_range(zero, t->all_keys, all_values, zero->keys, zero->values, zero->share.count);
    cl_team_group_start(&t->team);
    for (int l = 0; l < t->team.plan.nlocal; l++) {
        share_gpu *s = &t->local[l];
        if (s->gpu->rank != 0)
            send_range(t, s, s->keys, s->values, s->share.count, 0);
        for (int r = 1; r < t->gpus && s->gpu->rank == 0; r++) {
            const radix_share from = radix_share_of(opt->n, t->gpus, r);
            recv_range(t, s, t->all_keys + from.first, all_values ? all_values + from.first : NULL,
                       from.count, r);
        }
    }
    cl_team_group_end(&t->team);
    if (zero) {
        CL_CUDA_CHECK(cudaSetDevice(zero->gpu->device));
        cl_radix_sort_u32(t->all_keys, all_values, t->all_sorted_keys, all_sorted_values, opt->n,
                          opt->bits, t->all_ws, zero->gpu->compute);
    }
    cl_team_group_start(&t->team);
    for (int l = 0; l < t->team.plan.nlocal; l++) {
        share_gpu *s = &t->local[l];
        if (s->gpu->rank != 0)
            recv_range(t, s, s->sorted_keys, s->sorted_values, s->share.count, 0);
        for (int r = 1; r < t->gpus && s->gpu->rank == 0; r++) {
            const radix_share to = radix_share_of(opt->n, t->gpus, r);
            send_range(t, s, t->all_sorted_keys + to.first,
                       all_sorted_values ? all_sorted_values + to.first : NULL, to.count, r);
        }
    }
    cl_team_group_end(&t->team);
    if (zero)
        copy_range(zero, zero->sorted_keys, zero->sorted_values, t->all_sorted_keys,
                   all_sorted_values, zero->share.count);
}

// --- m2: sort, cut, exchange, sort ------------------------------------------------------------

// The cut search's question to the team (radix_bounds_fn): every local GPU counts on its
// sorted share into its rank's slots; cl_team_gather fills the other ranks'.
static void team_bounds(void *ctx, const uint32_t *probes, int nprobes, uint64_t *lt, uint64_t *le)
{
    sort_team *t = ctx;
    // a rank's slots: its nprobes counts below each probe, then its counts up to each
    unsigned long long *all = cl_host_alloc((size_t)t->gpus * 2 * nprobes * sizeof *all, "bounds");
    for (int l = 0; l < t->team.plan.nlocal; l++) {
        share_gpu *s = &t->local[l];
        unsigned long long *mine = all + (size_t)s->gpu->rank * 2 * nprobes;
        CL_CUDA_CHECK(cudaSetDevice(s->gpu->device));
        radix_bounds(s->sorted_keys, s->share.count, t->mask, probes, nprobes, s->counts,
                     s->counts + CL_TEAM_MAX_GPUS, s->gpu->compute);
        CL_CUDA_CHECK(cudaMemcpyAsync(mine, s->counts, nprobes * sizeof *mine,
                                      cudaMemcpyDeviceToHost, s->gpu->compute));
        CL_CUDA_CHECK(cudaMemcpyAsync(mine + nprobes, s->counts + CL_TEAM_MAX_GPUS,
                                      nprobes * sizeof *mine, cudaMemcpyDeviceToHost,
                                      s->gpu->compute));
    }
    cl_team_wait(&t->team);
    cl_team_gather(&t->team, all, 2 * nprobes);
    for (int r = 0; r < t->gpus; r++)
        for (int i = 0; i < nprobes; i++) {
            lt[(size_t)r * nprobes + i] = all[((size_t)r * 2) * nprobes + i];
            le[(size_t)r * nprobes + i] = all[((size_t)r * 2 + 1) * nprobes + i];
        }
    free(all);
}

static uint64_t cut_at(const sort_team *t, int r, int d) { return t->cuts[r * (t->gpus + 1) + d]; }

// Each GPU's keys (its share, or m2's received runs) sorted into its result.
static void sort_shares(void *ctx)
{
    sort_team *t = ctx;
    const bool pairs = t->opt->pairs;
    for (int l = 0; l < t->team.plan.nlocal; l++) {
        share_gpu *s = &t->local[l];
        CL_CUDA_CHECK(cudaSetDevice(s->gpu->device));
        cl_radix_sort_u32(s->keys, pairs ? s->values : NULL, s->sorted_keys,
                          pairs ? s->sorted_values : NULL, s->share.count, t->opt->bits, s->ws,
                          s->gpu->compute);
    }
}

// Rank r's ranges to every rank and every rank's range to r, in one group: what rank r
// receives from rank `from` lands after what the ranks below `from` sent it, so its runs
// lie in rank order. Its range to itself is a copy, made first.
static void exchange_ranges(sort_team *t)
{
    const bool pairs = t->opt->pairs;
    for (int l = 0; l < t->team.plan.nlocal; l++) {
        share_gpu *s = &t->local[l];
        const int r = s->gpu->rank;
        size_t at = 0, own = 0;
        for (int from = 0; from < t->gpus; from++) {
            own = from == r ? at : own;
            at += cut_at(t, from, r + 1) - cut_at(t, from, r);
        }
        if (at != s->share.count)
            cl_die(CL_EXIT_CUDA, "rank %d: the cuts give it %zu keys, its share is %zu", r, at,
                   s->share.count);
        copy_range(s, s->keys + own, pairs ? s->values + own : NULL,
                   s->sorted_keys + cut_at(t, r, r),
                   pairs ? s->sorted_values + cut_at(t, r, r) : NULL,
                   cut_at(t, r, r + 1) - cut_at(t, r, r));
    }
    cl_team_group_start(&t->team);
    for (int l = 0; l < t->team.plan.nlocal; l++) {
        share_gpu *s = &t->local[l];
        const int r = s->gpu->rank;
        size_t at = 0;
        for (int peer = 0; peer < t->gpus; peer++) {
            const size_t in = cut_at(t, peer, r + 1) - cut_at(t, peer, r),
                         out = cut_at(t, r, peer + 1) - cut_at(t, r, peer);
            if (peer != r && in > 0)
                recv_range(t, s, s->keys + at, pairs ? s->values + at : NULL, in, peer);
            if (peer != r && out > 0)
                send_range(t, s, s->sorted_keys + cut_at(t, r, peer),
                           pairs ? s->sorted_values + cut_at(t, r, peer) : NULL, out, peer);
            at += in;
        }
    }
    cl_team_group_end(&t->team);
}

// m3: the runs a GPU received (in rank order, each sorted) merged in pairs, round after
// round (radix_merge_plan), between its two buffers; an odd run out is copied across.
// The last round's output is the result (a copy when it lands in the input buffer).
static void merge_received(sort_team *t)
{
    const bool pairs = t->opt->pairs;
    for (int l = 0; l < t->team.plan.nlocal; l++) {
        share_gpu *s = &t->local[l];
        const int r = s->gpu->rank;
        size_t run[CL_TEAM_MAX_GPUS];
        radix_merge_step steps[2 * CL_TEAM_MAX_GPUS];
        for (int from = 0; from < t->gpus; from++)
            run[from] = cut_at(t, from, r + 1) - cut_at(t, from, r);
        int result;
        const int nsteps = radix_merge_plan(run, t->gpus, steps, &result);
        uint32_t *keys[2] = {s->keys, s->sorted_keys},
                 *values[2] = {pairs ? s->values : NULL, pairs ? s->sorted_values : NULL};
        CL_CUDA_CHECK(cudaSetDevice(s->gpu->device));
        for (int k = 0; k < nsteps; k++) {
            const radix_merge_step *st = &steps[k];
            const int from = st->from, to = 1 - from;
            if (st->nb > 0)
                radix_merge(keys[from], values[from], keys[to], values[to], st->at, st->na, st->nb,
                            t->mask, s->merge_splits, s->gpu->compute);
            else
                copy_range(s, keys[to] + st->at, pairs ? values[to] + st->at : NULL,
                           keys[from] + st->at, pairs ? values[from] + st->at : NULL, st->na);
        }
        if (result != 1) // the merge ended in the input buffer
            copy_range(s, s->sorted_keys, values[1], keys[result], values[result], s->share.count);
    }
}

// --- the runs, stage by stage ------------------------------------------------------------------

void stage_done(sort_team *t, double *stage_ms, stage st, double *t0)
{
    if (!stage_ms)
        return;
    cl_team_barrier(&t->team);
    const double now = cl_wall_ms();
    stage_ms[st] += now - *t0;
    *t0 = now;
}

// m2 (the received runs sorted again) or m3 (merged), with a barrier and a clock reading
// after each stage when `stage_ms` is given.
static void sample_sort_stages(sort_team *t, bool merge, double *stage_ms)
{
    double t0 = cl_wall_ms();
    for (int st = 0; st < STAGE_COUNT; st++) {
        if (st == STAGE_LOCAL_SORT || (st == STAGE_LAST && !merge))
            sort_shares(t);
        else if (st == STAGE_CUTS)
            radix_find_cuts(t->opt->n, t->gpus, t->opt->bits, team_bounds, t, t->cuts);
        else if (st == STAGE_EXCHANGE)
            exchange_ranges(t);
        else
            merge_received(t);
        stage_done(t, stage_ms, (stage)st, &t0);
    }
}

static void sample_sort(void *ctx) { sample_sort_stages(ctx, false, NULL); }
static void sample_merge(void *ctx) { sample_sort_stages(ctx, true, NULL); }

// The ladder's runs, in the order of radix_spread_names.
static void (*const spread_runs[SPREAD_COUNT])(void *ctx) = {sort_gathered, sample_sort,
                                                             sample_merge, scatter_sort};

// --- verification ---------------------------------------------------------------------------

typedef struct {
    unsigned long long multiset, positional, disordered, misplaced; // summed over the team
} sort_digest;

enum { EDGE_FIRST_KEY, EDGE_FIRST_VALUE, EDGE_LAST_KEY, EDGE_LAST_VALUE, EDGE_WORDS };

// The digests of every GPU's keys (the input, or the result when `result`), summed over
// the team; for a result also its first and last elements, gathered, and the boundaries
// between GPUs checked: a key above its successor's on the next GPU, or equal with a
// later global index, counts as misplaced.
static sort_digest team_digest(sort_team *t, bool result)
{
    const radix_gpus_options *opt = t->opt;
    const int words = RADIX_DIGEST_WORDS + EDGE_WORDS * t->gpus;
    unsigned long long *mine = cl_host_alloc(words * sizeof *mine, "digest"),
                       *all = cl_host_alloc(words * sizeof *all, "digest");
    memset(mine, 0, words * sizeof *mine);
    for (int l = 0; l < t->team.plan.nlocal; l++) {
        share_gpu *s = &t->local[l];
        const uint32_t *keys = result ? s->sorted_keys : s->keys;
        const uint32_t *values = opt->pairs ? (result ? s->sorted_values : s->values) : NULL;
        unsigned long long part[RADIX_DIGEST_WORDS];
        uint32_t edge[EDGE_WORDS] = {0};
        CL_CUDA_CHECK(cudaSetDevice(s->gpu->device));
        if (result && l == 0) { // the check's own test: one key off by one
            const size_t fault = cl_fault_index(s->share.count);
            if (fault != SIZE_MAX) {
                uint32_t k;
                CL_CUDA_CHECK(cudaMemcpy(&k, s->sorted_keys + fault, 4, cudaMemcpyDeviceToHost));
                k += 1;
                CL_CUDA_CHECK(cudaMemcpy(s->sorted_keys + fault, &k, 4, cudaMemcpyHostToDevice));
            }
        }
        radix_digest(keys, values, s->share.count, s->share.first, t->mask, s->counts,
                     s->gpu->compute);
        CL_CUDA_CHECK(
            cudaMemcpyAsync(part, s->counts, sizeof part, cudaMemcpyDeviceToHost, s->gpu->compute));
        CL_CUDA_CHECK(cudaStreamSynchronize(s->gpu->compute));
        const size_t last = s->share.count - 1;
        if (result) {
            CL_CUDA_CHECK(cudaMemcpy(&edge[EDGE_FIRST_KEY], keys, 4, cudaMemcpyDeviceToHost));
            CL_CUDA_CHECK(cudaMemcpy(&edge[EDGE_LAST_KEY], keys + last, 4, cudaMemcpyDeviceToHost));
        }
        if (result && values) {
            CL_CUDA_CHECK(cudaMemcpy(&edge[EDGE_FIRST_VALUE], values, 4, cudaMemcpyDeviceToHost));
            CL_CUDA_CHECK(
                cudaMemcpy(&edge[EDGE_LAST_VALUE], values + last, 4, cudaMemcpyDeviceToHost));
        }
        for (int w = 0; w < RADIX_DIGEST_WORDS; w++)
            mine[w] += part[w];
        for (int e = 0; e < EDGE_WORDS; e++)
            mine[RADIX_DIGEST_WORDS + EDGE_WORDS * s->gpu->rank + e] = edge[e];
    }
    cl_team_sum(&t->team, mine, all, words);
    sort_digest d = {all[RADIX_DIGEST_MULTISET], all[RADIX_DIGEST_POSITIONAL],
                     all[RADIX_DIGEST_DISORDERED], 0};
    for (int r = 0; result && r + 1 < t->gpus; r++) {
        const unsigned long long *here = all + RADIX_DIGEST_WORDS + EDGE_WORDS * r,
                                 *next = here + EDGE_WORDS;
        const uint32_t last = (uint32_t)here[EDGE_LAST_KEY] & t->mask,
                       first = (uint32_t)next[EDGE_FIRST_KEY] & t->mask;
        d.misplaced += last > first || (opt->pairs && last == first &&
                                        here[EDGE_LAST_VALUE] > next[EDGE_FIRST_VALUE]);
    }
    free(mine);
    free(all);
    return d;
}

// --- the report -----------------------------------------------------------------------------

static const cl_column gpus_columns[] = {
    {"run", "run", 16, NULL},          {"gpus", "GPUs", 4, NULL},
    {"time_ms", "time ms", 9, "%.3f"}, {"gkeys_per_s", "Gkeys/s", 8, "%.2f"},
    {"speedup", "x 1 GPU", 7, "%.2f"}, {"weak_efficiency", "weak eff.", 9, "%.3f"},
    {"verified", "verified", 8, NULL},
};
static const cl_table gpus_table = {"gpus", gpus_columns, 7};

typedef struct {
    const radix_gpus_options *opt;
    double one_gpu_ms, one_share_ms; // the strong and weak baselines (NAN: not run)
    bool have_reference;             // the one-GPU sort's positional hash
    unsigned long long reference, input_multiset;
    char verdicts[2 + SPREAD_COUNT][320];
    int nverdicts;
} gpus_report;

static void print_row(const gpus_report *report, const char *name, int gpus, size_t n, double ms,
                      bool whole, cl_cell verified)
{
    cl_table_row(&gpus_table,
                 (cl_cell[]){CL_STR(name), CL_INT(gpus), CL_NUM(ms), CL_NUM(n / (ms * 1e-3) / 1e9),
                             CL_NUM(whole ? report->one_gpu_ms / ms : NAN),
                             CL_NUM(report->one_share_ms / ms), verified});
}

// A method's result against the input and the one-GPU sort; its line under the table.
static bool record_verdict(gpus_report *report, const char *name, sort_digest d)
{
    const bool positional = report->have_reference;
    const bool ok = d.multiset == report->input_multiset && d.disordered == 0 && d.misplaced == 0 &&
                    (!positional || d.positional == report->reference);
    snprintf(report->verdicts[report->nverdicts++], sizeof report->verdicts[0],
             "%s: %llu adjacent pairs out of order on a GPU, %llu between GPUs; multiset hash "
             "%016llx (input %016llx); positional hash %016llx (%s %016llx)%s",
             name, d.disordered, d.misplaced, d.multiset, report->input_multiset, d.positional,
             positional ? "one GPU's sort" : "no one-GPU sort to compare:", report->reference,
             ok ? "" : ": WRONG");
    return ok;
}

// Where m2's and m3's time goes: a run of each with a barrier after every stage (the
// sum is a little over the row's time: the barriers and their waits).
static void print_stages(double stage_ms[SPREAD_COUNT][STAGE_COUNT])
{
    static const cl_column columns[] = {
        {"run", "run", 16, NULL},
        {"local_sort_ms", "local sort ms", 13, "%.3f"},
        {"cut_search_ms", "cuts ms", 9, "%.3f"},
        {"exchange_ms", "exchange ms", 11, "%.3f"},
        {"last_ms", "sort / merge ms", 15, "%.3f"},
    };
    static const cl_table table = {"stages", columns, 5};
    bool header = false;
    for (int m = SPREAD_SAMPLE; m < SPREAD_COUNT; m++) {
        const double *ms = stage_ms[m];
        if (ms[STAGE_LOCAL_SORT] <= 0)
            continue;
        if (!header)
            cl_table_header(&table);
        header = true;
        cl_table_row(&table, (cl_cell[]){CL_STR(radix_spread_names[m]), CL_NUM(ms[0]),
                                         CL_NUM(ms[1]), CL_NUM(ms[2]), CL_NUM(ms[3])});
    }
    if (header)
        cl_note("cuts: m2 and m3 search them on the sorted shares; m4 gathers its counts of "
                "the top digit and refines the runs a boundary between GPUs cuts. m4's exchange "
                "is its pass of the top digit, storing each key on its GPU; then it sorts each "
                "GPU's keys by the lower digits");
}

// One GPU sorting n keys (the whole input, or share 0's count for the weak baseline):
// its time, its check, and for the whole input the positional hash of its result (the
// reference the team's results are compared with).
static bool one_gpu(gpus_report *report, const char *name, size_t n, int device, double *ms)
{
    radix_gpus_options one = *report->opt;
    one.n = n;
    const cl_team_plan plan = cl_team_plan_one(device);
    sort_team t = team_open(&one, &plan, n);
    make_input(&t);
    const sort_digest input = team_digest(&t, false);
    *ms = cl_team_time(&t.team, make_input, sort_shares, &t, one.reps);
    const sort_digest d = team_digest(&t, true);
    const bool whole = n == report->opt->n, ok = d.disordered == 0 && d.multiset == input.multiset;
    if (whole) {
        report->have_reference = ok;
        report->reference = d.positional;
    }
    print_row(report, name, 1, n, *ms, whole, CL_BOOL(ok));
    snprintf(report->verdicts[report->nverdicts++], sizeof report->verdicts[0],
             "%s: %llu adjacent pairs out of order; multiset hash %016llx (input %016llx)%s", name,
             d.disordered, d.multiset, input.multiset, ok ? "" : ": WRONG");
    team_close(&t);
    return ok;
}

int radix_run_gpus(const radix_gpus_options *opt, cl_launch launch)
{
    const cl_team_plan plan = cl_team_plan_for(opt->gpus, launch);
    const int device0 = plan.devices[0], gpus = plan.gpus;
    const size_t n = opt->n;
    const radix_share widest = radix_share_of(n, gpus, 0);
    cl_note("\n%zu keys (%s), %s, %d bits, spread over %d GPUs in shares of %zu-%zu; timed "
            "from every share made (not timed) to every GPU holding its sorted range",
            n, radix_input_names[opt->input], opt->pairs ? "key/value pairs" : "keys only",
            opt->bits, gpus, radix_share_of(n, gpus, gpus - 1).count, widest.count);

    // The baselines on this process's first GPU: the whole input where it fits (its
    // result the reference), and one share's worth of keys.
    gpus_report report = {.opt = opt, .one_gpu_ms = NAN, .one_share_ms = NAN};
    bool ok = true;
    cl_team_print_setup(&plan);
    cl_table_header(&gpus_table);
    if (one_gpu_holds(device0, n, opt->pairs)) {
        ok = one_gpu(&report, "1 GPU", n, device0, &report.one_gpu_ms);
    } else {
        char need[32];
        cl_note("1 GPU: the whole sort needs %s (GPU %d's free memory and at most %u keys): no "
                "one-GPU row",
                cl_format_bytes((double)one_sort_bytes(n, opt->pairs), need, sizeof need), device0,
                CL_SORT_MAX_KEYS);
    }
    ok = one_gpu(&report, "1 GPU, a share", widest.count, device0, &report.one_share_ms) && ok;

    sort_team t = team_open(opt, &plan, n);
    // m4's peer stores (one process): access enabled before NCCL's, which then finds it so
    cl_team_enable_peers(&t.team, plan.nlocal);
    cl_team_nccl_open(&t.team, opt->id_file);
    make_input(&t);
    report.input_multiset = team_digest(&t, false).multiset;
    if (opt->method == SPREAD_GATHER || opt->method == SPREAD_ALL)
        gather_open(&t);
    if (opt->method == SPREAD_SCATTER || opt->method == SPREAD_ALL)
        scatter_open(&t);
    double stage_ms[SPREAD_COUNT][STAGE_COUNT] = {{0}};
    for (int m = 0; m < SPREAD_COUNT; m++) {
        if (opt->method != SPREAD_ALL && opt->method != m)
            continue;
        if (m == SPREAD_GATHER && !t.gather_fits) {
            cl_note("%s: GPU 0 cannot hold the whole sort beside its share: no row",
                    radix_spread_names[m]);
            continue;
        }
        if (m == SPREAD_SCATTER && !t.scatter_fits) {
            cl_note("%s: a GPU cannot store to another's memory (no peer access, or not one "
                    "host): no row",
                    radix_spread_names[m]);
            continue;
        }
        const double ms = cl_team_time(&t.team, make_input, spread_runs[m], &t, opt->reps);
        const bool verified = record_verdict(&report, radix_spread_names[m], team_digest(&t, true));
        print_row(&report, radix_spread_names[m], gpus, n, ms, true, CL_BOOL(verified));
        ok = verified && ok;
        if (m != SPREAD_GATHER) { // where the time goes: a run with a barrier after each stage
            make_input(&t);
            cl_team_barrier(&t.team);
            if (m == SPREAD_SCATTER)
                scatter_stages(&t, stage_ms[m]);
            else
                sample_sort_stages(&t, m == SPREAD_MERGE, stage_ms[m]);
        }
    }
    cl_note("\nx 1 GPU: 1 GPU's time for the whole sort / run's; weak eff.: 1 GPU, a share (the "
            "same keys a GPU) / run");
    print_stages(stage_ms);
    for (int v = 0; v < report.nverdicts; v++)
        cl_note("%s", report.verdicts[v]);
    team_close(&t);
    return ok ? CL_EXIT_OK : CL_EXIT_WRONG;
}
