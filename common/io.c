#include "io.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#ifdef CL_HAVE_PNG
#include <png.h>
#endif

#include "check.h"

int cl_npy_write(const char *path, const char *dtype, const void *data, size_t elem_size, int ndim,
                 const size_t *shape)
{
    char header[256];
    char dims[128] = "";
    size_t count = 1;
    for (int d = 0; d < ndim; d++) {
        size_t used = strlen(dims);
        snprintf(dims + used, sizeof dims - used, d ? ", %zu" : "%zu", shape[d]);
        count *= shape[d];
    }
    int len = snprintf(header, sizeof header,
                       "{'descr': '%s', 'fortran_order': False, 'shape': (%s%s), }", dtype, dims,
                       ndim == 1 ? "," : "");
    // Magic (6) + version (2) + header length (2) + header, padded with spaces and
    // ended by '\n' to a multiple of 64 bytes, as NumPy writes it.
    size_t total = 10 + (size_t)len + 1;
    size_t padded = (total + 63) / 64 * 64;
    memset(header + len, ' ', padded - total);
    header[len + padded - total] = '\n';
    uint16_t header_len = (uint16_t)(padded - 10);
    unsigned char prefix[10] = {0x93,
                                'N',
                                'U',
                                'M',
                                'P',
                                'Y',
                                1,
                                0,
                                (unsigned char)(header_len & 0xFF),
                                (unsigned char)(header_len >> 8)};
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    int ok = fwrite(prefix, 1, 10, f) == 10 && fwrite(header, 1, header_len, f) == header_len &&
             fwrite(data, elem_size, count, f) == count;
    int saved = errno;
    if (fclose(f) != 0)
        ok = 0;
    errno = saved ? saved : EIO;
    return ok ? 0 : -1;
}

void cl_dump_npy(const char *prefix, const char *role, const char *dtype, const void *data,
                 size_t elem_size, int ndim, const size_t *shape)
{
    char path[4096];
    snprintf(path, sizeof path, "%s_%s.npy", prefix, role);
    if (cl_npy_write(path, dtype, data, elem_size, ndim, shape) != 0)
        cl_die(CL_EXIT_USAGE, "--dump %s: cannot write %s: %s", prefix, path, strerror(errno));
}

int cl_write_ppm(const char *path, int width, int height, const uint8_t *rgb)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    size_t bytes = (size_t)width * height * 3;
    int ok = fprintf(f, "P6\n%d %d\n255\n", width, height) > 0 && fwrite(rgb, 1, bytes, f) == bytes;
    if (fclose(f) != 0)
        ok = 0;
    return ok ? 0 : -1;
}

#ifdef CL_HAVE_PNG
int cl_write_png(const char *path, int width, int height, const uint8_t *rgb)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!png || !info || setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        fclose(f);
        errno = EIO;
        return -1;
    }
    png_init_io(png, f);
    png_set_IHDR(png, info, (png_uint_32)width, (png_uint_32)height, 8, PNG_COLOR_TYPE_RGB,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (int y = 0; y < height; y++)
        png_write_row(png, (png_const_bytep)(rgb + (size_t)y * width * 3));
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    return fclose(f) == 0 ? 0 : -1;
}
#endif

const char *cl_image_extension(void)
{
#ifdef CL_HAVE_PNG
    return "png";
#else
    return "ppm";
#endif
}

int cl_image_write(const char *base, int width, int height, const uint8_t *rgb, char *written_path,
                   size_t path_len)
{
    char err[256];
    snprintf(written_path, path_len, "%s.%s", base, cl_image_extension());
    return cl_image_write_file(written_path, width, height, rgb, err, sizeof err);
}

void cl_rgba_f32_to_rgb8(const float *rgba, size_t pixels, uint8_t *rgb)
{
    for (size_t p = 0; p < pixels; p++) {
        for (int c = 0; c < 3; c++) {
            float v = rgba[4 * p + c];
            v = v < 0.0f ? 0.0f : v > 1.0f ? 1.0f : v; // NaN stays NaN: caught below
            rgb[3 * p + c] = v == v ? (uint8_t)(v * 255.0f + 0.5f) : 0;
        }
    }
}

// --- reading images ---------------------------------------------------------------------------

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

// The extension of path, lower case, without the dot ("" when there is none).
static void extension_of(const char *path, char *ext, size_t len)
{
    const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
    ext[0] = 0;
    if (!dot || (slash && dot < slash))
        return;
    size_t i = 0;
    for (dot++; *dot && i + 1 < len; dot++)
        ext[i++] = (char)tolower((unsigned char)*dot);
    ext[i] = 0;
}

// The next PPM header number: whitespace and # comments skipped. -1: none there.
static long ppm_number(FILE *f)
{
    int ch = fgetc(f);
    for (;;) {
        while (ch != EOF && isspace(ch))
            ch = fgetc(f);
        if (ch != '#')
            break;
        while (ch != EOF && ch != '\n')
            ch = fgetc(f);
    }
    if (ch == EOF || !isdigit(ch)) {
        if (ch != EOF)
            ungetc(ch, f);
        return -1;
    }
    long value = 0;
    while (ch != EOF && isdigit(ch)) {
        if (value > 100000000L)
            return -1;
        value = value * 10 + (ch - '0');
        ch = fgetc(f);
    }
    if (ch != EOF)
        ungetc(ch, f);
    return value;
}

static int check_size(long width, long height, char *err, size_t errlen)
{
    if (width < 1 || height < 1)
        return fail(err, errlen, "bad header: width and height must be at least 1 (got %ld x %ld)",
                    width, height);
    if (width > CL_IMAGE_MAX_SIDE || height > CL_IMAGE_MAX_SIDE ||
        (size_t)width * (size_t)height > CL_IMAGE_MAX_PIXELS)
        return fail(err, errlen, "image too large: %ld x %ld (at most %d a side, %zu pixels)",
                    width, height, CL_IMAGE_MAX_SIDE, (size_t)CL_IMAGE_MAX_PIXELS);
    return 0;
}

static int read_ppm(FILE *f, cl_image *image, char *err, size_t errlen)
{
    char magic[2];
    if (fread(magic, 1, 2, f) != 2 || magic[0] != 'P' || (magic[1] != '3' && magic[1] != '6'))
        return fail(err, errlen, "bad magic: not a PPM (expected P3 or P6)");
    const long width = ppm_number(f), height = width < 0 ? -1 : ppm_number(f),
               maxval = height < 0 ? -1 : ppm_number(f);
    if (width < 0 || height < 0 || maxval < 0)
        return fail(err, errlen, "bad header: width, height and maxval expected after %c%c",
                    magic[0], magic[1]);
    if (check_size(width, height, err, errlen) != 0)
        return -1;
    if (maxval != 255)
        return fail(err, errlen, "maxval %ld: only 255 (8 bits a channel) is supported", maxval);
    const size_t bytes = (size_t)width * (size_t)height * 3;
    uint8_t *rgb = malloc(bytes);
    if (!rgb)
        return fail(err, errlen, "out of host memory for %zu bytes of pixels", bytes);
    if (magic[1] == '6') {
        int ch = fgetc(f); // exactly one whitespace character ends the header
        size_t got = ch != EOF && isspace(ch) ? fread(rgb, 1, bytes, f) : 0;
        if (got != bytes) {
            free(rgb);
            return fail(err, errlen, "truncated pixel data: %zu of %zu bytes", got, bytes);
        }
    } else {
        for (size_t i = 0; i < bytes; i++) {
            long v = ppm_number(f);
            if (v < 0 || v > 255) {
                free(rgb);
                return v < 0
                           ? fail(err, errlen, "truncated pixel data: %zu of %zu values", i, bytes)
                           : fail(err, errlen, "value %ld above maxval 255", v);
            }
            rgb[i] = (uint8_t)v;
        }
    }
    image->width = (int)width;
    image->height = (int)height;
    image->rgb = rgb;
    return 0;
}

#ifdef CL_HAVE_PNG
static int read_png(const char *path, cl_image *image, char *err, size_t errlen)
{
    png_image png = {.version = PNG_IMAGE_VERSION};
    if (!png_image_begin_read_from_file(&png, path))
        return fail(err, errlen, "not a readable PNG: %s", png.message);
    if (check_size((long)png.width, (long)png.height, err, errlen) != 0) {
        png_image_free(&png);
        return -1;
    }
    png.format = PNG_FORMAT_RGB; // grey and palette images expand; alpha is composited on black
    const size_t bytes = PNG_IMAGE_SIZE(png);
    uint8_t *rgb = malloc(bytes);
    if (!rgb) {
        png_image_free(&png);
        return fail(err, errlen, "out of host memory for %zu bytes of pixels", bytes);
    }
    if (!png_image_finish_read(&png, NULL, rgb, 0, NULL)) {
        free(rgb);
        return fail(err, errlen, "not a readable PNG: %s", png.message);
    }
    image->width = (int)png.width;
    image->height = (int)png.height;
    image->rgb = rgb;
    return 0;
}
#endif

int cl_image_read(const char *path, cl_image *image, char *err, size_t errlen)
{
    char ext[8];
    extension_of(path, ext, sizeof ext);
    const bool ppm = strcmp(ext, "ppm") == 0 || strcmp(ext, "pnm") == 0;
    if (!ppm && strcmp(ext, "png") != 0)
        return fail(err, errlen, "unknown extension '%s' (use .ppm or .png)", ext);
    FILE *f = fopen(path, "rb");
    if (!f)
        return fail(err, errlen, "cannot open: %s", strerror(errno));
    int rc;
    if (ppm) {
        rc = read_ppm(f, image, err, errlen);
        fclose(f);
        return rc;
    }
    fclose(f);
#ifdef CL_HAVE_PNG
    return read_png(path, image, err, errlen);
#else
    return fail(err, errlen, "PNG input needs libpng, which this build lacks (use a .ppm)");
#endif
}

void cl_image_free(cl_image *image)
{
    free(image->rgb);
    image->rgb = NULL;
}

int cl_image_write_file(const char *path, int width, int height, const uint8_t *rgb, char *err,
                        size_t errlen)
{
    char ext[8], partial[4200];
    extension_of(path, ext, sizeof ext);
    const bool png = strcmp(ext, "png") == 0;
    if (!png && strcmp(ext, "ppm") != 0)
        return fail(err, errlen, "unknown extension '%s' (use .ppm or .png)", ext);
#ifndef CL_HAVE_PNG
    if (png)
        return fail(err, errlen, "PNG output needs libpng, which this build lacks (use a .ppm)");
#endif
    snprintf(partial, sizeof partial, "%s.partial", path);
#ifdef CL_HAVE_PNG
    int rc =
        png ? cl_write_png(partial, width, height, rgb) : cl_write_ppm(partial, width, height, rgb);
#else
    int rc = cl_write_ppm(partial, width, height, rgb);
#endif
    if (rc == 0 && rename(partial, path) != 0)
        rc = -1;
    if (rc != 0) {
        int saved = errno ? errno : EIO;
        remove(partial);
        fail(err, errlen, "cannot write: %s", strerror(saved));
        errno = saved;
        return -1;
    }
    return 0;
}

void cl_require_writable_dir(const char *flag, const char *path)
{
    const char *slash = strrchr(path, '/');
    char dir[4096] = ".";
    if (slash)
        snprintf(dir, sizeof dir, "%.*s", slash > path ? (int)(slash - path) : 1, path);
    if (access(dir, W_OK) != 0)
        cl_die(CL_EXIT_USAGE, "%s %s: directory %s: %s", flag, path, dir, strerror(errno));
    // A directory may say it is writable and still take no file (/proc, a read-only
    // mount for root): a file made and removed there says for sure.
    char probe[4200];
    snprintf(probe, sizeof probe, "%s/.cudalab-probe-XXXXXX", dir);
    const int fd = mkstemp(probe);
    if (fd < 0)
        cl_die(CL_EXIT_USAGE, "%s %s: directory %s: cannot create a file there: %s", flag, path,
               dir, strerror(errno));
    close(fd);
    unlink(probe);
}

const char *cl_frame_prefix(const char *flag, const char *name, char *out, size_t len)
{
    snprintf(out, len, "%s", name);
    const char *slash = strrchr(out, '/');
    char *dot = strrchr(out, '.');
    if (dot && (!slash || dot > slash)) {
        if (strcasecmp(dot, ".png") != 0 && strcasecmp(dot, ".ppm") != 0)
            cl_die(CL_EXIT_USAGE,
                   "%s %s: unknown extension (give NAME, NAME.png or NAME.ppm: frames are "
                   "written as NAME_0000.%s, ...)",
                   flag, name, cl_image_extension());
        *dot = '\0';
    }
    cl_require_writable_dir(flag, name);
    return out;
}
