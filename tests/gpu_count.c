// Prints how many GPUs a cudalab binary would find usable here: the question every
// binary asks (cudaGetDeviceCount through cl_device_count_or_reason, so
// CUDA_VISIBLE_DEVICES counts), for the tests that need N GPUs to skip otherwise
// (nvidia-smi counts the machine's GPUs whatever CUDA_VISIBLE_DEVICES hides). Prints 0
// and why on stderr when there is no usable one.
#include <stdio.h>

#include "device.h"

int main(void)
{
    char why[512];
    const int count = cl_device_count_or_reason(why, sizeof why);
    if (count == 0)
        fprintf(stderr, "gpu_count: no usable CUDA device: %s\n", why);
    printf("%d\n", count);
    return 0;
}
