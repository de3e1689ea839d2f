/* Warp-level scans (Kogge-Stone over shuffles) for 32- and 64-bit integers. */
#pragma once

#include <cstdint>

namespace cip {
namespace detail {

/* Inclusive prefix sum over the lanes of a full warp (wrap-around for
 * unsigned types). All 32 lanes must call it. */
template <typename T>
__device__ __forceinline__ T
warp_inclusive_scan (T v, int lane)
{
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    T n = __shfl_up_sync (0xffffffffu, v, d);
    if (lane >= d)
      v += n;
  }
  return v;
}

/* The same for uint32_t, the CUB way: the shuffle's predicate says whether
 * the source lane exists, so a step is two instructions (shuffle and a
 * predicated add) where the generic one also selects. For hot loops. */
__device__ __forceinline__ uint32_t
warp_inclusive_scan_u32 (uint32_t v)
{
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    uint32_t r;
    asm ("{\n\t.reg .u32 t;\n\t.reg .pred p;\n\t"
        "shfl.sync.up.b32 t|p, %1, %2, 0, -1;\n\t"
        "@p add.u32 t, t, %1;\n\t"
        "mov.u32 %0, t;\n\t}" : "=r" (r) : "r" (v), "r" (d));
    v = r;
  }
  return v;
}

/* Same over the first N lanes only (N a power of two <= 32); lanes >= N get
 * partial sums of their own group of N and must ignore them. */
template <int N, typename T>
__device__ __forceinline__ T
warp_inclusive_scan_n (T v, int lane)
{
  static_assert (N >= 1 && N <= 32 && (N & (N - 1)) == 0, "N: power of two");
#pragma unroll
  for (int d = 1; d < N; d <<= 1) {
    T n = __shfl_up_sync (0xffffffffu, v, d, N);
    if ((lane & (N - 1)) >= d)
      v += n;
  }
  return v;
}

/* Sum over the lanes of a full warp, in every lane (wrap-around for
 * unsigned types). All 32 lanes must call it. */
template <typename T>
__device__ __forceinline__ T
warp_sum (T v)
{
#pragma unroll
  for (int d = 16; d >= 1; d >>= 1)
    v += __shfl_xor_sync (0xffffffffu, v, d);
  return v;
}

}  // namespace detail
}  // namespace cip
