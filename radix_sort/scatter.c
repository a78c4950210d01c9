// radix_sort --gpus N, m4-scatter: one radix sort across the GPUs, the most significant
// digit's pass first (common/sort.h's spread sort; README.md, "m4: one sort across the
// GPUs"). The team gathers every GPU's 256 counts of the top digit, which place every
// key in the whole sequence; the pass stores each key at its place, a place on another
// GPU in a local mirror of that GPU's places whose runs the copy engines carry over
// while the next chunk of the share is scattered (small shares: peer stores, the pass
// itself the exchange); a digit's run that a boundary between GPUs cuts is scattered
// again by the next digits; each GPU then sorts its keys by the lower digits within
// each run sharing the top one. The plans' arithmetic is splitters.c's, the team
// sort_team.h's.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cudalab.h"
#include "sort_team.h"

// m4's first scatter goes in chunks of a GPU's share, each chunk's pass storing the keys
// for other GPUs in a local mirror of their places, which copy engines then carry to
// them while the next chunk's pass runs (send_chunk below says why): up to 8 chunks
// (SCATTER_CHUNKS), as many as keep a chunk's run of one digit 2^18 keys (1 MB) long on
// average. (2 H200s, 2^30 keys: 8 chunks of 2^26 keys, 3.2 ms for the scatter; 12 and 16
// chunks, runs of 0.7 and 0.5 MB, 3.2-3.3 ms in one run and 5.2 in another; 4 chunks
// 3.6.) A share of fewer than 2^25 keys (runs under 512 KB) is scattered by peer stores,
// no mirror: a copy's fixed cost outweighs its gain there (2^26 keys on 2 GPUs: 1.30 ms
// either way; 2^24: copies 0.69 ms, peer stores 0.56).
enum { SCATTER_RUN_KEYS = 1 << 18, SCATTER_COPIES_FROM = 1 << 25 };

static int scatter_chunks(size_t share)
{
    const size_t chunks = share / (256 * (size_t)SCATTER_RUN_KEYS);
    return chunks < 1 ? 1 : chunks > SCATTER_CHUNKS ? SCATTER_CHUNKS : (int)chunks;
}

// m4's buffers on a GPU (common/sort.h): its inbox, where the first scatter stores its
// keys (values) so that the finish ends in its result, and the other of its result and
// its workspace's buffer, which the refining scatters use.
static uint32_t *inbox(const sort_team *t, share_gpu *s, bool values)
{
    return cl_sort_spread_inbox(s->ws, values ? s->sorted_values : s->sorted_keys, values,
                                t->opt->bits);
}

static uint32_t *other(const sort_team *t, share_gpu *s, bool values)
{
    uint32_t *out = values ? s->sorted_values : s->sorted_keys;
    return inbox(t, s, values) == out
               ? (values ? cl_sort_workspace_values(s->ws) : cl_sort_workspace_keys(s->ws))
               : out;
}

// A GPU's mirror of the other parts' places (m4's first scatter), where its share is
// long enough and its free memory holds one: the places of the parts below its own,
// then above, so that part p's place x lies at mirrored.keys[p] + (x - first[p]) as it
// would on part p.
static void mirror_open(sort_team *t, share_gpu *s)
{
    const int r = s->gpu->rank;
    const size_t places = t->opt->n - s->share.count,
                 bytes = places * sizeof(uint32_t) * (t->opt->pairs ? 2 : 1);
    s->mirrored = t->inboxes;
    CL_CUDA_CHECK(cudaSetDevice(s->gpu->device));
    if (places == 0 || s->share.count < SCATTER_COPIES_FROM ||
        !cl_team_device_fits(s->gpu->device, bytes))
        return;
    CL_CUDA_CHECK(cudaMalloc((void **)&s->mirror_keys, places * sizeof(uint32_t)));
    if (t->opt->pairs)
        CL_CUDA_CHECK(cudaMalloc((void **)&s->mirror_values, places * sizeof(uint32_t)));
    for (int p = 0; p < t->gpus; p++) {
        if (p == r)
            continue;
        const size_t at = (size_t)radix_mirror_at(t->first, r, p);
        s->mirrored.keys[p] = s->mirror_keys + at;
        s->mirrored.values[p] = s->mirror_values ? s->mirror_values + at : NULL;
    }
}

// m4's targets: every rank's inbox and other buffer as pointers this process's GPUs
// store to. One process: the buffers themselves, with peer access between every pair
// of GPUs (NVLink or PCIe, where the hardware allows it). One process a GPU: each rank's
// CUDA IPC handles of its buffers, gathered (cl_team_gather), opened by the others:
// GPUs of one host. Where any pair cannot reach the other, no rank runs m4 (all learn
// it from a sum). (Peer access is enabled when the team opens.)
void scatter_open(sort_team *t)
{
    const bool pairs = t->opt->pairs;
    const int kinds = pairs ? 4 : 2; // inbox keys, other keys, inbox values, other values
    for (int r = 0; r <= t->gpus; r++)
        t->first[r] = r < t->gpus ? radix_share_of(t->opt->n, t->gpus, r).first : t->opt->n;
    cl_sort_spread *targets[2] = {&t->inboxes, &t->others};
    for (int k = 0; k < 2; k++) {
        targets[k]->parts = t->gpus;
        for (int r = 0; r <= t->gpus; r++)
            targets[k]->first[r] = t->first[r];
    }
    unsigned long long unreachable = 0, all;
    if (!t->team.plan.multi_process) {
        for (int l = 0; l < t->team.plan.nlocal; l++)
            for (int m = 0; m < t->team.plan.nlocal; m++) {
                int can = 1;
                if (l != m)
                    CL_CUDA_CHECK(cudaDeviceCanAccessPeer(&can, t->local[l].gpu->device,
                                                          t->local[m].gpu->device));
                unreachable += !can;
            }
    }
    enum { WORDS = sizeof(cudaIpcMemHandle_t) / sizeof(unsigned long long) };
    const int per_rank = kinds * WORDS; // a rank's handles of its buffers, as counters
    unsigned long long *handles =
        t->team.plan.multi_process
            ? cl_host_alloc((size_t)t->gpus * per_rank * sizeof *handles, "IPC handles")
            : NULL;
    for (int l = 0; l < t->team.plan.nlocal; l++) {
        share_gpu *s = &t->local[l];
        const int r = s->gpu->rank;
        for (int k = 0; k < kinds; k++) {
            uint32_t *buffer = k % 2 ? other(t, s, k >= 2) : inbox(t, s, k >= 2);
            *(k >= 2 ? &targets[k % 2]->values[r] : &targets[k % 2]->keys[r]) = buffer;
            if (handles) {
                CL_CUDA_CHECK(cudaSetDevice(s->gpu->device));
                CL_CUDA_CHECK(cudaIpcGetMemHandle(
                    (cudaIpcMemHandle_t *)(handles + (size_t)r * per_rank + k * WORDS), buffer));
            }
        }
    }
    if (handles) {
        cl_team_gather(&t->team, handles, per_rank);
        CL_CUDA_CHECK(cudaSetDevice(t->local[0].gpu->device));
        for (int r = 0; r < t->gpus; r++)
            for (int k = 0; k < kinds && r != t->local[0].gpu->rank; k++) {
                cudaIpcMemHandle_t h;
                memcpy(&h, handles + (size_t)r * per_rank + k * WORDS, sizeof h);
                uint32_t **at = k >= 2 ? &targets[k % 2]->values[r] : &targets[k % 2]->keys[r];
                if (cudaIpcOpenMemHandle((void **)at, h, cudaIpcMemLazyEnablePeerAccess) !=
                    cudaSuccess) {
                    (void)cudaGetLastError();
                    unreachable++;
                    *at = NULL;
                    continue;
                }
                t->opened[t->nopened++] = *at;
            }
        free(handles);
    }
    cl_team_sum(&t->team, &unreachable, &all, 1);
    t->scatter_fits = all == 0;
    for (int l = 0; l < t->team.plan.nlocal; l++)
        mirror_open(t, &t->local[l]);
}

// The keys m4 scatters: the input share for the first scatter, else the inbox.
static const uint32_t *scatter_source(const sort_team *t, share_gpu *s, bool first, bool values)
{
    return first ? (values ? s->values : s->keys) : inbox(t, s, values);
}

// Every rank's 256 counts of pass p's digit over its places [lo, hi), gathered into
// counts[g * 256 + d] on every rank (cl_team_gather); each local GPU's counts of each
// of `chunks` chunks of its places in its chunk_counts.
static void team_counts(sort_team *t, bool first, uint64_t lo, uint64_t hi, int p, int chunks,
                        uint64_t *counts)
{
    for (int l = 0; l < t->team.plan.nlocal; l++) {
        share_gpu *s = &t->local[l];
        size_t at, len;
        radix_portion(t->first, s->gpu->rank, lo, hi, &at, &len);
        size_t from, per;
        radix_chunk(len, chunks, 0, CL_SORT_TILE, &from, &per);
        CL_CUDA_CHECK(cudaSetDevice(s->gpu->device));
        cl_sort_count_pass(scatter_source(t, s, first, false) + at, len, per > 0 ? per : 1, chunks,
                           t->opt->bits, p, s->digit_counts, s->gpu->compute);
    }
    cl_team_wait(&t->team);
    unsigned long long *all = cl_host_alloc((size_t)t->gpus * 256 * sizeof *all, "counts");
    for (int l = 0; l < t->team.plan.nlocal; l++) {
        share_gpu *s = &t->local[l];
        CL_CUDA_CHECK(cudaSetDevice(s->gpu->device));
        CL_CUDA_CHECK(cudaMemcpy(s->chunk_counts, s->digit_counts,
                                 (size_t)chunks * sizeof s->chunk_counts[0],
                                 cudaMemcpyDeviceToHost));
        for (int d = 0; d < 256; d++) {
            unsigned long long sum = 0;
            for (int c = 0; c < chunks; c++)
                sum += s->chunk_counts[c][d];
            all[(size_t)s->gpu->rank * 256 + d] = sum;
        }
    }
    cl_team_gather(&t->team, all, 256);
    for (size_t i = 0; i < (size_t)t->gpus * 256; i++)
        counts[i] = all[i];
    free(all);
}

// The keys (values) a chunk's pass left in this GPU's mirror, sent to the parts that
// hold their places by the copy engines, on the GPU's second stream once the pass is
// done: each digit's run of the chunk, cut at the parts' boundaries, one copy
// (radix_chunk_copies), keys and values, one batch. Why (2 H200s, 2^30 keys): stored by
// the pass itself, a tile's ~32 keys of a digit go over NVLink as small, unaligned
// writes (ncu: 1.9x the keys' bytes on the wire, the pass 4.8 ms where the link's rate
// allows ~2.8); a copy engine moves each run, megabytes long, at the link's rate,
// without the SMs, while the next chunk's pass runs.
static void send_chunk(sort_team *t, share_gpu *s, const unsigned long long starts[256],
                       const unsigned counts[256])
{
    radix_copy runs[256 + CL_TEAM_MAX_GPUS];
    const int nruns = radix_chunk_copies(starts, counts, t->first, t->gpus, s->gpu->rank, runs);
    void *to[2 * (256 + CL_TEAM_MAX_GPUS)];
    const void *from[2 * (256 + CL_TEAM_MAX_GPUS)];
    size_t bytes[2 * (256 + CL_TEAM_MAX_GPUS)], n = 0;
    for (int k = 0; k < nruns; k++) {
        const int p = runs[k].part;
        for (int v = 0; v < (t->opt->pairs ? 2 : 1); v++) {
            to[n] = (v ? t->inboxes.values[p] : t->inboxes.keys[p]) + runs[k].at;
            from[n] = (v ? s->mirrored.values[p] : s->mirrored.keys[p]) + runs[k].at;
            bytes[n++] = runs[k].count * sizeof(uint32_t);
        }
    }
    if (n == 0)
        return;
    struct cudaMemcpyAttributes attr = {.srcAccessOrder = cudaMemcpySrcAccessOrderStream,
                                        .flags = cudaMemcpyFlagPreferOverlapWithCompute};
    size_t attr_from = 0;
    CL_CUDA_CHECK(cudaMemcpyBatchAsync(to, from, bytes, n, &attr, &attr_from, 1, s->gpu->comm));
}

// A scatter of pass p over places [lo, hi) into `to` (every GPU), then a barrier: each
// GPU's keys are in place before any reads them. The first scatter (the input shares
// into the inboxes) runs each GPU's places in `chunks` passes (team_counts counted
// them), and where the GPU has a mirror its passes store there and send_chunk carries
// each chunk on; the barrier waits for both streams.
static void team_scatter(sort_team *t, bool first, uint64_t lo, uint64_t hi, int p, int chunks,
                         const uint64_t *counts, const cl_sort_spread *to)
{
    const bool pairs = t->opt->pairs;
    for (int l = 0; l < t->team.plan.nlocal; l++) {
        share_gpu *s = &t->local[l];
        radix_scatter_starts(counts, t->gpus, s->gpu->rank, lo, s->chunk_starts[0]);
        radix_chunk_starts(s->chunk_counts, chunks, s->chunk_starts);
        CL_CUDA_CHECK(cudaSetDevice(s->gpu->device));
        CL_CUDA_CHECK(cudaMemcpyAsync(s->starts, s->chunk_starts,
                                      (size_t)chunks * sizeof s->chunk_starts[0],
                                      cudaMemcpyHostToDevice, s->gpu->compute));
    }
    // Every GPU's passes first, chunk by chunk, then the copies, each after its chunk's
    // pass: one host thread driving several GPUs starts them all at once, and no wait of
    // the host for a copy's place in its stream can hold back another GPU's pass.
    for (int c = 0; c < chunks; c++)
        for (int l = 0; l < t->team.plan.nlocal; l++) {
            share_gpu *s = &t->local[l];
            size_t at, len, from, count;
            radix_portion(t->first, s->gpu->rank, lo, hi, &at, &len);
            radix_chunk(len, chunks, c, CL_SORT_TILE, &from, &count);
            CL_CUDA_CHECK(cudaSetDevice(s->gpu->device));
            cl_sort_spread_pass(scatter_source(t, s, first, false) + at + from,
                                pairs ? scatter_source(t, s, first, true) + at + from : NULL, count,
                                t->opt->bits, p, s->starts + (size_t)c * 256,
                                first ? &s->mirrored : to, s->ws, s->gpu->compute);
            if (first && s->mirror_keys)
                CL_CUDA_CHECK(cudaEventRecord(s->chunk_passed[c], s->gpu->compute));
        }
    for (int c = 0; c < chunks && first; c++)
        for (int l = 0; l < t->team.plan.nlocal; l++) {
            share_gpu *s = &t->local[l];
            if (!s->mirror_keys)
                continue;
            CL_CUDA_CHECK(cudaSetDevice(s->gpu->device));
            CL_CUDA_CHECK(cudaStreamWaitEvent(s->gpu->comm, s->chunk_passed[c], 0));
            send_chunk(t, s, s->chunk_starts[c], s->chunk_counts[c]);
        }
    cl_team_barrier(&t->team);
}

// m4 (common/sort.h's spread sort). The first scatter: the team gathers every GPU's 256
// counts of the top digit, which place every key in the whole sequence, and each GPU's
// pass of that digit stores its keys straight to their places, on whichever GPU holds
// them (peer stores over NVLink: the pass is the exchange). A digit's run that a
// boundary between GPUs cuts lies there in input order: scatters of the next digits over
// its places put its keys on the right side (radix_runs_cut; at the last digit the keys
// of a run are equal, and input order is their stable order). Then each GPU sorts what
// it holds, each run of a top digit on its own, by the lower digits. With `stage_ms`:
// the counts and their gathering with the refining scatters (under "cuts"), the first
// scatter ("exchange"), the sort after them ("sort / merge").
void scatter_stages(sort_team *t, double *stage_ms)
{
    const int top = (t->opt->bits + 7) / 8 - 1;
    const bool pairs = t->opt->pairs;
    uint64_t runs[2 * CL_TEAM_MAX_GPUS], next[2 * CL_TEAM_MAX_GPUS];
    uint64_t *counts = cl_host_alloc((size_t)t->gpus * 256 * sizeof *counts, "counts");
    double t0 = cl_wall_ms();
    const int chunks = scatter_chunks(radix_share_of(t->opt->n, t->gpus, 0).count);
    team_counts(t, true, 0, t->opt->n, top, chunks, t->top_counts);
    stage_done(t, stage_ms, STAGE_CUTS, &t0);
    team_scatter(t, true, 0, t->opt->n, top, chunks, t->top_counts, &t->inboxes);
    stage_done(t, stage_ms, STAGE_EXCHANGE, &t0);
    int nruns = radix_runs_cut(t->top_counts, t->gpus, 0, t->first, runs);
    for (int p = top - 1; p >= 0 && nruns > 0; p--) {
        int nnext = 0;
        for (int k = 0; k < nruns; k++) {
            const uint64_t lo = runs[2 * k], hi = runs[2 * k + 1];
            team_counts(t, false, lo, hi, p, 1, counts);
            team_scatter(t, false, lo, hi, p, 1, counts, &t->others);
            for (int l = 0; l < t->team.plan.nlocal; l++) { // back into the inbox
                share_gpu *s = &t->local[l];
                size_t at, len;
                radix_portion(t->first, s->gpu->rank, lo, hi, &at, &len);
                copy_range(s, inbox(t, s, false) + at, pairs ? inbox(t, s, true) + at : NULL,
                           other(t, s, false) + at, pairs ? other(t, s, true) + at : NULL, len);
            }
            nnext += radix_runs_cut(counts, t->gpus, lo, t->first, next + 2 * nnext);
        }
        nruns = nnext;
        memcpy(runs, next, 2 * (size_t)nnext * sizeof *runs);
    }
    stage_done(t, stage_ms, STAGE_CUTS, &t0);
    for (int l = 0; l < t->team.plan.nlocal; l++) {
        share_gpu *s = &t->local[l];
        cl_sort_segments segments;
        radix_segments(t->top_counts, t->gpus, t->first, s->gpu->rank, &segments);
        CL_CUDA_CHECK(cudaSetDevice(s->gpu->device));
        cl_sort_spread_finish(s->sorted_keys, pairs ? s->sorted_values : NULL, s->share.count,
                              t->opt->bits, &segments, s->ws, s->gpu->compute);
    }
    stage_done(t, stage_ms, STAGE_LAST, &t0);
    if (stage_ms)
        stage_ms[STAGE_LOCAL_SORT] = NAN;
    free(counts);
}

void scatter_sort(void *ctx) { scatter_stages(ctx, NULL); }
