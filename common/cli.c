#include "cli.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "io.h"
#include "report.h"

const cl_kernel_info *cl_kernel_at(cl_kernel_list list, int i)
{
    return (const cl_kernel_info *)((const char *)list.first + (size_t)i * list.stride);
}

cl_kernel_list cl_kernel_list_make(const cl_kernel_info *first, int count, size_t stride,
                                   const char *fastest_name)
{
    cl_kernel_list list = {first, count, stride, -1};
    for (int i = 0; i < count; i++)
        if (strcmp(cl_kernel_at(list, i)->name, fastest_name) == 0)
            list.fastest = i;
    if (list.fastest < 0) // a slip in a version table: every run stops here, tests too
        cl_die(CL_EXIT_CUDA, "internal error: the default version '%s' is not in the table",
               fastest_name);
    return list;
}

bool cl_parse_size(const char *text, double *value)
{
    // Only digits and '.' may start a size, and no hex: strtod would also take "-3",
    // "inf", "0x10".
    if (!text || !(isdigit((unsigned char)text[0]) || text[0] == '.') || strpbrk(text, "xXpP"))
        return false;
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || errno == ERANGE)
        return false;
    static const struct {
        const char *suffix;
        double scale;
    } suffixes[] = {
        {"", 1.0},         {"K", 1e3},           {"M", 1e6},
        {"G", 1e9},        {"T", 1e12},          {"Ki", 1024.0},
        {"Mi", 1048576.0}, {"Gi", 1073741824.0}, {"Ti", 1099511627776.0},
    };
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        if (strcmp(end, suffixes[i].suffix) == 0) {
            v *= suffixes[i].scale;
            // Sizes are whole numbers, exactly representable (below 2^53).
            if (!isfinite(v) || v != floor(v) || v > 9007199254740992.0)
                return false;
            *value = v;
            return true;
        }
    }
    return false;
}

static bool parse_long(const char *text, long *value)
{
    if (!text || !*text)
        return false;
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (*end != '\0' || errno == ERANGE || isspace((unsigned char)text[0]))
        return false;
    *value = v;
    return true;
}

// The common options point into `args`; ranges that depend on the program come from prog.
enum { N_COMMON = 9 };
static void build_common_options(const cl_program *prog, cl_common_args *args,
                                 cl_option opts[N_COMMON + 1])
{
    static const char n_help_fmt[] = "problem size in %s";
    static char n_help[96];
    snprintf(n_help, sizeof n_help, n_help_fmt, prog->n_meaning ? prog->n_meaning : "elements");
    const cl_option common[N_COMMON] = {
        {'n', prog->n_long ? prog->n_long : "size", CL_ARG_SIZE, &args->n, "SIZE", n_help,
         (double)prog->n_min, (double)prog->n_max, NULL},
        {'k', "kernel", CL_ARG_STRING, &args->kernel, "NAME",
         "kernel version (name or number) or 'all' (default: the fastest); with --check, the one "
         "scored",
         0, 0, NULL},
        {'i', "iters", CL_ARG_INT, &args->iters, "R",
         "timed repeats; 0 = automatic: >= 20 repeats and >= 50 ms, about 1 s at most", 0, 1e6,
         NULL},
        {'S', "seed", CL_ARG_INT, &args->seed, "S", "seed of the input generator", 0,
         9007199254740992.0, NULL},
        {'d', "device", CL_ARG_INT, &args->device, "D", "CUDA device index", 0, 1023, NULL},
        {0, "check", CL_ARG_FLAG, &args->check, NULL,
         "print the score table of the -k version (default: the fastest) against the peer", 0, 0,
         NULL},
        {0, "no-peer", CL_ARG_FLAG, &args->no_peer, NULL,
         "leave the peer (the library's version) out: only the -k versions run, quicker while "
         "you work on one",
         0, 0, NULL},
        {0, "json", CL_ARG_FLAG, &args->json, NULL, "print one JSON object per result line", 0, 0,
         NULL},
        {0, "dump", CL_ARG_STRING, &args->dump, "PREFIX",
         "write PREFIX_input.npy, PREFIX_output.npy, PREFIX_gold.npy", 0, 0, NULL},
    };
    memcpy(opts, common, sizeof common);
    opts[N_COMMON] = (cl_option){0};
}

static const cl_option *find_option(const cl_option *common, const cl_option *own, char short_name,
                                    const char *long_name, size_t long_len)
{
    for (int pass = 0; pass < 2; pass++) {
        const cl_option *o = pass == 0 ? common : own;
        for (int i = 0; o && o[i].long_name; i++) {
            if (short_name && o[i].short_name == short_name)
                return &o[i];
            if (long_name && strlen(o[i].long_name) == long_len &&
                strncmp(o[i].long_name, long_name, long_len) == 0)
                return &o[i];
        }
    }
    return NULL;
}

// The option as it was typed: "-r" or "--radius" (an error names the flag the user wrote).
static void option_label(const cl_option *o, bool typed_long, char *buf, size_t len)
{
    if (o->short_name && !(typed_long && o->long_name))
        snprintf(buf, len, "-%c", o->short_name);
    else
        snprintf(buf, len, "--%s", o->long_name);
}

static void format_number(double v, char *buf, size_t len)
{
    snprintf(buf, len, v == floor(v) && fabs(v) < 1e19 ? "%.0f" : "%g", v);
}

static void choices_list(const cl_option *o, char *buf, size_t len)
{
    buf[0] = '\0';
    for (int i = 0; o->choices[i]; i++) {
        size_t used = strlen(buf);
        snprintf(buf + used, len - used, "%s%s", i ? ", " : "", o->choices[i]);
    }
}

// Examples of the size forms that lie in [min, max] (one form a scale, the largest set
// that fits), or "" where none does.
static const char *size_examples(double min, double max)
{
    static const struct {
        const char *text;
        double lo, hi; // the smallest and largest value the examples name
    } sets[] = {
        {" (e.g. 1000000, 1e6, 16M, 1Mi)", 1e6, 16e6},
        {" (e.g. 1000000, 1e6, 1M, 1Mi)", 1e6, 1048576.0},
        {" (e.g. 1000, 1e3, 4K, 1Ki)", 1e3, 4e3},
        {" (e.g. 100, 1e2)", 100.0, 100.0},
    };
    for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++)
        if (sets[i].lo >= min && sets[i].hi <= max)
            return sets[i].text;
    return "";
}

static bool set_value(const cl_option *o, const char *label, const char *value, char *err,
                      size_t errlen)
{
    char lo[32], hi[32];
    format_number(o->min, lo, sizeof lo);
    format_number(o->max, hi, sizeof hi);
    switch (o->kind) {
    case CL_ARG_SIZE: {
        double v;
        if (!cl_parse_size(value, &v) || v < o->min || v > o->max) {
            snprintf(err, errlen, "%s %s: expected a size in %s..%s%s", label, value, lo, hi,
                     size_examples(o->min, o->max));
            return false;
        }
        *(size_t *)o->dest = (size_t)v;
        return true;
    }
    case CL_ARG_INT: {
        long v;
        if (!parse_long(value, &v) || (double)v < o->min || (double)v > o->max) {
            snprintf(err, errlen, "%s %s: expected an integer in %s..%s", label, value, lo, hi);
            return false;
        }
        *(long *)o->dest = v;
        return true;
    }
    case CL_ARG_REAL: {
        char *end;
        errno = 0;
        const double v = strtod(value, &end);
        if (end == value || *end || errno || !isfinite(v) || v < o->min || v > o->max) {
            snprintf(err, errlen, "%s %s: expected a number in %s..%s", label, value, lo, hi);
            return false;
        }
        *(double *)o->dest = v;
        return true;
    }
    case CL_ARG_STRING:
        if (!*value) {
            snprintf(err, errlen, "%s: expected a non-empty %s", label, o->metavar);
            return false;
        }
        *(const char **)o->dest = value;
        return true;
    case CL_ARG_CHOICE:
        for (int i = 0; o->choices[i]; i++) {
            if (strcmp(o->choices[i], value) == 0) {
                *(int *)o->dest = i;
                return true;
            }
        }
        {
            char list[256];
            choices_list(o, list, sizeof list);
            snprintf(err, errlen, "%s %s: expected one of %s", label, value, list);
        }
        return false;
    case CL_ARG_FLAG:
        break;
    }
    return false;
}

enum { KERNEL_NOT_FOUND = -2 }; // -1 is "all"

// The number a version's name starts with ("v3-shared": 3), or -1 ("yours").
static long version_number(const char *name)
{
    char *end;
    const long number = name[0] == 'v' ? strtol(name + 1, &end, 10) : -1;
    return number >= 0 && end != name + 1 && (*end == '-' || *end == '\0') ? number : -1;
}

// A version by its full name or its number ("3" or "v3"; a number never names "yours");
// KERNEL_NOT_FOUND otherwise.
static int find_kernel(cl_kernel_list list, const char *name)
{
    char *end;
    long number = strtol(name[0] == 'v' ? name + 1 : name, &end, 10);
    bool numeric = *end == '\0' && end != name + (name[0] == 'v');
    for (int i = 0; i < list.count; i++) {
        const char *version = cl_kernel_at(list, i)->name;
        if (strcmp(version, name) == 0 || (numeric && number == version_number(version)))
            return i;
    }
    return KERNEL_NOT_FOUND;
}

static bool fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return false;
}

// The destinations of the options the last parse set, for cl_option_given.
enum { MAX_GIVEN = 64 };
static const void *given[MAX_GIVEN];
static int given_count;

bool cl_option_given(const void *dest)
{
    for (int i = 0; i < given_count; i++)
        if (given[i] == dest)
            return true;
    return false;
}

static void note_given(const void *dest)
{
    if (given_count < MAX_GIVEN && !cl_option_given(dest))
        given[given_count++] = dest;
}

static bool parse_all(const cl_program *prog, int argc, char **argv, cl_common_args *out,
                      const cl_option *common, char *err, size_t errlen)
{
    int positionals = 0;
    given_count = 0;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const cl_option *o = NULL;
        const char *attached = NULL; // value given as --name=VALUE or -nVALUE
        if (arg[0] == '-' && arg[1] == '-' && arg[2]) {
            const char *name = arg + 2;
            const char *eq = strchr(name, '=');
            size_t len = eq ? (size_t)(eq - name) : strlen(name);
            o = find_option(common, prog->options, 0, name, len);
            // --size is -n everywhere, also where -n has its own long name (--dim).
            if (!o && len == 4 && strncmp(name, "size", 4) == 0)
                o = find_option(common, prog->options, 'n', NULL, 0);
            if (eq)
                attached = eq + 1;
        } else if (arg[0] == '-' && arg[1] && arg[1] != '-') {
            o = find_option(common, prog->options, arg[1], NULL, 0);
            if (arg[2])
                attached = arg + 2;
        } else {
            if (prog->positional && positionals == 0) {
                *prog->positional_dest = arg;
                positionals++;
                continue;
            }
            return fail(err, errlen, "unexpected argument '%s'", arg);
        }
        if (!o && strcmp(arg, "--batch") == 0)
            return fail(err, errlen, "--batch FILE: give it alone (%s --batch FILE)", prog->name);
        if (!o)
            return fail(err, errlen, "unknown option '%s'", arg);
        char label[48];
        option_label(o, arg[1] == '-', label, sizeof label);
        if (o->kind == CL_ARG_FLAG) {
            if (attached)
                return fail(err, errlen, "%s takes no value", label);
            *(bool *)o->dest = true;
            note_given(o->dest);
            continue;
        }
        const char *value = attached;
        if (!value) {
            if (i + 1 >= argc)
                return fail(err, errlen, "%s: missing value %s", label, o->metavar);
            value = argv[++i];
        }
        if (!set_value(o, label, value, err, errlen))
            return false;
        note_given(o->dest);
        out->n_given |= o->dest == &out->n;
    }
    if (out->check && out->no_peer)
        return fail(err, errlen,
                    "--no-peer: --check scores a version against the peer; use one or the other");
    if (out->check && out->n_given)
        return fail(err, errlen,
                    "-n (--%s): --check times its table's own sizes; leave out -n, or --check "
                    "to run at -n",
                    prog->n_long ? prog->n_long : "size");
    out->default_index = prog->kernels.fastest;
    if (!out->kernel) {
        out->kernel_index = prog->kernels.fastest;
    } else if (strcmp(out->kernel, "all") == 0) {
        if (out->check)
            return fail(err, errlen,
                        "-k all: --check scores one version; name it (e.g. -k yours) or leave "
                        "-k out for the fastest");
        out->kernel_index = -1;
    } else {
        out->kernel_index = find_kernel(prog->kernels, out->kernel);
        if (out->kernel_index == KERNEL_NOT_FOUND) {
            char names[512] = "";
            for (int k = 0; k < prog->kernels.count; k++) {
                size_t used = strlen(names);
                snprintf(names + used, sizeof names - used, "%s, ",
                         cl_kernel_at(prog->kernels, k)->name);
            }
            return fail(err, errlen, "-k %s: unknown kernel; expected one of %sor all", out->kernel,
                        names);
        }
    }
    return true;
}

cl_parse_result cl_parse_args(const cl_program *prog, int argc, char **argv, cl_common_args *out,
                              char *err, size_t errlen)
{
    *out = (cl_common_args){.n = prog->n_default, .seed = 1234};
    err[0] = '\0';
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
            return CL_PARSE_HELP;
    cl_option common[N_COMMON + 1];
    build_common_options(prog, out, common);
    return parse_all(prog, argc, argv, out, common, err, errlen) ? CL_PARSE_OK : CL_PARSE_ERROR;
}

enum { HELP_WIDTH = 80, HELP_INDENT = 29 }; // "  " + a 26-column option + " "

// Prints `text` (wrapped at spaces) and then `tail` (kept whole) from column `column`,
// where the caller's line stands, wrapping at HELP_WIDTH columns; continuation lines
// start at `indent`. Ends the line.
static void print_wrapped(FILE *f, const char *text, const char *tail, int column, int indent)
{
    bool line_start = true;
    for (int part = 0; part < 2; part++) {
        const char *p = part ? tail : text;
        // The tail stays whole where it fits on a line of its own.
        const bool whole = part && (int)strlen(tail) <= HELP_WIDTH - indent;
        while (*p) {
            while (*p == ' ')
                p++;
            if (!*p)
                break;
            const int len = whole ? (int)strlen(p) : (int)strcspn(p, " ");
            if (!line_start && column + 1 + len > HELP_WIDTH) {
                fprintf(f, "\n%*s", indent, "");
                column = indent;
                line_start = true;
            }
            if (!line_start) {
                fputc(' ', f);
                column++;
            }
            fwrite(p, 1, (size_t)len, f);
            column += len;
            p += len;
            line_start = false;
        }
    }
    fputc('\n', f);
}

// The option's default and range, unless its help already names its default (says
// "default": then the range alone); a default outside the range (0 for "off") is said
// as such.
static void option_extra(const cl_option *o, char *extra, size_t len)
{
    char lo[32], hi[32], list[256], value[48] = "";
    format_number(o->min, lo, sizeof lo);
    format_number(o->max, hi, sizeof hi);
    const bool named = strstr(o->help, "default") != NULL;
    double v = 0;
    switch (o->kind) {
    case CL_ARG_SIZE:
        v = (double)*(size_t *)o->dest;
        snprintf(value, sizeof value, "%zu", *(size_t *)o->dest);
        break;
    case CL_ARG_INT:
        v = (double)*(long *)o->dest;
        snprintf(value, sizeof value, "%ld", *(long *)o->dest);
        break;
    case CL_ARG_REAL:
        v = *(double *)o->dest;
        snprintf(value, sizeof value, "%g", v);
        break;
    case CL_ARG_CHOICE:
        choices_list(o, list, sizeof list);
        if (named)
            snprintf(extra, len, "(one of: %s)", list);
        else
            snprintf(extra, len, "(%s; default %s)", list, o->choices[*(int *)o->dest]);
        return;
    case CL_ARG_STRING:
        if (*(const char **)o->dest && !named)
            snprintf(extra, len, "(default %s)", *(const char **)o->dest);
        return;
    case CL_ARG_FLAG:
        return;
    }
    if (named)
        snprintf(extra, len, "(%s..%s)", lo, hi);
    else if (v < o->min || v > o->max)
        snprintf(extra, len, "(%s..%s; off by default)", lo, hi);
    else
        snprintf(extra, len, "(default %s; %s..%s)", value, lo, hi);
}

static void print_option(FILE *f, const cl_option *o)
{
    char left[64];
    if (o->short_name)
        snprintf(left, sizeof left, "-%c, --%s%s%s", o->short_name, o->long_name,
                 o->metavar ? " " : "", o->metavar ? o->metavar : "");
    else
        snprintf(left, sizeof left, "    --%s%s%s", o->long_name, o->metavar ? " " : "",
                 o->metavar ? o->metavar : "");
    char extra[320] = "";
    option_extra(o, extra, sizeof extra);
    const int column = fprintf(f, "  %-26s ", left);
    print_wrapped(f, o->help, extra, column, HELP_INDENT);
}

void cl_print_help(const cl_program *prog, FILE *f)
{
    cl_common_args defaults = {.n = prog->n_default, .seed = 1234};
    cl_option common[N_COMMON + 1];
    build_common_options(prog, &defaults, common);
    fprintf(f, "usage: %s [options]%s%s\n\n", prog->name, prog->positional ? " " : "",
            prog->positional ? prog->positional : "");
    print_wrapped(f, prog->summary, "", 0, 0);
    fprintf(f, "\noptions:\n");
    for (int i = 0; i < N_COMMON; i++) {
        if (common[i].short_name == 'k')
            continue; // printed with the kernel list below
        print_option(f, &common[i]);
    }
    fprintf(f, "  %-26s %s\n", "-h, --help", "print this help and exit");
    print_option(f, &(cl_option){0, "batch", CL_ARG_FLAG, NULL, "FILE",
                                 "alone, FILE not a number: run each line of FILE as this "
                                 "program's options, all in one process (one CUDA context: "
                                 "quicker for many small runs)",
                                 0, 0, NULL});
    for (int i = 0; prog->options && prog->options[i].long_name; i++)
        print_option(f, &prog->options[i]);
    fprintf(f, "\n");
    print_wrapped(f,
                  "sizes: 1000000, 1e6, 16M, 1G (K, M, G = 10^3, 10^6, 10^9); 1Ki, 1Mi, 1Gi = "
                  "2^10, 2^20, 2^30",
                  "", fprintf(f, "  "), 9);
    fprintf(f, "\nkernels (-k, --kernel NAME|N|all; default: %s):\n",
            cl_kernel_at(prog->kernels, prog->kernels.fastest)->name);
    for (int k = 0; k < prog->kernels.count; k++) {
        const cl_kernel_info *info = cl_kernel_at(prog->kernels, k);
        const int column = fprintf(f, "  %-26s ", info->name);
        print_wrapped(f, info->idea, "", column, HELP_INDENT);
    }
    fprintf(f, "\n");
    print_wrapped(f,
                  "exit codes: 0 ok, 1 wrong result, 2 usage error, 3 CUDA or library error, 77 "
                  "no usable CUDA device",
                  "", 0, 12);
    fprintf(f, "\nexample:\n  %s\n", prog->example);
}

const char *cl_size_column = "n";

void cl_parse_args_or_exit(const cl_program *prog, int argc, char **argv, cl_common_args *out)
{
    cl_progname = prog->name;
    cl_size_column = prog->n_column ? prog->n_column : "n";
    char err[768];
    switch (cl_parse_args(prog, argc, argv, out, err, sizeof err)) {
    case CL_PARSE_HELP:
        cl_print_help(prog, stdout);
        exit(CL_EXIT_OK);
    case CL_PARSE_ERROR:
        cl_die(CL_EXIT_USAGE, "%s (see --help)", err);
    case CL_PARSE_OK:
        break;
    }
    cl_report_set_json(out->json, prog->name);
    if (out->dump) // an output that cannot be written is said now, not after the work
        cl_require_writable_dir("--dump", out->dump);
}

// --- batches ------------------------------------------------------------------------

static bool batch_running; // a batch's run is under way: its exit prints the mark

static void batch_exit(int status, void *unused)
{
    (void)unused;
    if (!batch_running)
        return;
    fflush(stderr);
    printf(CL_BATCH_MARK "%d, the batch ends\n", status);
}

static int run_batch(char *program, const char *path, int (*run)(int argc, char **argv))
{
    const char *slash = strrchr(program, '/');
    cl_progname = slash ? slash + 1 : program;
    FILE *f = fopen(path, "r");
    if (!f)
        cl_die(CL_EXIT_USAGE, "--batch %s: cannot read it", path);
    on_exit(batch_exit, NULL);
    enum { MAX_ARGS = 64 };
    char line[4096];
    while (fgets(line, sizeof line, f)) {
        if (!strchr(line, '\n') && !feof(f))
            cl_die(CL_EXIT_USAGE, "--batch %s: a line over %zu bytes", path, sizeof line - 2);
        char *args[MAX_ARGS + 1] = {program};
        int n = 1;
        for (char *tok = strtok(line, " \t\r\n"); tok; tok = strtok(NULL, " \t\r\n")) {
            if (n == MAX_ARGS)
                cl_die(CL_EXIT_USAGE, "--batch %s: a line of more than %d arguments", path,
                       MAX_ARGS - 1);
            args[n++] = tok;
        }
        if (n == 1)
            continue;
        batch_running = true;
        const int rc = run(n, args);
        batch_running = false;
        fflush(stdout);
        fflush(stderr);
        printf(CL_BATCH_MARK "%d\n", rc);
        fflush(stdout);
    }
    fclose(f);
    return CL_EXIT_OK;
}

int cl_main(int argc, char **argv, int (*run)(int argc, char **argv))
{
    if (argc == 3 && strcmp(argv[1], "--batch") == 0)
        return run_batch(argv[0], argv[2], run);
    return run(argc, argv);
}
