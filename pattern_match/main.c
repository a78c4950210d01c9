// pattern_match: how often each word of a list occurs in a text, at every byte
// position, overlapping occurrences included (the Oxford CUDA course's practical 9).
//
// Order of a run: options; the words and the text; the gold counts (a byte trie on the
// CPU); each selected version (or all) verified (every count) and timed on
// device-resident text, with the practical's one-block design (v1-course) as the
// reference; --check prints the score table instead (1M..100M bytes, --extended adds
// 1G: there the reference, on one SM, takes 16 s a run).
#include <stdlib.h>
#include <string.h>

#include "cudalab.h"
#include "pattern_match.h"

static const char peer_name[] = "v1-course (reference)";
// The largest text: 4 GB (counts are 64-bit; a block's are 32-bit, and no block sees
// 4G positions).
static const size_t max_text_bytes = 4000000000u;

typedef struct {
    cl_common_args common;
    const char *text_path, *word_list, *words_path;
    long vocabulary_words;
    bool extended;
} options;

typedef struct {
    uint8_t *text; // n bytes, then zeros to pm_text_buffer_bytes(n)
    size_t n;
    const char *text_name;
    pm_words words;
    uint64_t *gold;
} problem;

static void words_for(const options *opt, pm_words *words)
{
    char err[512];
    if (opt->word_list && pm_words_parse_list(opt->word_list, words, err, sizeof err) != 0)
        cl_die(CL_EXIT_USAGE, "--words %s: %s", opt->word_list, err);
    if (opt->words_path && pm_words_read_file(opt->words_path, words, err, sizeof err) != 0)
        cl_die(CL_EXIT_USAGE, "--words-file: %s", err);
    if (opt->vocabulary_words)
        pm_words_vocabulary((int)opt->vocabulary_words, words);
    if (!opt->word_list && !opt->words_path && !opt->vocabulary_words)
        pm_words_default(words);
}

// The text in a buffer padded with zeros as the device copy is.
static uint8_t *padded_text(size_t n)
{
    uint8_t *text = cl_host_alloc(pm_text_buffer_bytes(n), "text");
    memset(text + n, 0, pm_text_buffer_bytes(n) - n);
    return text;
}

// The inputs a run needs before the device opens, so a bad one exits 2 at once.
typedef struct {
    pm_words words;
    uint8_t *file_text; // --text: the file's bytes, padded (NULL: the synthetic text)
    size_t file_bytes;
} inputs;

static void read_inputs(const options *opt, inputs *in)
{
    words_for(opt, &in->words);
    in->file_text = NULL;
    char err[512];
    if (opt->text_path && pm_text_read_file(opt->text_path, max_text_bytes, &in->file_text,
                                            &in->file_bytes, err, sizeof err) != 0)
        cl_die(CL_EXIT_USAGE, "--text: %s", err);
}

// The text (the file, which the problem then owns, or the synthetic text of n bytes
// under -S) and its gold counts.
static problem make_problem(const options *opt, inputs *in, size_t n)
{
    problem p = {.n = n, .text_name = "synthetic English-like text", .words = in->words};
    if (in->file_text) {
        p.n = in->file_bytes;
        p.text = in->file_text;
        in->file_text = NULL;
        p.text_name = opt->text_path;
    } else {
        cl_require_host_memory(2 * n, 2);
        p.text = padded_text(n);
        pm_text_synthetic(p.text, n, (uint64_t)opt->common.seed);
    }
    p.gold = cl_host_alloc(p.words.count * sizeof(uint64_t), "gold counts");
    pattern_match_gold(p.text, p.n, &p.words, p.gold);
    return p;
}

static void free_problem(problem *p)
{
    free(p->text);
    free(p->gold);
}

// "CPU matches = 3 3 18 31", as the practical prints them (the first 32 words).
static void print_matches(const char *who, const uint64_t *counts, int nwords)
{
    char line[512];
    size_t at = 0;
    for (int w = 0; w < nwords && w < 32 && at + 24 < sizeof line; w++)
        at += (size_t)snprintf(line + at, sizeof line - at, " %llu", (unsigned long long)counts[w]);
    cl_note("%s matches =%s%s", who, line, nwords > 32 ? " ..." : "");
}

typedef struct {
    const problem *p;
    cl_rotating text;
    unsigned long long *counts;
    uint64_t *host_counts; // the last verified run's counts
    const char *last_name;
    pm_device_words *words;
    pattern_match_launcher launch;
    int iters;
    cl_measured reference; // v1 measured as the reference (ms 0: not yet)
} timed_call;

static void run_call(void *ctx, int rep)
{
    const timed_call *t = ctx;
    t->launch(cl_rotating_at(&t->text, rep), t->p->n, t->words, t->counts, 0);
}

// Version k or the reference (v1 under its reference name): poisons the counts, runs
// once and checks every count, then times. v1's own row is the reference's measurement
// (the same kernel on the same text; one SM takes seconds a gigabyte).
static cl_measured measure_version(void *ctx, int k, cl_cell *extra)
{
    (void)extra;
    timed_call *call = ctx;
    if (k == 0 && call->reference.ms > 0)
        return call->reference;
    const int version = k == CL_PEER ? 0 : k;
    const char *name = k == CL_PEER ? peer_name : pattern_match_versions[version].info.name;
    call->launch = pattern_match_versions[version].launch;
    const int nwords = call->p->words.count;
    cl_poison_device(call->counts, nwords * sizeof(uint64_t));
    run_call(call, 0);
    CL_CUDA_CHECK(cudaMemcpy(call->host_counts, call->counts, nwords * sizeof(uint64_t),
                             cudaMemcpyDeviceToHost));
    call->last_name = name;
    cl_compare c = cl_compare_u64(call->host_counts, call->p->gold, (size_t)nwords);
    cl_compare_report(name, c);
    cl_measured m = {.ms = cl_time_gpu(run_call, call, call->iters).median_ms, .ok = c.ok};
    if (k == CL_PEER)
        call->reference = m;
    return m;
}

static timed_call device_setup(const problem *p, int iters)
{
    const size_t bytes = pm_text_buffer_bytes(p->n);
    const int copies = cl_rotation_count(bytes);
    cl_require_device_memory(copies * (bytes + 256) + (1 << 20) + sizeof(pm_words), 0);
    timed_call call = {.p = p, .text = cl_rotating_alloc(bytes, copies), .iters = iters};
    cl_rotating_upload(&call.text, p->text, bytes);
    CL_CUDA_CHECK(cudaMalloc((void **)&call.counts, p->words.count * sizeof(uint64_t)));
    call.host_counts = cl_host_alloc(p->words.count * sizeof(uint64_t), "counts");
    call.words = pm_device_words_create(&p->words);
    return call;
}

static void device_free(timed_call *call)
{
    cl_rotating_free(&call->text);
    CL_CUDA_CHECK(cudaFree(call->counts));
    free(call->host_counts);
    pm_device_words_destroy(call->words);
}

static cl_kernel_list versions(void)
{
    return CL_KERNEL_LIST(pattern_match_versions, pattern_match_version_count,
                          pattern_match_fastest_version);
}

static bool run_versions(const problem *p, const options *opt)
{
    timed_call call = device_setup(p, (int)opt->common.iters);
    char words[256];
    pm_words_describe(&p->words, 12, words, sizeof words);
    cl_note("\n%s, %zu bytes; %d words (%s); GB/s counts the text read once; timed over %d "
            "rotating copies",
            p->text_name, p->n, p->words.count, words, call.text.copies);
    print_matches("CPU", p->gold, p->words.count);
    bool ok = cl_run_ladder(&opt->common, versions(), peer_name, p->n, (double)p->n, NULL, 0,
                            measure_version, &call);
    char who[64];
    snprintf(who, sizeof who, "GPU (%s)", call.last_name);
    print_matches(who, call.host_counts, p->words.count);
    if (opt->common.dump) {
        size_t nwords = (size_t)p->words.count;
        cl_dump_npy(opt->common.dump, "input", "|u1", p->text, 1, 1, &p->n);
        cl_dump_npy(opt->common.dump, "output", "<u8", call.host_counts, sizeof(uint64_t), 1,
                    &nwords);
        cl_dump_npy(opt->common.dump, "gold", "<u8", p->gold, sizeof(uint64_t), 1, &nwords);
    }
    device_free(&call);
    return ok;
}

typedef struct {
    const options *opt;
    inputs *in;
} check_context;

static cl_check_point measure_size(void *ctx, size_t n, int k)
{
    const check_context *check = ctx;
    const options *opt = check->opt;
    problem p = make_problem(opt, check->in, n);
    timed_call call = device_setup(&p, (int)opt->common.iters);
    cl_check_point point = cl_check_pair(measure_version, &call, k, (double)n);
    device_free(&call);
    free_problem(&p);
    return point;
}

static bool run_check_table(const options *opt, inputs *in)
{
    static const size_t sizes[] = {1000000, 10000000, 100000000, 1000000000};
    check_context check = {opt, in};
    return cl_run_check_table(&opt->common, versions(), peer_name, sizes, opt->extended ? 4 : 3,
                              1.25, measure_size, &check);
}

static int run(int argc, char **argv)
{
    options opt = {0};
    const cl_option own[] = {
        {0, "text", CL_ARG_STRING, &opt.text_path, "FILE",
         "search this file (any bytes, up to 4 GB; - reads standard input) instead of the "
         "synthetic text (-n does not apply)",
         0, 0, NULL},
        {0, "words", CL_ARG_STRING, &opt.word_list, "LIST",
         "the words, comma-separated (1..32 bytes each, up to 1024), e.g. cuti,gold,text,word", 0,
         0, NULL},
        {0, "words-file", CL_ARG_STRING, &opt.words_path, "FILE",
         "the words, one a line (any bytes but newline; a CR before it is dropped)", 0, 0, NULL},
        {0, "nwords", CL_ARG_INT, &opt.vocabulary_words, "K",
         "K words of the synthetic text's vocabulary, common and rare, 1..32 bytes", 1,
         PM_MAX_WORDS, NULL},
        {0, "extended", CL_ARG_FLAG, &opt.extended, NULL,
         "--check also at 1G bytes (the reference takes 16 s a run there: about a minute)", 0, 0,
         NULL},
        {0},
    };
    const cl_program prog = {
        .name = "pattern_match",
        .summary = "How often each word of a list occurs in a text, at every byte position "
                   "(Oxford CUDA practical 9): 4 bytes compared as one int; the practical's "
                   "one-block design as the reference. Default words: the practical's cuti, "
                   "gold, text, word and 28 common English words.",
        .example = "pattern_match -n 1G -k all --nwords 1024",
        .n_default = 100000000,
        .n_min = 1,
        .n_max = max_text_bytes,
        .n_meaning = "text bytes (a synthetic English-like text: Zipf-distributed words)",
        .n_column = "bytes",
        .kernels = versions(),
        .options = own,
    };
    cl_parse_args_or_exit(&prog, argc, argv, &opt.common);
    if ((opt.word_list != NULL) + (opt.words_path != NULL) + (opt.vocabulary_words != 0) > 1)
        cl_die(CL_EXIT_USAGE, "--words, --words-file and --nwords each give the word list: "
                              "use one");
    if (opt.text_path && opt.common.n_given)
        cl_die(CL_EXIT_USAGE, "-n and --text: the file gives the size; drop -n");
    if (opt.extended && !opt.common.check)
        cl_die(CL_EXIT_USAGE, "--extended adds sizes to --check's table; give it with --check");
    if (opt.common.check && opt.text_path)
        cl_die(CL_EXIT_USAGE, "--check scores synthetic texts of 1M to 100M bytes (1G with "
                              "--extended): drop --text");
    static inputs in; // the word list is 33 KB
    read_inputs(&opt, &in);
    cl_device_open((int)opt.common.device);
    bool ok;
    if (opt.common.check) {
        ok = run_check_table(&opt, &in);
    } else {
        problem p = make_problem(&opt, &in, opt.common.n);
        ok = run_versions(&p, &opt);
        free_problem(&p);
    }
    free(in.file_text);
    return ok ? CL_EXIT_OK : CL_EXIT_WRONG;
}

// One run, or one a line of a --batch file (common/cli.h).
int main(int argc, char **argv) { return cl_main(argc, argv, run); }
