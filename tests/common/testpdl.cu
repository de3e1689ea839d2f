/* The tests' helpers that need the library's CUDA-only header (kernels/
 * detail/launch.cuh): a late writer for the tests of PDL between calls,
 * and its device attributes. See testcuda.h. */
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

const char *
device_attributes_mismatch ()
{
  struct Attr { const char *name; int (*lib) (); cudaDeviceAttr attr; };
  const Attr attrs[] = {
    { "sm_count", cip::detail::sm_count, cudaDevAttrMultiProcessorCount },
    { "smem_per_sm", cip::detail::smem_per_sm,
      cudaDevAttrMaxSharedMemoryPerMultiprocessor },
    { "max_optin_smem", cip::detail::max_optin_smem,
      cudaDevAttrMaxSharedMemoryPerBlockOptin },
    { "l2_cache_bytes", cip::detail::l2_cache_bytes, cudaDevAttrL2CacheSize },
  };
  int dev = 0;
  if (cudaGetDevice (&dev) != cudaSuccess)
    return "cudaGetDevice";
  for (const Attr &a : attrs) {
    int want = -1;
    if (cudaDeviceGetAttribute (&want, a.attr, dev) != cudaSuccess)
      return a.name;
    for (int k = 0; k < 2; k++)
      if (a.lib () != want)
        return a.name;
  }
  return nullptr;
}

}  // namespace testutil
