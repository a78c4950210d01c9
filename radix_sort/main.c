// radix_sort: a stable LSD radix sort of 32-bit unsigned keys (and key/value pairs), the
// multi-block sort the Oxford practical 8 stops short of, raced against CUB.
//
// Order of a run: options; the input (a distribution of -S's generator) and the gold
// (a CPU radix sort); each selected version (or all) run once, every key (and value)
// compared with the gold, then timed with cub::DeviceRadixSort beside them, every repeat
// sorting the next of several copies of the unsorted input (so the L2 cache has not just
// seen it); --check prints the score table instead.
#include <stdlib.h>
#include <string.h>

#include "cudalab.h"
#include "multi_gpu.h"
#include "radix_sort.h"
#include "sort.h"

// -n: one GPU sorts at most 2^30 keys here (the CPU sorts them too, to check: 8 words of
// host memory a key); across GPUs, each GPU's share at most what the sort takes
// (CL_SORT_MAX_KEYS), up to 64 GPUs.
#define ONE_GPU_MAX_KEYS (1u << 30)
#define GPUS_MAX_KEYS (1ull << 38)

typedef struct {
    cl_common_args common;
    bool pairs;
    long bits;
    int input, method;
    cl_team_args team; // --gpus, --nccl-id-file, --watchdog
} options;

static const char *peer_name(bool pairs)
{
    return pairs ? "cub::DeviceRadixSort::SortPairs" : "cub::DeviceRadixSort::SortKeys";
}

// --- the input and its gold ---------------------------------------------------------------------

typedef struct {
    size_t n;
    int bits;
    bool pairs;
    uint32_t *keys, *values;           // values: the original indices (pairs only)
    uint32_t *gold_keys, *gold_values; // sorted on the CPU
    double gold_ms;
} problem;

static void fill_keys(uint32_t *keys, size_t n, int input, uint64_t seed)
{
    const uint64_t key = cl_rng_key(seed, 0);
    uint32_t few[8];
    radix_few_values(seed, few);
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++)
        keys[i] = radix_input_key(input, i, n, key, few);
}

static problem make_problem(size_t n, const options *opt)
{
    problem p = {.n = n, .bits = (int)opt->bits, .pairs = opt->pairs};
    const size_t bytes = n * sizeof(uint32_t);
    p.keys = cl_host_alloc(bytes, "keys");
    p.gold_keys = cl_host_alloc(bytes, "gold keys");
    fill_keys(p.keys, n, opt->input, (uint64_t)opt->common.seed);
    memcpy(p.gold_keys, p.keys, bytes);
    if (p.pairs) {
        p.values = cl_host_alloc(bytes, "values");
        p.gold_values = cl_host_alloc(bytes, "gold values");
        for (size_t i = 0; i < n; i++)
            p.values[i] = (uint32_t)i;
        memcpy(p.gold_values, p.values, bytes);
    }
    uint32_t *scratch_keys = cl_host_alloc(bytes, "gold scratch");
    uint32_t *scratch_values = p.pairs ? cl_host_alloc(bytes, "gold scratch") : NULL;
    double t0 = cl_wall_ms();
    radix_gold(p.gold_keys, p.gold_values, n, p.bits, scratch_keys, scratch_values);
    p.gold_ms = cl_wall_ms() - t0;
    free(scratch_keys);
    free(scratch_values);
    return p;
}

static void free_problem(problem *p)
{
    free(p->keys);
    free(p->values);
    free(p->gold_keys);
    free(p->gold_values);
}

// The bytes any 8-bit LSD sort of these keys must move, which GB/s and % of copy
// count: the histogram's read of the keys (4n), then each of the P = ceil(bits / 8)
// passes reads and writes every key (8n), and every value (8n more).
static double sort_bytes(size_t n, int bits, bool pairs)
{
    const int passes = (bits + 7) / 8;
    return 4.0 * n + passes * (pairs ? 16.0 : 8.0) * n;
}

// --- one version: verify once, then time ------------------------------------------------------

typedef struct {
    const problem *p;
    cl_rotating keys_in, values_in;    // device: copies of the input, one a repeat in turn
    uint32_t *keys_out, *values_out;   // device
    uint32_t *host_keys, *host_values; // the last verified output
    radix_workspace *ws;
    radix_peer *peer;
    radix_launcher launch; // NULL: the peer
    int iters;
} timed_call;

static void run_call(void *ctx, int rep)
{
    const timed_call *t = ctx;
    const problem *p = t->p;
    const uint32_t *keys_in = cl_rotating_at(&t->keys_in, rep);
    const uint32_t *values_in = p->pairs ? cl_rotating_at(&t->values_in, rep) : NULL;
    if (t->launch)
        t->launch(keys_in, values_in, t->keys_out, t->values_out, p->n, p->bits, t->ws, 0);
    else
        radix_peer_run(t->peer, keys_in, values_in, t->keys_out, t->values_out, p->n, p->bits);
}

static cl_measured measure_version(void *ctx, int k, cl_cell *extra)
{
    timed_call *call = ctx;
    const problem *p = call->p;
    const size_t bytes = p->n * sizeof(uint32_t);
    const char *name = k == CL_PEER ? peer_name(p->pairs) : radix_versions[k].info.name;
    if (k != CL_PEER && p->n > radix_versions[k].max_n) {
        cl_note("%s sorts at most %zu keys: no row at -n %zu", name, radix_versions[k].max_n, p->n);
        return (cl_measured){.skipped = true};
    }
    call->launch = k == CL_PEER ? NULL : radix_versions[k].launch;
    cl_poison_device(call->keys_out, bytes);
    if (p->pairs)
        cl_poison_device(call->values_out, bytes);
    run_call(call, 0);
    CL_CUDA_CHECK(cudaMemcpy(call->host_keys, call->keys_out, bytes, cudaMemcpyDeviceToHost));
    cl_compare c = cl_compare_u32(call->host_keys, p->gold_keys, p->n);
    cl_compare_report(name, c);
    if (c.ok && p->pairs) { // values are the original indices: equal to the gold's iff stable
        CL_CUDA_CHECK(
            cudaMemcpy(call->host_values, call->values_out, bytes, cudaMemcpyDeviceToHost));
        c = cl_compare_u32(call->host_values, p->gold_values, p->n);
        cl_compare_report(name, c);
    }
    double ms = cl_time_gpu(run_call, call, call->iters).median_ms;
    if (extra)
        extra[0] = CL_NUM(p->n / (ms * 1e-3) / 1e9);
    return (cl_measured){.ms = ms, .ok = c.ok};
}

static size_t device_bytes_per_key(bool pairs, int copies)
{
    // the input's copies, out, the workspace's alternate buffer, CUB's (about as much
    // again), scratch.
    return (pairs ? 2 : 1) * (copies + 3) * sizeof(uint32_t) + sizeof(int32_t) + 1;
}

static timed_call device_setup(const problem *p, int iters)
{
    const size_t bytes = p->n * sizeof(uint32_t);
    // The sort reads its input and never writes it, so copies of the input are enough:
    // as many as make 3x the L2 size (1M keys: 38 copies on a 50 MB L2; 64M and up: 1).
    const int copies = cl_rotation_count((p->pairs ? 2 : 1) * bytes);
    const size_t per_key = device_bytes_per_key(p->pairs, copies);
    cl_require_device_memory(p->n * per_key + 2 * 256 * (size_t)copies, per_key);
    timed_call call = {.p = p, .iters = iters, .keys_in = cl_rotating_alloc(bytes, copies)};
    CL_CUDA_CHECK(cudaMalloc((void **)&call.keys_out, bytes));
    cl_rotating_upload(&call.keys_in, p->keys, bytes);
    if (p->pairs) {
        call.values_in = cl_rotating_alloc(bytes, copies);
        CL_CUDA_CHECK(cudaMalloc((void **)&call.values_out, bytes));
        cl_rotating_upload(&call.values_in, p->values, bytes);
        call.host_values = cl_host_alloc(bytes, "result values");
    }
    call.host_keys = cl_host_alloc(bytes, "result keys");
    call.ws = radix_workspace_create(p->n, p->pairs);
    call.peer = radix_peer_create(p->n, p->pairs);
    return call;
}

static void device_free(timed_call *call)
{
    cl_rotating_free(&call->keys_in);
    CL_CUDA_CHECK(cudaFree(call->keys_out));
    cl_rotating_free(&call->values_in); // cudaFree(NULL) without --pairs: nothing
    CL_CUDA_CHECK(cudaFree(call->values_out));
    free(call->host_keys);
    free(call->host_values);
    radix_workspace_destroy(call->ws);
    radix_peer_destroy(call->peer);
}

static cl_kernel_list versions(void)
{
    return CL_KERNEL_LIST(radix_versions, radix_version_count, radix_fastest_version);
}

static const cl_column rate_column[] = {{"gkeys_per_s", "Gkeys/s", 8, "%.2f"}};

// --- --check ------------------------------------------------------------------------------------

static cl_check_point measure_size(void *ctx, size_t n, int k)
{
    const options *opt = ctx;
    problem p = make_problem(n, opt);
    timed_call call = device_setup(&p, (int)opt->common.iters);
    const double bytes = sort_bytes(n, p.bits, p.pairs);
    cl_check_point point = cl_check_pair(measure_version, &call, k, bytes);
    device_free(&call);
    free_problem(&p);
    return point;
}

static bool run_check_table(const options *opt)
{
    static const size_t sizes[] = {1u << 20, 4u << 20, 16u << 20, 64u << 20, 256u << 20};
    return cl_run_check_table(&opt->common, versions(), peer_name(opt->pairs), sizes, 5, 1.0,
                              measure_size, (void *)opt);
}

// --gpus N > 1: the options that apply, then multi_gpu.c's ladder. Under a launcher
// that starts one process a GPU (its variables set), N must be its process count.
static int run_gpus(const options *opt)
{
    const long gpus = opt->team.gpus;
    if (opt->common.kernel || opt->common.check || opt->common.dump || opt->common.device)
        cl_die(CL_EXIT_USAGE, "--gpus runs v5 on each of GPUs 0..N-1 and prints its own table: "
                              "-k, -d, --check and --dump do not apply");
    if (opt->common.n < (size_t)gpus)
        cl_die(CL_EXIT_USAGE, "--gpus %ld: -n %zu keys cannot give each GPU one", gpus,
               opt->common.n);
    const size_t widest = radix_share_of(opt->common.n, (int)gpus, 0).count;
    if (widest > CL_SORT_MAX_KEYS)
        cl_die(CL_EXIT_USAGE, "--gpus %ld: -n %zu gives a GPU %zu keys; the sort takes at most %u",
               gpus, opt->common.n, widest, CL_SORT_MAX_KEYS);
    if (opt->pairs && opt->common.n > (size_t)CL_SORT_MAX_KEYS + 1)
        cl_die(CL_EXIT_USAGE,
               "--gpus %ld --pairs: -n %zu; at most 2^32 pairs (the values are "
               "the keys' 32-bit global indices)",
               gpus, opt->common.n);
    if (opt->common.iters > 64)
        cl_die(CL_EXIT_USAGE, "--gpus: -i %ld: at most 64 timed runs", opt->common.iters);
    const cl_launch launch = cl_team_launch(&opt->team);
    const radix_gpus_options o = {
        .n = opt->common.n,
        .gpus = (int)gpus,
        .bits = (int)opt->bits,
        .input = opt->input,
        .method = opt->method >= 0 ? opt->method : SPREAD_ALL,
        .reps = opt->common.iters ? (int)opt->common.iters : 10,
        .watchdog_s = (int)opt->team.watchdog_s,
        .pairs = opt->pairs,
        .seed = (uint64_t)opt->common.seed,
        .id_file = opt->team.id_file,
    };
    return radix_run_gpus(&o, launch);
}

static int run(int argc, char **argv)
{
    options opt = {.bits = 32, .method = -1, .team = CL_TEAM_ARGS_DEFAULT};
    const cl_option own[] = {
        {0, "pairs", CL_ARG_FLAG, &opt.pairs, NULL,
         "sort key/value pairs, the values being the keys' original indices (stability shows)", 0,
         0, NULL},
        {0, "bits", CL_ARG_INT, &opt.bits, "B", "sort on the low B bits only (fewer passes)", 1, 32,
         NULL},
        {0, "input", CL_ARG_CHOICE, &opt.input, "KIND",
         "uniform: random 32-bit keys from -S; few: 8 distinct values; sorted; reversed; zero: "
         "all equal",
         0, 0, radix_input_names},
        CL_TEAM_OPTIONS(opt.team, "keys spread over N GPUs, sorted so GPU r holds the r-th "
                                  "range (needs NCCL; see README.md)"),
        {0, "method", CL_ARG_CHOICE, &opt.method, "HOW",
         "with --gpus: m1-gather (sort on GPU 0), m2-sample (sort, cut, exchange, sort), "
         "m3-merge (sort, cut, exchange, merge), m4-scatter (the last radix pass stores each "
         "key on its GPU) or all (default)",
         0, 0, radix_spread_names},
        {0},
    };
    const cl_program prog = {
        .name = "radix_sort",
        .summary = "Stable LSD radix sort of 32-bit keys (and pairs): from a one-warp ballot "
                   "sort to a one-sweep sort; cub::DeviceRadixSort as the peer.",
        .example = "radix_sort -n 64M -k all --pairs",
        .n_default = 16u << 20,
        .n_min = 1,
        .n_max = GPUS_MAX_KEYS,
        .n_meaning = "keys",
        .n_column = "keys",
        .kernels = versions(),
        .options = own,
    };
    cl_parse_args_or_exit(&prog, argc, argv, &opt.common);
    if (opt.team.gpus > 1)
        return run_gpus(&opt);
    if (opt.method >= 0 || opt.team.id_file || cl_option_given(&opt.team.watchdog_s))
        cl_die(CL_EXIT_USAGE,
               "--method, --nccl-id-file and --watchdog apply with --gpus N, N >= 2");
    if (opt.common.n > ONE_GPU_MAX_KEYS)
        cl_die(CL_EXIT_USAGE,
               "-n %zu: at most 1Gi keys on one GPU (the CPU sorts them too, to "
               "check); --gpus N sorts more",
               opt.common.n);
    const int k = opt.common.kernel_index;
    if (k >= 0 && opt.common.check && radix_versions[k].max_n < (1u << 20))
        cl_die(CL_EXIT_USAGE, "--check -k %s: it sorts at most %zu keys; the table starts at 1M",
               radix_versions[k].info.name, radix_versions[k].max_n);
    if (k >= 0 && !opt.common.check && opt.common.n > radix_versions[k].max_n)
        cl_die(CL_EXIT_USAGE, "-n %zu: -k %s sorts at most %zu keys (-k v3, v4 and v5 take any n)",
               opt.common.n, radix_versions[k].info.name, radix_versions[k].max_n);
    cl_device_open((int)opt.common.device);
    if (opt.common.check)
        return run_check_table(&opt) ? CL_EXIT_OK : CL_EXIT_WRONG;

    const size_t n = opt.common.n;
    cl_require_host_memory(n * 8 * sizeof(uint32_t), 8 * sizeof(uint32_t));
    problem p = make_problem(n, &opt);
    timed_call call = device_setup(&p, (int)opt.common.iters);
    cl_note("\n%zu keys (%s), %s, %d bits; gold (CPU radix sort) %.1f ms; timed over %d rotating "
            "copies of the input; GB/s counts %.2f GB: the keys read once for the histogram, "
            "then %d passes reading and writing every key%s",
            n, radix_input_names[opt.input], p.pairs ? "key/value pairs" : "keys only", p.bits,
            p.gold_ms, call.keys_in.copies, sort_bytes(n, p.bits, p.pairs) / 1e9, (p.bits + 7) / 8,
            p.pairs ? " and value" : "");
    bool ok = cl_run_ladder(&opt.common, versions(), peer_name(p.pairs), n,
                            sort_bytes(n, p.bits, p.pairs), rate_column, 1, measure_version, &call);
    if (opt.common.dump) { // the last version's verified keys
        cl_dump_npy(opt.common.dump, "input", "<u4", p.keys, sizeof(uint32_t), 1, &n);
        cl_dump_npy(opt.common.dump, "output", "<u4", call.host_keys, sizeof(uint32_t), 1, &n);
        cl_dump_npy(opt.common.dump, "gold", "<u4", p.gold_keys, sizeof(uint32_t), 1, &n);
    }
    device_free(&call);
    free_problem(&p);
    return ok ? CL_EXIT_OK : CL_EXIT_WRONG;
}

// One run, or one a line of a --batch file (common/cli.h).
int main(int argc, char **argv) { return cl_main(argc, argv, run); }
