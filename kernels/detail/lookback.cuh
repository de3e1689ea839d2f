/* Device helpers for soft synchronization between blocks of one kernel:
 * acquire/release accesses at GPU scope and a polite spin. Producer pattern:
 *   all threads store data; __syncthreads(); one thread: __threadfence();
 *   st_release_gpu(flag, v);
 * consumer pattern:
 *   one thread (or warp) polls ld_acquire_gpu(flag); __syncthreads(); all
 *   threads read the data with L2-coherent loads (__ldcg), never through L1. */
#pragma once

#include <cstdint>

namespace cip {
namespace detail {

__device__ __forceinline__ uint32_t
ld_acquire_gpu (const uint32_t *p)
{
  uint32_t v;
  asm volatile ("ld.acquire.gpu.global.u32 %0, [%1];" : "=r" (v) : "l" (p)
      : "memory");
  return v;
}

__device__ __forceinline__ void
st_release_gpu (uint32_t *p, uint32_t v)
{
  asm volatile ("st.release.gpu.global.u32 [%0], %1;" : : "l" (p), "r" (v)
      : "memory");
}

/* Spins (one thread) until *flag >= want, with exponential back-off. */
__device__ __forceinline__ uint32_t
spin_until_at_least (const uint32_t *flag, uint32_t want)
{
  uint32_t v = ld_acquire_gpu (flag);
  unsigned ns = 16;
  while (v < want) {
    __nanosleep (ns);
    if (ns < 128)
      ns *= 2;
    v = ld_acquire_gpu (flag);
  }
  return v;
}

}  // namespace detail
}  // namespace cip
