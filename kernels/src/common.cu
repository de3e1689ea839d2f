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

/* An attribute of the current device, fallback when the query fails. */
int
device_attribute (cudaDeviceAttr attr, int fallback)
{
  int dev = 0, v = fallback;
  if (cudaGetDevice (&dev) != cudaSuccess ||
      cudaDeviceGetAttribute (&v, attr, dev) != cudaSuccess) {
    cudaGetLastError ();
    return fallback;
  }
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
