// heat: 2D heat transfer, CUDA by Example's chapter 7 program, headless: DIM x DIM
// cells, constant heat sources restored before every step, 90 steps a frame.
//
// Order of a run: options; the start field and the reference frames (the CPU gold,
// OpenMP; or with --verify fft the exact spectral solution with the sources off);
// each selected version (or all) run --frames frames from the start, each frame
// compared cell by cell with its reference, then timed a frame at a time, version 1
// (the book's program) as the reference; with -o the frames of one version as
// images. --check prints the score table over 512^2 ... 4096^2 instead.
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudalab.h"
#include "heat.h"

enum { VERIFY_GOLD, VERIFY_FFT };
static const char *const verify_modes[] = {"gold", "fft", NULL};
enum { INPUT_BOOK, INPUT_RANDOM };
static const char *const input_names[] = {"book", "random", NULL};

typedef struct {
    cl_common_args common;
    long steps, frames;
    int verify, input;
    const char *output;
} options;

static const char peer_name[] = "v1-global (reference)";

// --- the start field and the reference frames --------------------------------------------

typedef struct {
    heat_grid g; // pitch 0 here: the device's is set at setup
    int steps, frames;
    float *start;      // dim x dim
    double *reference; // frames x dim x dim: the field after each frame
    double tolerance;  // on the largest |error| over the largest |reference|
    double reference_ms;
} problem;

static size_t cells(const problem *p) { return (size_t)p->g.dim * p->g.dim; }

// The book's start is flat away from its sources, so a kernel that gets a cell there
// wrong (a wrong neighbour, a stale halo) can still match the reference; --input
// random starts every cell at its own temperature, uniform in [0, 1) from -S (the
// sources, when on, are restored over it before every step, as in the book).
static problem make_problem(int dim, int steps, int frames, int verify, int input, uint64_t seed)
{
    problem p = {.g = {.dim = dim, .k = HEAT_SPEED}, .steps = steps, .frames = frames};
    const size_t n = (size_t)dim * dim;
    cl_require_host_memory(n * (3 * sizeof(float) + frames * sizeof(double)), 0);
    p.start = cl_host_alloc(n * sizeof(float), "start field");
    p.reference = cl_host_alloc(n * frames * sizeof(double), "reference frames");
    if (input == INPUT_RANDOM)
        cl_fill_uniform_f32(p.start, n, cl_rng_key(seed, 0), 0.0f, 1.0f);
    else
        heat_start_field(p.start, dim);
    double t0 = cl_wall_ms();
    if (verify == VERIFY_FFT) {
        // Sources off: the start field diffuses freely. The float stepping rounds about
        // an ulp of 1.0 a step and, for k <= 1/4, never amplifies an error (each cell
        // becomes a weighted mean): 2 ulps a step bounds the error.
        p.tolerance = 2.4e-7 * steps * frames;
        for (int f = 0; f < frames; f++)
            heat_spectral_steps(p.start, p.reference + f * n, dim, p.g.k, (long)steps * (f + 1));
    } else {
        // Every version does the gold's float arithmetic in the gold's order (heat_blend),
        // so the error is 0; the tolerance leaves room for a kernel of yours that sums
        // the neighbours in another order.
        p.g.sources = heat_book_sources(dim);
        p.tolerance = 1e-5;
        float *field = cl_host_alloc(n * sizeof(float), "gold field");
        float *scratch = cl_host_alloc(n * sizeof(float), "gold scratch");
        memcpy(field, p.start, n * sizeof(float));
        for (int f = 0; f < frames; f++) {
            heat_gold_steps(field, scratch, &p.g, steps);
            for (size_t c = 0; c < n; c++)
                p.reference[f * n + c] = field[c];
        }
        free(field);
        free(scratch);
    }
    p.reference_ms = cl_wall_ms() - t0;
    return p;
}

static void free_problem(problem *p)
{
    free(p->start);
    free(p->reference);
}

// Errors are measured against the largest reference value (1.0 with the sources on).
static cl_compare compare_frame(const float *got, const double *ref, size_t n, double tolerance,
                                double *relative_error)
{
    double largest = 0.0;
    for (size_t i = 0; i < n; i++)
        largest = fmax(largest, fabs(ref[i]));
    largest = largest > 0.0 ? largest : 1.0;
    cl_compare c = cl_compare_f32(got, ref, n, 0.0, tolerance * largest);
    *relative_error = c.max_abs_err / largest;
    return c;
}

// --- frames as pictures ------------------------------------------------------------------------

// A temperature colour map: black, deep blue, red, orange, yellow, white as the
// temperature goes from 0 to 1 (the field's range), linear between the stops.
static void colour_of(float t, uint8_t *rgb)
{
    static const float stops[6][3] = {{0, 0, 0},    {0.1f, 0.05f, 0.45f}, {0.8f, 0.1f, 0.15f},
                                      {1, 0.5f, 0}, {1, 0.9f, 0.1f},      {1, 1, 1}};
    t = t > 0.0f ? (t < 1.0f ? t : 1.0f) : 0.0f; // NaN becomes 0
    float at = t * 5.0f;
    int i = at < 5.0f ? (int)at : 4;
    float f = at - (float)i;
    for (int c = 0; c < 3; c++)
        rgb[c] = (uint8_t)(255.0f * (stops[i][c] + f * (stops[i + 1][c] - stops[i][c])) + 0.5f);
}

static void write_frame(const char *prefix, int frame, const float *field, int dim)
{
    uint8_t *rgb = cl_host_alloc((size_t)dim * dim * 3, "frame image");
    for (size_t c = 0; c < (size_t)dim * dim; c++)
        colour_of(field[c], rgb + 3 * c);
    char base[4096], path[4200];
    snprintf(base, sizeof base, "%s_%04d", prefix, frame);
    if (cl_image_write(base, dim, dim, rgb, path, sizeof path) != 0)
        cl_die(CL_EXIT_USAGE, "-o %s: cannot write %s: %s", prefix, path, strerror(errno));
    cl_note("wrote %s", path);
    free(rgb);
}

// --- one version: run the frames and verify, then time a frame ---------------------------

typedef struct {
    const problem *p;
    heat_grid g; // with the device pitch
    heat_state state;
    float *host_field;
    heat_launcher launch;
    int iters;
    const char *frames_prefix; // -o: write the frames of version `drawn`
    int drawn;
} timed_call;

static void run_frame(void *ctx, int rep)
{
    (void)rep;
    timed_call *t = ctx;
    t->launch(&t->state, &t->g, t->p->steps, 0);
}

static void upload_start(timed_call *t)
{
    const size_t row = t->g.dim * sizeof(float), pitch = t->g.pitch * sizeof(float);
    t->state.current = 0;
    CL_CUDA_CHECK(cudaMemcpy2D(t->state.field[0], pitch, t->p->start, row, row, t->g.dim,
                               cudaMemcpyHostToDevice));
    // The other buffer poisoned: a cell a version never writes fails the comparison.
    cl_poison_device(t->state.field[1], pitch * t->g.dim);
}

static void download_field(timed_call *t)
{
    const size_t row = t->g.dim * sizeof(float), pitch = t->g.pitch * sizeof(float);
    CL_CUDA_CHECK(cudaMemcpy2D(t->host_field, row, t->state.field[t->state.current], pitch, row,
                               t->g.dim, cudaMemcpyDeviceToHost));
}

static cl_measured measure_version(void *ctx, int k, cl_cell *extra)
{
    timed_call *call = ctx;
    const int version = k == CL_PEER ? 0 : k;
    const char *name = k == CL_PEER ? peer_name : heat_versions[k].info.name;
    call->launch = heat_versions[version].launch;
    upload_start(call);
    cl_compare worst = {.ok = true, .n = cells(call->p)};
    double worst_error = 0.0;
    for (int f = 0; f < call->p->frames; f++) {
        run_frame(call, 0);
        download_field(call);
        double error;
        cl_compare c = compare_frame(call->host_field, call->p->reference + f * cells(call->p),
                                     cells(call->p), call->p->tolerance, &error);
        if (worst.ok && !c.ok) {
            worst = c;
            cl_note("%s: frame %d (after %d steps) is the first wrong one", name, f,
                    (f + 1) * call->p->steps);
        }
        worst_error = fmax(worst_error, error);
        if (call->frames_prefix && k == call->drawn)
            write_frame(call->frames_prefix, f, call->host_field, call->g.dim);
    }
    cl_compare_report(name, worst);
    double ms = cl_time_gpu(run_frame, call, call->iters).median_ms;
    if (extra) {
        extra[0] = CL_NUM((double)cells(call->p) * call->p->steps / (ms * 1e-3) / 1e9);
        extra[1] = CL_NUM(worst_error);
    }
    return (cl_measured){.ms = ms, .ok = worst.ok};
}

static timed_call device_setup(const problem *p, const options *opt)
{
    const int dim = p->g.dim;
    size_t pitch_bytes;
    cl_require_device_memory(3 * (size_t)dim * (dim + 128) * sizeof(float), 0);
    timed_call call = {.p = p, .g = p->g, .iters = (int)opt->common.iters, .drawn = -2};
    for (int b = 0; b < 2; b++)
        CL_CUDA_CHECK(
            cudaMallocPitch((void **)&call.state.field[b], &pitch_bytes, dim * sizeof(float), dim));
    CL_CUDA_CHECK(
        cudaMallocPitch((void **)&call.state.source_map, &pitch_bytes, dim * sizeof(float), dim));
    call.g.pitch = pitch_bytes / sizeof(float);
    // The book's constant array: each cell's source temperature, 0 where there is none.
    float *map = cl_host_alloc((size_t)dim * dim * sizeof(float), "source map");
    for (int y = 0; y < dim; y++)
        for (int x = 0; x < dim; x++)
            map[(size_t)y * dim + x] = heat_source_at(&p->g.sources, x, y);
    CL_CUDA_CHECK(cudaMemcpy2D(call.state.source_map, pitch_bytes, map, dim * sizeof(float),
                               dim * sizeof(float), dim, cudaMemcpyHostToDevice));
    free(map);
    heat_create_textures(&call.state, &call.g);
    call.host_field = cl_host_alloc((size_t)dim * dim * sizeof(float), "result field");
    return call;
}

static void device_free(timed_call *call)
{
    heat_destroy_textures(&call->state);
    CL_CUDA_CHECK(cudaFree(call->state.field[0]));
    CL_CUDA_CHECK(cudaFree(call->state.field[1]));
    CL_CUDA_CHECK(cudaFree(call->state.source_map));
    free(call->host_field);
}

static cl_kernel_list versions(void)
{
    return CL_KERNEL_LIST(heat_versions, heat_version_count, heat_fastest_version);
}

static const cl_column heat_columns[] = {
    {"gcell_updates_per_s", "Gcell-upd/s", 11, "%.1f"},
    {"max_rel_error", "max error", 9, "%.2g"},
};

// 8 bytes a cell a step: each cell read once and written once.
static double frame_bytes(const problem *p) { return 8.0 * cells(p) * p->steps; }

// --- --check ------------------------------------------------------------------------------------

typedef struct {
    const options *opt;
} check_context;

static cl_check_point check_size(void *ctx, size_t dim, int k)
{
    const options *opt = ((check_context *)ctx)->opt;
    problem p = make_problem((int)dim, (int)opt->steps, 1, opt->verify, INPUT_RANDOM,
                             (uint64_t)opt->common.seed);
    timed_call call = device_setup(&p, opt);
    const double bytes = frame_bytes(&p);
    cl_check_point point = cl_check_pair(measure_version, &call, k, bytes);
    device_free(&call);
    free_problem(&p);
    return point;
}

static bool run_check_table(const options *opt)
{
    static const size_t dims[] = {512, 1024, 2048, 4096};
    static const char *const labels[] = {"512^2", "1024^2", "2048^2", "4096^2"};
    check_context ctx = {opt};
    return cl_run_check_table_labelled(&opt->common, versions(), peer_name, "Grid (a frame)",
                                       labels, dims, 4, 1.0, check_size, &ctx);
}

static int run(int argc, char **argv)
{
    options opt = {.steps = HEAT_STEPS_PER_FRAME, .frames = 1};
    const cl_option own[] = {
        {0, "steps", CL_ARG_INT, &opt.steps, "N", "steps a frame (the book's: 90)", 1, 100000,
         NULL},
        {0, "frames", CL_ARG_INT, &opt.frames, "F", "frames run from the start and verified", 1,
         1000, NULL},
        {'o', "output", CL_ARG_STRING, &opt.output, "NAME",
         "write the frames as NAME_0000.png ... (the version -k names; with -k all the fastest)", 0,
         0, NULL},
        {0, "verify", CL_ARG_CHOICE, &opt.verify, "gold|fft",
         "gold: the CPU; fft: sources off, the exact solution through cuFFT", 0, 0, verify_modes},
        {0, "input", CL_ARG_CHOICE, &opt.input, "KIND",
         "book: the book's start (warm corner, sources); random: every cell uniform in [0, 1) "
         "from -S, sources kept (--check uses it)",
         0, 0, input_names},
        {0},
    };
    const cl_program prog = {
        .name = "heat",
        .summary = "2D heat transfer (CUDA by Example, ch. 7): from the book's two kernels a "
                   "step to 8 steps a launch on chip.",
        .example = "heat -k all --frames 3 -o heat",
        .n_default = 1024,
        .n_min = HEAT_DIM_MIN,
        .n_max = 16384,
        .n_meaning = "cells a side (DIM); the source layout scales with it",
        .n_column = "points",
        .n_long = "dim",
        .kernels = versions(),
        .options = own,
    };
    cl_parse_args_or_exit(&prog, argc, argv, &opt.common);
    char prefix[4096];
    if (opt.output) // before anything runs
        opt.output = cl_frame_prefix("-o", opt.output, prefix, sizeof prefix);
    cl_device_open((int)opt.common.device);
    if (opt.common.check)
        return run_check_table(&opt) ? CL_EXIT_OK : CL_EXIT_WRONG;

    const int dim = (int)opt.common.n;
    problem p = make_problem(dim, (int)opt.steps, (int)opt.frames, opt.verify, opt.input,
                             (uint64_t)opt.common.seed);
    timed_call call = device_setup(&p, &opt);
    call.frames_prefix = opt.output;
    call.drawn = opt.common.kernel_index >= 0 ? opt.common.kernel_index : versions().fastest;
    cl_note("\n%d x %d cells, k = %.2f, %d steps a frame, input %s, %d frame%s verified against "
            "%s (%.1f ms); GB/s = 8 bytes a cell a step; time = one frame",
            dim, dim, p.g.k, p.steps, input_names[opt.input], p.frames, p.frames > 1 ? "s" : "",
            opt.verify == VERIFY_FFT ? "the spectral solution (sources off, cuFFT)"
                                     : "the CPU gold (OpenMP)",
            p.reference_ms);
    bool ok = cl_run_ladder(&opt.common, versions(), peer_name, cells(&p), frame_bytes(&p),
                            heat_columns, 2, measure_version, &call);
    if (opt.common.dump) { // the start, the last version's last verified frame, its reference
        size_t shape[2] = {(size_t)dim, (size_t)dim};
        const double *last = p.reference + (size_t)(p.frames - 1) * cells(&p);
        cl_dump_npy(opt.common.dump, "input", "<f4", p.start, sizeof(float), 2, shape);
        cl_dump_npy(opt.common.dump, "output", "<f4", call.host_field, sizeof(float), 2, shape);
        cl_dump_npy(opt.common.dump, "gold", "<f8", last, sizeof(double), 2, shape);
    }
    device_free(&call);
    free_problem(&p);
    return ok ? CL_EXIT_OK : CL_EXIT_WRONG;
}

// One run, or one a line of a --batch file (common/cli.h).
int main(int argc, char **argv) { return cl_main(argc, argv, run); }
