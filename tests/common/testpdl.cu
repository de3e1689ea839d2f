/* A late writer for the tests of PDL between calls (kernels/detail/
 * launch.cuh): see testcuda.h. */
#include <cstdint>

#include <cuda_runtime.h>

#include "detail/launch.cuh"

namespace {

__global__ void
late_copy_kernel (uint8_t *dst, const uint8_t *src, size_t n,
    unsigned long long ns)
{
  /* the next kernel on the stream may be scheduled now, before this one
   * has written anything */
  cip::detail::allow_next_kernel ();
  unsigned long long t0, t;
  asm volatile ("mov.u64 %0, %%globaltimer;" : "=l" (t0));
  do
    asm volatile ("mov.u64 %0, %%globaltimer;" : "=l" (t));
  while (t - t0 < ns);
  for (size_t i = (size_t) blockIdx.x * blockDim.x + threadIdx.x; i < n;
      i += (size_t) gridDim.x * blockDim.x)
    dst[i] = src[i];
}

}  // namespace

namespace testutil {

cudaError_t
late_copy (void *dst, const void *src, size_t n, int us, cudaStream_t stream)
{
  late_copy_kernel<<<64, 256, 0, stream>>> (static_cast<uint8_t *> (dst),
      static_cast<const uint8_t *> (src), n, (unsigned long long) us * 1000);
  return cudaGetLastError ();
}

}  // namespace testutil
