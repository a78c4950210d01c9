// mosaic: the course's photo-mosaic filter: every c x c cell of an RGB image becomes the
// cell's average colour (partial cells at the right and bottom average their own
// pixels), and the image's average colour is printed. CPU serial, CPU OpenMP and CUDA.
//
// Order of a run: options; the image (--image, or a synthetic photo-like one); the
// serial CPU gold (timed: --mode cpu); OpenMP (--mode openmp); the GPU versions, each
// compared byte for byte with the gold and timed on device-resident data, every repeat
// reading the next of several copies of the image (so the L2 cache has not just seen
// it; --mode cuda, the default); -o writes the mosaic. --check prints the score table
// instead.
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cudalab.h"
#include "mosaic.h"

enum { MODE_CPU, MODE_OPENMP, MODE_CUDA, MODE_ALL };
static const char *const mode_names[] = {"cpu", "openmp", "cuda", "all", NULL};

typedef struct {
    cl_common_args common;
    const char *image, *output;
    long cell, streams;
    int mode;
} options;

static const char peer_name[] = "v2-staged (reference)";

typedef struct {
    mosaic_shape s;
    uint8_t *in, *gold;
    uint64_t totals[3];
    double gold_ms;
} problem;

static size_t image_bytes(mosaic_shape s) { return (size_t)s.width * s.height * 3; }

static void print_average(const char *who, const uint64_t totals[3], mosaic_shape s, double ms)
{
    const uint64_t pixels = (uint64_t)s.width * s.height;
    cl_note("%-8s %9.3f ms   average colour (%u, %u, %u)", who, ms,
            mosaic_average(totals[0], pixels), mosaic_average(totals[1], pixels),
            mosaic_average(totals[2], pixels));
}

// The serial gold, timed (the course's "C serial" row).
static problem make_problem(mosaic_shape s, uint8_t *in)
{
    problem p = {.s = s, .in = in};
    p.gold = cl_host_alloc(image_bytes(s), "mosaic");
    const double t0 = cl_wall_ms();
    mosaic_gold(in, p.gold, s, p.totals);
    p.gold_ms = cl_wall_ms() - t0;
    return p;
}

static void free_problem(problem *p)
{
    free(p->in);
    free(p->gold);
}

// --- the GPU versions -----------------------------------------------------------------------

typedef struct {
    const problem *p;
    cl_rotating in;             // device: copies of the image, one a repeat in turn
    uint8_t *out;               // device
    unsigned long long *totals; // device
    uint8_t *host_out;          // the last verified output
    mosaic_workspace *ws;
    mosaic_launcher launch;
    int iters;
} timed_call;

static void run_call(void *ctx, int rep)
{
    const timed_call *t = ctx;
    t->launch(cl_rotating_at(&t->in, rep), t->out, t->totals, t->p->s, t->ws, 0);
}

static cl_measured measure_version(void *ctx, int k, cl_cell *extra)
{
    timed_call *call = ctx;
    const problem *p = call->p;
    const int version = k == CL_PEER ? 1 : k;
    const char *name = k == CL_PEER ? peer_name : mosaic_versions[k].info.name;
    call->launch = mosaic_versions[version].launch;
    cl_poison_device(call->out, image_bytes(p->s));
    cl_poison_device(call->totals, 3 * sizeof(unsigned long long));
    run_call(call, 0);
    uint64_t totals[3];
    CL_CUDA_CHECK(cudaMemcpy(call->host_out, call->out, image_bytes(p->s), cudaMemcpyDeviceToHost));
    CL_CUDA_CHECK(cudaMemcpy(totals, call->totals, sizeof totals, cudaMemcpyDeviceToHost));
    cl_compare c = cl_compare_u8(call->host_out, p->gold, image_bytes(p->s)); // byte for byte
    cl_compare_report(name, c);
    if (c.ok) {
        c = cl_compare_u64(totals, p->totals, 3);
        cl_compare_report(name, c); // the image's channel sums
    }
    const double ms = cl_time_gpu(run_call, call, call->iters).median_ms;
    if (extra)
        extra[0] = CL_NUM((double)p->s.width * p->s.height / (ms * 1e-3) / 1e9);
    return (cl_measured){.ms = ms, .ok = c.ok};
}

static timed_call device_setup(const problem *p, int iters)
{
    const size_t bytes = image_bytes(p->s);
    // The filter reads the image and never writes it, so copies of the image are enough:
    // as many as make 3x the L2 size (2048^2: 13 copies on a 50 MB L2; 4096^2: 4).
    const int copies = cl_rotation_count(bytes);
    cl_require_device_memory((bytes + 256) * copies + bytes + mosaic_workspace_bytes(p->s), 0);
    timed_call call = {.p = p, .iters = iters, .in = cl_rotating_alloc(bytes, copies)};
    CL_CUDA_CHECK(cudaMalloc((void **)&call.out, bytes));
    CL_CUDA_CHECK(cudaMalloc((void **)&call.totals, 3 * sizeof(unsigned long long)));
    cl_rotating_upload(&call.in, p->in, bytes);
    call.host_out = cl_host_alloc(bytes, "GPU mosaic");
    call.ws = mosaic_workspace_create(p->s);
    return call;
}

static void device_free(timed_call *call)
{
    cl_rotating_free(&call->in);
    CL_CUDA_CHECK(cudaFree(call->out));
    CL_CUDA_CHECK(cudaFree(call->totals));
    free(call->host_out);
    mosaic_workspace_destroy(call->ws);
}

static cl_kernel_list versions(void)
{
    return CL_KERNEL_LIST(mosaic_versions, mosaic_version_count, mosaic_fastest_version);
}

static const cl_column rate_column[] = {{"gpixels_per_s", "Gpixels/s", 9, "%.1f"}};

// --- the whole job from host memory ------------------------------------------------------

enum { JOB_PAGEABLE, JOB_PINNED, JOB_STREAMED, MAX_STREAMS = 32 };

// The caller's image in, the mosaic out, both in host memory: copies, kernel, copies.
// Pinned and streamed register the caller's buffers (cudaHostRegister, as a library
// would, timed on its own); streamed cuts the image into bands of whole cell rows, one
// a stream, so one band's copies overlap another's kernel.
typedef struct {
    const problem *p;
    mosaic_launcher launch;
    int mode, nstreams, bands, band_rows;
    uint8_t *host_out;
    uint64_t *host_totals;      // pinned: a copy into pageable memory would block the host
                                // and serialize the streams
    uint8_t *in, *out;          // device
    unsigned long long *totals; // device, 3 a band
    mosaic_workspace *ws[MAX_STREAMS];
    cudaStream_t streams[MAX_STREAMS];
} host_job;

static mosaic_shape band_shape(const host_job *j, int b)
{
    mosaic_shape s = j->p->s;
    const int y0 = b * j->band_rows;
    s.height = s.height - y0 < j->band_rows ? s.height - y0 : j->band_rows;
    return s;
}

static void run_streamed(host_job *j)
{
    const size_t row = (size_t)j->p->s.width * 3;
    for (int b = 0; b < j->bands; b++) {
        const mosaic_shape s = band_shape(j, b);
        const size_t offset = (size_t)b * j->band_rows * row, bytes = (size_t)s.height * row;
        cudaStream_t st = j->streams[b];
        CL_CUDA_CHECK(
            cudaMemcpyAsync(j->in + offset, j->p->in + offset, bytes, cudaMemcpyHostToDevice, st));
        j->launch(j->in + offset, j->out + offset, j->totals + 3 * b, s, j->ws[b], st);
        CL_CUDA_CHECK(cudaMemcpyAsync(j->host_out + offset, j->out + offset, bytes,
                                      cudaMemcpyDeviceToHost, st));
        CL_CUDA_CHECK(cudaMemcpyAsync(j->host_totals + 3 * b, j->totals + 3 * b,
                                      3 * sizeof(uint64_t), cudaMemcpyDeviceToHost, st));
    }
    // The default stream waits for every stream, so the stop event covers all of them.
    for (int b = 0; b < j->bands; b++) {
        cudaEvent_t done;
        CL_CUDA_CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
        CL_CUDA_CHECK(cudaEventRecord(done, j->streams[b]));
        CL_CUDA_CHECK(cudaStreamWaitEvent(0, done, 0));
        CL_CUDA_CHECK(cudaEventDestroy(done));
    }
}

// Stages: 0 = the image to the device, 1 = the kernel, 2 = the mosaic and the totals
// back (one stage when streamed: they overlap). -1: untimed, poisons the output.
static void run_job_stage(void *ctx, int rep, int stage)
{
    (void)rep;
    host_job *j = ctx;
    const size_t bytes = image_bytes(j->p->s);
    if (stage < 0) {
        memset(j->host_out, 0xFF, bytes);
        memset(j->host_totals, 0xFF, 3 * MAX_STREAMS * sizeof(uint64_t));
        return;
    }
    if (j->mode == JOB_STREAMED) {
        run_streamed(j);
        return;
    }
    if (stage == 0)
        CL_CUDA_CHECK(cudaMemcpyAsync(j->in, j->p->in, bytes, cudaMemcpyHostToDevice, 0));
    else if (stage == 1)
        j->launch(j->in, j->out, j->totals, j->p->s, j->ws[0], 0);
    else {
        CL_CUDA_CHECK(cudaMemcpyAsync(j->host_out, j->out, bytes, cudaMemcpyDeviceToHost, 0));
        CL_CUDA_CHECK(cudaMemcpyAsync(j->host_totals, j->totals, 3 * sizeof(uint64_t),
                                      cudaMemcpyDeviceToHost, 0));
    }
}

static const cl_column job_columns[] = {
    {"memory", "memory", 22, NULL},      {"register_ms", "register ms", 11, "%.3f"},
    {"h2d_ms", "H2D ms", 8, "%.3f"},     {"kernel_ms", "kernel ms", 9, "%.3f"},
    {"d2h_ms", "D2H ms", 8, "%.3f"},     {"overall_ms", "overall ms", 10, "%.3f"},
    {"overall_gbps", "GB/s", 6, "%.1f"}, {"verified", "verified", 8, NULL},
};
static const cl_table job_table = {"host_job", job_columns, 8};

static bool run_job(host_job *j, int iters, double register_ms)
{
    const int stages = j->mode == JOB_STREAMED ? 1 : 3;
    double stage_ms[3] = {NAN, NAN, NAN};
    cl_timing t = cl_time_stages(run_job_stage, j, stages, iters, stage_ms);
    CL_CUDA_CHECK(cudaDeviceSynchronize());
    uint64_t totals[3] = {0, 0, 0};
    for (int b = 0; b < (j->mode == JOB_STREAMED ? j->bands : 1); b++)
        for (int c = 0; c < 3; c++)
            totals[c] += j->host_totals[3 * b + c];
    char name[48];
    static const char *names[] = {"pageable (malloc)", "pinned (registered)"};
    if (j->mode == JOB_STREAMED)
        snprintf(name, sizeof name, "pinned, %d streams", j->bands);
    else
        snprintf(name, sizeof name, "%s", names[j->mode]);
    cl_compare c = cl_compare_u8(j->host_out, j->p->gold, image_bytes(j->p->s));
    cl_compare_report(name, c);
    if (c.ok) {
        c = cl_compare_u64(totals, j->p->totals, 3);
        cl_compare_report(name, c);
    }
    if (j->mode == JOB_STREAMED)
        stage_ms[0] = stage_ms[1] = stage_ms[2] = NAN;
    const double gbps = 6.0 * j->p->s.width * j->p->s.height / (t.median_ms * 1e-3) / 1e9;
    cl_table_row(&job_table, (cl_cell[]){CL_STR(name), CL_NUM(register_ms), CL_NUM(stage_ms[0]),
                                         CL_NUM(stage_ms[1]), CL_NUM(stage_ms[2]),
                                         CL_NUM(t.median_ms), CL_NUM(gbps), CL_BOOL(c.ok)});
    return c.ok;
}

static bool run_host_jobs(const problem *p, const options *opt)
{
    const mosaic_shape s = p->s;
    const size_t bytes = image_bytes(s);
    const int k = opt->common.kernel_index < 0 ? versions().fastest : opt->common.kernel_index;
    host_job j = {.p = p, .launch = mosaic_versions[k].launch, .bands = 1};
    // Bands of whole cell rows, one a stream.
    const int cell_rows = mosaic_cells_y(s);
    j.nstreams = (int)(opt->streams < cell_rows ? opt->streams : cell_rows);
    j.band_rows = (cell_rows + j.nstreams - 1) / j.nstreams * s.cell;
    const int bands = (s.height + j.band_rows - 1) / j.band_rows;
    cl_note("\nthe whole job from host memory (kernel %s; GB/s = 6 bytes a pixel / overall)",
            mosaic_versions[k].info.name);
    cl_table_header(&job_table);
    CL_CUDA_CHECK(cudaMalloc((void **)&j.in, bytes));
    CL_CUDA_CHECK(cudaMalloc((void **)&j.out, bytes));
    CL_CUDA_CHECK(cudaMalloc((void **)&j.totals, 3 * MAX_STREAMS * sizeof(unsigned long long)));
    j.host_out = cl_host_alloc(bytes, "mosaic");
    CL_CUDA_CHECK(cudaMallocHost((void **)&j.host_totals, 3 * MAX_STREAMS * sizeof(uint64_t)));
    j.ws[0] = mosaic_workspace_create(s);
    bool ok = true;
    const int iters = (int)opt->common.iters;

    j.mode = JOB_PAGEABLE;
    ok = run_job(&j, iters, NAN) && ok;

    double t0 = cl_wall_ms();
    CL_CUDA_CHECK(cudaHostRegister(p->in, bytes, cudaHostRegisterDefault));
    CL_CUDA_CHECK(cudaHostRegister(j.host_out, bytes, cudaHostRegisterDefault));
    const double register_ms = cl_wall_ms() - t0;
    j.mode = JOB_PINNED;
    ok = run_job(&j, iters, register_ms) && ok;

    mosaic_workspace_destroy(j.ws[0]);
    j.mode = JOB_STREAMED;
    j.bands = bands;
    for (int b = 0; b < bands; b++) {
        CL_CUDA_CHECK(cudaStreamCreate(&j.streams[b]));
        j.ws[b] = mosaic_workspace_create(band_shape(&j, 0));
    }
    ok = run_job(&j, iters, register_ms) && ok;
    for (int b = 0; b < bands; b++) {
        CL_CUDA_CHECK(cudaStreamDestroy(j.streams[b]));
        mosaic_workspace_destroy(j.ws[b]);
    }
    CL_CUDA_CHECK(cudaHostUnregister(p->in));
    CL_CUDA_CHECK(cudaHostUnregister(j.host_out));
    CL_CUDA_CHECK(cudaFree(j.in));
    CL_CUDA_CHECK(cudaFree(j.out));
    CL_CUDA_CHECK(cudaFree(j.totals));
    CL_CUDA_CHECK(cudaFreeHost(j.host_totals));
    free(j.host_out);
    return ok;
}

// --- --check: 2048^2 and 4096^2 at c = 16 and 32 -------------------------------------------

typedef struct {
    const options *opt;
} check_context;

static cl_check_point check_case(void *ctx, size_t index, int k)
{
    const options *opt = ((check_context *)ctx)->opt;
    const int side = index < 2 ? 2048 : 4096, cell = index % 2 ? 32 : 16;
    mosaic_shape s = {side, side, cell};
    uint8_t *in = cl_host_alloc(image_bytes(s), "image");
    mosaic_synthetic(in, side, side, (uint64_t)opt->common.seed);
    problem p = make_problem(s, in);
    timed_call call = device_setup(&p, (int)opt->common.iters);
    const double pixels = (double)side * side;
    cl_check_point point = cl_check_pair(measure_version, &call, k, 6.0 * pixels);
    device_free(&call);
    free_problem(&p);
    point.size = pixels;
    return point;
}

static bool run_check_table(const options *opt)
{
    static const size_t cases[] = {0, 1, 2, 3};
    static const char *const labels[] = {"2048^2, c 16", "2048^2, c 32", "4096^2, c 16",
                                         "4096^2, c 32"};
    check_context ctx = {opt};
    return cl_run_check_table_labelled(&opt->common, versions(), peer_name, "Image, cell", labels,
                                       cases, 4, 1.0, check_case, &ctx);
}

// --- main -------------------------------------------------------------------------------------

// -o is checked before anything runs: a known extension this build can write, an
// existing directory.
static void check_output(const char *path)
{
    const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
    if (!dot || (slash && dot < slash) ||
        (strcasecmp(dot, ".png") != 0 && strcasecmp(dot, ".ppm") != 0))
        cl_die(CL_EXIT_USAGE, "-o %s: unknown extension (use .png or .ppm)", path);
    if (strcasecmp(dot, ".png") == 0 && strcmp(cl_image_extension(), "png") != 0)
        cl_die(CL_EXIT_USAGE,
               "-o %s: this build has no libpng (install pkg-config and libpng-dev, then make "
               "clean all), or write .ppm",
               path);
    cl_require_writable_dir("-o", path);
}

static uint8_t *load_image(const options *opt, mosaic_shape *s)
{
    if (!opt->image) {
        s->width = s->height = (int)opt->common.n;
        uint8_t *rgb = cl_host_alloc(image_bytes(*s), "image");
        mosaic_synthetic(rgb, s->width, s->height, (uint64_t)opt->common.seed);
        return rgb;
    }
    cl_image image;
    char err[512];
    if (cl_image_read(opt->image, &image, err, sizeof err) != 0)
        cl_die(CL_EXIT_USAGE, "--image %s: %s", opt->image, err);
    s->width = image.width;
    s->height = image.height;
    return image.rgb;
}

static int run(int argc, char **argv)
{
    options opt = {.cell = 16, .streams = 8, .mode = MODE_CUDA};
    const cl_option own[] = {
        {0, "image", CL_ARG_STRING, &opt.image, "FILE",
         "the picture: .ppm (P3 or P6, maxval 255) or .png; default: a synthetic one of -n pixels "
         "a side",
         0, 0, NULL},
        {0, "cell", CL_ARG_INT, &opt.cell, "C",
         "cell side in pixels (1 .. the image's smaller side)", 1, 32768, NULL},
        {'o', "output", CL_ARG_STRING, &opt.output, "FILE", "write the mosaic (.png or .ppm)", 0, 0,
         NULL},
        {0, "streams", CL_ARG_INT, &opt.streams, "K",
         "the streamed whole job: bands of cell rows over K streams", 1, 32, NULL},
        {0, "mode", CL_ARG_CHOICE, &opt.mode, "MODE",
         "cpu (serial), openmp, cuda, or all of them, each timed with its average colour "
         "(all without a GPU: the CPU parts, then exit 77)",
         0, 0, mode_names},
        {0},
    };
    const cl_program prog = {
        .name = "mosaic",
        .summary = "The photo-mosaic filter: each c x c cell becomes its average colour; CPU "
                   "serial, OpenMP and the GPU ladder.",
        .example = "mosaic --image mosaic/images/before.png --cell 16 -o after.png",
        .n_default = 2048,
        .n_min = 1,
        .n_max = CL_IMAGE_MAX_SIDE,
        .n_meaning = "pixels a side of the synthetic image (without --image)",
        .n_column = "pixels",
        .kernels = versions(),
        .options = own,
    };
    cl_parse_args_or_exit(&prog, argc, argv, &opt.common);
    if (opt.image && opt.common.n_given)
        cl_die(CL_EXIT_USAGE, "-n and --image: the image gives the size; drop -n");
    if (opt.output)
        check_output(opt.output);
    bool gpu = opt.common.check || opt.mode == MODE_CUDA || opt.mode == MODE_ALL;
    if (!gpu && opt.common.kernel)
        cl_die(CL_EXIT_USAGE, "-k %s: -k picks a GPU version, for --mode cuda or all",
               opt.common.kernel);
    if (!gpu && opt.common.json)
        cl_die(CL_EXIT_USAGE, "--json reports the GPU runs' tables: use --mode cuda or all");
    // --mode all without a GPU runs its CPU and OpenMP parts, then says the GPU ones
    // did not run (exit 77); every other GPU run stops here before anything runs.
    char no_gpu[512] = "";
    if (opt.mode == MODE_ALL && !opt.common.check && !opt.common.json &&
        cl_device_count_or_reason(no_gpu, sizeof no_gpu) == 0)
        gpu = false;
    if (gpu)
        cl_device_open((int)opt.common.device);
    if (opt.common.check)
        return run_check_table(&opt) ? CL_EXIT_OK : CL_EXIT_WRONG;
    mosaic_shape s = {.cell = (int)opt.cell};
    uint8_t *in = load_image(&opt, &s);
    const int smaller = s.width < s.height ? s.width : s.height;
    if (s.cell > smaller)
        cl_die(CL_EXIT_USAGE, "--cell %d: larger than the image (%d x %d)", s.cell, s.width,
               s.height);
    problem p = make_problem(s, in);
    cl_note("%s%d x %d pixels (%s), cells of %d x %d (%d x %d cells); rounding: nearest, halves up",
            cl_device_current() ? "\n" : "", // apart from the device line, when there is one

            s.width, s.height, opt.image ? opt.image : "synthetic", s.cell, s.cell,
            mosaic_cells_x(s), mosaic_cells_y(s));
    const uint8_t *result = p.gold;
    if (opt.mode == MODE_CPU || opt.mode == MODE_ALL)
        print_average("cpu", p.totals, s, p.gold_ms);
    bool ok = true;
    uint8_t *openmp_out = NULL;
    if (opt.mode == MODE_OPENMP || opt.mode == MODE_ALL) {
        uint64_t totals[3];
        openmp_out = cl_host_alloc(image_bytes(s), "OpenMP mosaic");
        const double t0 = cl_wall_ms();
        mosaic_openmp(in, openmp_out, s, totals);
        print_average("openmp", totals, s, cl_wall_ms() - t0);
        cl_compare c = cl_compare_u8(openmp_out, p.gold, image_bytes(s));
        cl_compare_report("openmp", c);
        ok = c.ok && memcmp(totals, p.totals, sizeof totals) == 0;
        result = openmp_out;
    }
    timed_call call = {0};
    if (gpu) {
        call = device_setup(&p, (int)opt.common.iters);
        cl_note("GPU versions timed over %d rotating copies of the image", call.in.copies);
        ok = cl_run_ladder(&opt.common, versions(), peer_name, (size_t)s.width * s.height,
                           6.0 * s.width * s.height, rate_column, 1, measure_version, &call) &&
             ok;
        result = call.host_out;
        ok = run_host_jobs(&p, &opt) && ok;
    }
    if (opt.output && ok) {
        char err[512];
        if (cl_image_write_file(opt.output, s.width, s.height, result, err, sizeof err) != 0)
            cl_die(CL_EXIT_USAGE, "-o %s: %s", opt.output, err);
        cl_note("wrote %s", opt.output);
    }
    if (opt.common.dump) {
        size_t shape[3] = {(size_t)s.height, (size_t)s.width, 3};
        cl_dump_npy(opt.common.dump, "input", "|u1", in, 1, 3, shape);
        cl_dump_npy(opt.common.dump, "output", "|u1", result, 1, 3, shape);
        cl_dump_npy(opt.common.dump, "gold", "|u1", p.gold, 1, 3, shape);
    }
    if (call.ws)
        device_free(&call);
    free(openmp_out);
    free_problem(&p);
    if (!ok)
        return CL_EXIT_WRONG;
    if (no_gpu[0]) {
        fprintf(stderr, "%s: the CPU and OpenMP parts ran; the GPU versions did not: %s\n",
                cl_progname, no_gpu);
        return CL_EXIT_NO_DEVICE;
    }
    return CL_EXIT_OK;
}

// One run, or one a line of a --batch file (common/cli.h).
int main(int argc, char **argv) { return cl_main(argc, argv, run); }
