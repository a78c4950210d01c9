// fft v7's HUGE kernels (staged_kernels.cuh: the primes 37 .. 47 beside radices to 16, up
// to 255 registers a thread), compiled in a file of their own: their 47-point stages are a
// third of the staged kernels' compile time, which a parallel build now spends beside
// staged.cu's.
#include "staged_kernels.cuh"

staged_kernel staged_huge_kernel_of(const pass_desc &d) { return staged_kernel_in<TIER_HUGE>(d); }
