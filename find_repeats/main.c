// find_repeats: all indices i with A[i] == A[i+1], ascending, and their count
// (SPEC §3), A[i] = rand % 10. Built from the suite's scan, then fused into it.
//
// Order of a run: options; input and gold; each selected version (or all) verified
// (count and every index) and timed on device-resident data, with
// cub::DeviceSelect::If beside them; --check prints the score table instead.
#include <stdlib.h>
#include <string.h>

#include "cudalab.h"
#include "find_repeats.h"

typedef struct {
    cl_common_args common;
    bool extended;
    bool example;
} options;

// SPEC §3's example: {1,2,2,1,1,1,3,5,3,3} -> {1,3,4,8}.
static const int32_t spec_example[] = {1, 2, 2, 1, 1, 1, 3, 5, 3, 3};

typedef struct {
    size_t n, count;
    int32_t *a, *gold;
} problem;

static problem make_problem(size_t n, uint64_t seed, bool example)
{
    if (example)
        n = sizeof spec_example / sizeof spec_example[0];
    problem p = {.n = n};
    p.a = cl_host_alloc(n * sizeof(int32_t), "A");
    p.gold = cl_host_alloc(n * sizeof(int32_t), "gold");
    if (example)
        memcpy(p.a, spec_example, sizeof spec_example);
    else
        cl_fill_below_i32(p.a, n, cl_rng_key(seed, 0), 10);
    p.count = find_repeats_gold(p.a, n, p.gold);
    return p;
}

static void free_problem(problem *p)
{
    free(p->a);
    free(p->gold);
}

typedef struct {
    size_t n;
    cl_rotating a, indices;
    int32_t *count;
    find_repeats_workspace *ws;
    find_repeats_launcher launch; // NULL: the peer
    find_repeats_peer *peer;
} timed_call;

static void run_call(void *ctx, int rep)
{
    const timed_call *t = ctx;
    const int32_t *a = cl_rotating_at(&t->a, rep);
    int32_t *indices = cl_rotating_at(&t->indices, rep);
    if (t->launch)
        t->launch(a, t->n, indices, t->count, t->ws, 0);
    else
        find_repeats_peer_run(t->peer, a, t->n, indices, t->count);
}

typedef struct {
    double ms;
    bool ok;
} measured;

// Poisons indices and count, runs once and checks the count and every index.
static measured measure(const problem *p, timed_call *call, const char *name, int iters,
                        int32_t *host_indices)
{
    cl_poison_device(call->indices.base, call->indices.pitch * call->indices.copies);
    cl_poison_device(call->count, sizeof(int32_t));
    run_call(call, 0);
    int32_t count;
    CL_CUDA_CHECK(cudaMemcpy(&count, call->count, sizeof count, cudaMemcpyDeviceToHost));
    int32_t want = (int32_t)p->count;
    cl_compare c = cl_compare_i32(&count, &want, 1);
    cl_compare_report(name, c); // the count
    if (c.ok && count > 0) {
        CL_CUDA_CHECK(cudaMemcpy(host_indices, call->indices.base, count * sizeof(int32_t),
                                 cudaMemcpyDeviceToHost));
        c = cl_compare_i32(host_indices, p->gold, (size_t)count);
        cl_compare_report(name, c); // the indices
    }
    measured m = {.ok = c.ok};
    m.ms = cl_time_gpu(run_call, call, iters).median_ms;
    return m;
}

static timed_call device_setup(const problem *p)
{
    size_t bytes = p->n * sizeof(int32_t);
    int copies = cl_rotation_count(bytes + p->count * sizeof(int32_t));
    cl_require_device_memory(2 * (bytes + 256) * copies + find_repeats_workspace_bytes(p->n) +
                                 bytes,
                             2 * sizeof(int32_t) * copies + 3 * sizeof(int32_t));
    timed_call call = {.n = p->n,
                       .a = cl_rotating_alloc(bytes, copies),
                       .indices = cl_rotating_alloc(bytes, copies)};
    cl_rotating_upload(&call.a, p->a, bytes);
    CL_CUDA_CHECK(cudaMalloc((void **)&call.count, sizeof(int32_t)));
    call.ws = find_repeats_workspace_create(p->n);
    call.peer = find_repeats_peer_create(p->n);
    return call;
}

static void device_free(timed_call *call)
{
    cl_rotating_free(&call->a);
    cl_rotating_free(&call->indices);
    CL_CUDA_CHECK(cudaFree(call->count));
    find_repeats_workspace_destroy(call->ws);
    find_repeats_peer_destroy(call->peer);
}

static bool run_versions(const problem *p, const options *opt, int32_t *host_indices)
{
    timed_call call = device_setup(p);
    cl_note("\n%zu elements of rand %% 10, %zu repeats; GB/s counts A read once and the "
            "indices written; timed over %d rotating copies",
            p->n, p->count, call.a.copies);
    cl_ladder ladder;
    cl_ladder_begin(&ladder, NULL, 0);
    double bytes = 4.0 * (p->n + p->count);
    // The peer first, so host_indices ends up holding the last version's output (--dump).
    measured ref = measure(p, &call, "cub::DeviceSelect::If", (int)opt->common.iters, host_indices);
    int first, last;
    cl_selected_versions(&opt->common, find_repeats_version_count, &first, &last);
    bool ok = true;
    for (int k = first; k <= last; k++) {
        const find_repeats_version *v = &find_repeats_versions[k];
        call.launch = v->launch;
        measured m = measure(p, &call, v->info.name, (int)opt->common.iters, host_indices);
        ok = ok && m.ok;
        cl_ladder_row(&ladder, v->info.name, k, p->n, bytes, m.ms, m.ok, NULL);
    }
    cl_ladder_peer(&ladder, "cub::DeviceSelect::If", p->n, bytes, ref.ms, ref.ok, NULL);
    device_free(&call);
    return ok && ref.ok;
}

static bool run_check_table(const options *opt)
{
    static const size_t sizes[] = {10000,    100000,   1000000,  2000000,
                                   10000000, 20000000, 40000000, 256000000};
    int nsizes = opt->extended ? 8 : 4;
    const find_repeats_version *best = &find_repeats_versions[find_repeats_fastest_version];
    cl_score_row rows[8];
    bool ok = true;
    for (int s = 0; s < nsizes; s++) {
        problem p = make_problem(sizes[s], (uint64_t)opt->common.seed, false);
        int32_t *host_indices = cl_host_alloc(p.n * sizeof(int32_t), "indices");
        timed_call call = device_setup(&p);
        measured ref =
            measure(&p, &call, "cub::DeviceSelect::If", (int)opt->common.iters, host_indices);
        call.launch = best->launch;
        measured mine = measure(&p, &call, best->info.name, (int)opt->common.iters, host_indices);
        rows[s] = cl_score_row_for(sizes[s], ref.ms, mine.ms, ref.ok && mine.ok, 1.25);
        ok = ok && rows[s].correct;
        device_free(&call);
        free(host_indices);
        free_problem(&p);
    }
    cl_note(
        "\nfind_repeats score table: Ref = cub::DeviceSelect::If, Your = %s, median times in ms",
        best->info.name);
    cl_score_table_print("Element Count", rows, nsizes);
    return ok;
}

int main(int argc, char **argv)
{
    options opt = {0};
    const cl_option own[] = {
        {0, "extended", CL_ARG_FLAG, &opt.extended, NULL,
         "--check also at 10M, 20M, 40M and 256M elements", 0, 0, NULL},
        {0, "example", CL_ARG_FLAG, &opt.example, NULL,
         "run on SPEC's example {1,2,2,1,1,1,3,5,3,3} (expects {1,3,4,8}) instead of -n", 0, 0,
         NULL},
        {0},
    };
    const cl_program prog = {
        .name = "find_repeats",
        .summary = "All indices i with A[i] == A[i+1], ascending, and their count: flags + "
                   "scan + scatter, then fused; cub::DeviceSelect::If as the peer.",
        .example = "find_repeats -n 16M -k all",
        .n_default = 16000000,
        .n_min = 1,
        .n_max = 2000000000,
        .n_meaning = "elements",
        .kernels = CL_KERNEL_LIST(find_repeats_versions, find_repeats_version_count,
                                  find_repeats_fastest_version),
        .options = own,
    };
    cl_parse_args_or_exit(&prog, argc, argv, &opt.common);
    cl_device_open((int)opt.common.device);
    if (opt.common.check)
        return run_check_table(&opt) ? CL_EXIT_OK : CL_EXIT_WRONG;

    cl_require_host_memory(12 * opt.common.n, 12);
    problem p = make_problem(opt.common.n, (uint64_t)opt.common.seed, opt.example);
    int32_t *indices = cl_host_alloc(p.n * sizeof(int32_t), "indices");
    bool ok = run_versions(&p, &opt, indices);
    if (opt.common.dump) {
        cl_dump_npy(opt.common.dump, "input", "<i4", p.a, sizeof(int32_t), 1, &p.n);
        cl_dump_npy(opt.common.dump, "output", "<i4", indices, sizeof(int32_t), 1, &p.count);
        cl_dump_npy(opt.common.dump, "gold", "<i4", p.gold, sizeof(int32_t), 1, &p.count);
    }
    free(indices);
    free_problem(&p);
    return ok ? CL_EXIT_OK : CL_EXIT_WRONG;
}
