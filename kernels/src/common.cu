/* CUDA-side helpers shared by every kernel family. */
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <algorithm>
#include <atomic>

#include "detail/check.cuh"
#include "detail/launch.cuh"

namespace cip {

static thread_local char last_error[256];

const char *
last_cuda_error ()
{
  return last_error;
}

bool
gpu_available ()
{
  int n = 0;
  if (cudaGetDeviceCount (&n) != cudaSuccess) {
    cudaGetLastError ();        /* clear the sticky-free error */
    return false;
  }
  return n > 0;
}

namespace {

__global__ void __launch_bounds__ (256)
fill_words_kernel (uint8_t *data, size_t pitch, int width, int height,
    uint16_t value)
{
  for (int y = blockIdx.y; y < height; y += gridDim.y) {
    uint16_t *row = reinterpret_cast<uint16_t *> (data + (size_t) y * pitch);
    for (int x = blockIdx.x * blockDim.x + threadIdx.x; x < width;
        x += gridDim.x * blockDim.x)
      row[x] = value;
  }
}

}  // namespace

Status
fill_words (void *data, size_t pitch, int width, int height, uint16_t value,
    Stream stream)
{
  if (width < 0 || height < 0 || (height > 1 && pitch < 2 * (size_t) width) ||
      (((uintptr_t) data | pitch) & 1))
    return Status::invalid_argument;
  if (width == 0 || height == 0)
    return Status::ok;
  if (!data)
    return Status::invalid_argument;
  const dim3 grid ((unsigned) std::min ((width + 255) / 256, 64),
      (unsigned) std::min (height, 65535));
  fill_words_kernel<<<grid, 256, 0, (cudaStream_t) stream>>> (
      static_cast<uint8_t *> (data), pitch, width, height, value);
  return detail::check_launch ((cudaStream_t) stream, "fill_words");
}

namespace {

struct RowCopies {
  RowCopy c[kMaxRowCopies];
};

/* Copy blockIdx.y, in elements of T (the copy's addresses, pitches and row
 * length all multiples of sizeof (T)). */
template <typename T>
__device__ __forceinline__ void
copy_rows_as (const RowCopy &c)
{
  const size_t w = c.row_bytes / sizeof (T);
  const size_t n = w * c.rows;
  for (size_t i = (size_t) blockIdx.x * blockDim.x + threadIdx.x; i < n;
      i += (size_t) gridDim.x * blockDim.x) {
    const size_t y = i / w, x = i - y * w;
    reinterpret_cast<T *> (static_cast<char *> (c.dst) + y * c.dst_pitch)[x] =
        reinterpret_cast<const T *> (static_cast<const char *> (c.src) +
        y * c.src_pitch)[x];
  }
}

__global__ void __launch_bounds__ (256)
copy_rows_kernel (const __grid_constant__ RowCopies p)
{
  const RowCopy &c = p.c[blockIdx.y];
  const uintptr_t a = (uintptr_t) c.dst | (uintptr_t) c.src | c.dst_pitch |
      c.src_pitch | c.row_bytes;
  if ((a & 15) == 0)
    copy_rows_as<uint4> (c);
  else if ((a & 3) == 0)
    copy_rows_as<uint32_t> (c);
  else
    copy_rows_as<uint8_t> (c);
}

}  // namespace

Status
copy_rows (const RowCopy *copies, int n, Stream stream)
{
  if (n < 0 || n > kMaxRowCopies || (n > 0 && !copies))
    return Status::invalid_argument;
  RowCopies p = {};
  size_t most = 0;
  for (int i = 0; i < n; i++) {
    const RowCopy &c = copies[i];
    if (c.row_bytes && c.rows && (!c.dst || !c.src ||
            (c.rows > 1 && (c.dst_pitch < c.row_bytes ||
                    c.src_pitch < c.row_bytes))))
      return Status::invalid_argument;
    p.c[i] = c;
    most = std::max (most, c.row_bytes * c.rows);
  }
  if (most == 0)
    return Status::ok;
  /* a block of 256 threads per 4 KiB (16-byte elements), at most 256 */
  const dim3 grid ((unsigned) std::min<size_t> ((most + 4095) / 4096, 256),
      (unsigned) n);
  copy_rows_kernel<<<grid, 256, 0, (cudaStream_t) stream>>> (p);
  return detail::check_launch ((cudaStream_t) stream, "copy_rows");
}

namespace detail {

Status
record_cuda_error (cudaError_t err)
{
  snprintf (last_error, sizeof (last_error), "%s: %s", cudaGetErrorName (err),
      cudaGetErrorString (err));
  if (err == cudaErrorMemoryAllocation)
    return Status::out_of_memory;
  return Status::cuda_error;
}

static bool
debug_sync ()
{
  static const bool on = [] {
    const char *e = getenv ("CIP_DEBUG_SYNC");
    return e && *e && strcmp (e, "0") != 0;
  }();
  return on;
}

Status
check_launch (cudaStream_t stream, const char *what)
{
  cudaError_t err = cudaPeekAtLastError ();
  if (err == cudaSuccess && debug_sync ())
    err = cudaStreamSynchronize (stream);
  if (err != cudaSuccess) {
    cudaGetLastError ();
    Status s = record_cuda_error (err);
    size_t n = strlen (last_error);
    snprintf (last_error + n, sizeof (last_error) - n, " (%s)", what);
    return s;
  }
  return Status::ok;
}

namespace {

/* The attributes asked for on every call (tiled's first pass: SMs and
 * shared memory per SM, L2), cached per device: properties of the device,
 * unlike what a context opts in to. */
constexpr cudaDeviceAttr kCachedAttrs[] = {
  cudaDevAttrMultiProcessorCount, cudaDevAttrMaxSharedMemoryPerMultiprocessor,
  cudaDevAttrL2CacheSize, cudaDevAttrMaxSharedMemoryPerBlockOptin
};
constexpr int kNumCached = sizeof (kCachedAttrs) / sizeof (kCachedAttrs[0]);
constexpr int kCachedDevices = 64;
/* value + 1; 0: not asked, or the query failed */
std::atomic<int> g_attrs[kCachedDevices][kNumCached];

/* An attribute of the current device, fallback when the query fails. */
int
device_attribute (cudaDeviceAttr attr, int fallback)
{
  int dev = 0, v = fallback;
  if (cudaGetDevice (&dev) != cudaSuccess) {
    cudaGetLastError ();
    return fallback;
  }
  int k = 0;
  while (k < kNumCached && kCachedAttrs[k] != attr)
    k++;
  std::atomic<int> *slot = k < kNumCached && dev >= 0 &&
      dev < kCachedDevices ? &g_attrs[dev][k] : nullptr;
  const int c = slot ? slot->load (std::memory_order_relaxed) : 0;
  if (c > 0)
    return c - 1;
  if (cudaDeviceGetAttribute (&v, attr, dev) != cudaSuccess) {
    cudaGetLastError ();
    return fallback;
  }
  if (slot && v >= 0)
    slot->store (v + 1, std::memory_order_relaxed);
  return v;
}

}  // namespace

int
max_optin_smem ()
{
  return device_attribute (cudaDevAttrMaxSharedMemoryPerBlockOptin, 48 * 1024);
}

int
l2_cache_bytes ()
{
  return device_attribute (cudaDevAttrL2CacheSize, 0);
}

int
sm_count ()
{
  return device_attribute (cudaDevAttrMultiProcessorCount, 0);
}

int
smem_per_sm ()
{
  return device_attribute (cudaDevAttrMaxSharedMemoryPerMultiprocessor, 0);
}

namespace {

/* compiled with the flags of every kernel of the library */
__global__ void
pdl_probe ()
{
}

constexpr int kPdlDevices = 64;
std::atomic<int> g_pdl[kPdlDevices];    /* 0 not asked, 1 no, 2 yes */

}  // namespace

bool
pdl_supported ()
{
#if CIP_SAT_PDL
  int dev = 0;
  if (cudaGetDevice (&dev) != cudaSuccess || dev < 0 || dev >= kPdlDevices) {
    cudaGetLastError ();
    return false;
  }
  int v = g_pdl[dev].load (std::memory_order_relaxed);
  if (v == 0) {
    /* the code that runs here, not only the device, must be sm_90's */
    cudaFuncAttributes fa;
    bool yes = device_attribute (cudaDevAttrComputeCapabilityMajor, 0) >= 9;
    if (yes && cudaFuncGetAttributes (&fa, pdl_probe) != cudaSuccess) {
      cudaGetLastError ();
      yes = false;
    }
    v = yes && fa.ptxVersion >= 90 ? 2 : 1;
    g_pdl[dev].store (v, std::memory_order_relaxed);
  }
  return v == 2;
#else
  return false;
#endif
}

namespace {
std::atomic<bool> g_between_calls_pdl (true);
}

bool
between_calls_pdl ()
{
  return g_between_calls_pdl.load (std::memory_order_relaxed) &&
      pdl_supported ();
}

void
set_between_calls_pdl (bool on)
{
  g_between_calls_pdl.store (on, std::memory_order_relaxed);
}

}  // namespace detail
}  // namespace cip
