#include "io.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
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
    // Written under a temporary name, then renamed: a failed write leaves no partial file.
    char partial[4200];
    snprintf(written_path, path_len, "%s.%s", base, cl_image_extension());
    snprintf(partial, sizeof partial, "%s.partial", written_path);
#ifdef CL_HAVE_PNG
    int rc = cl_write_png(partial, width, height, rgb);
#else
    int rc = cl_write_ppm(partial, width, height, rgb);
#endif
    if (rc == 0 && rename(partial, written_path) != 0)
        rc = -1;
    if (rc != 0) {
        int saved = errno;
        remove(partial);
        errno = saved;
    }
    return rc;
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
