/* Device-memory helpers for the GPU cases of the kernel tests (builds with
 * CUDA only). */
#pragma once

#include <cuda_runtime.h>
#include <gst/check/gstcheck.h>

#include <cstdint>
#include <vector>

/* Fails the running test when a CUDA call fails. */
#define CUDA_OK(call)                                                      \
  do {                                                                     \
    cudaError_t e_ = (call);                                               \
    fail_unless (e_ == cudaSuccess, "%s: %s", #call, cudaGetErrorString (e_)); \
  } while (0)

namespace testutil {

/* Device memory owned by a test (fails the test if it cannot be had). */
struct DevBuf {
  uint8_t *p = nullptr;
  size_t n = 0;
  DevBuf () = default;
  explicit DevBuf (size_t bytes) : n (bytes) {
    CUDA_OK (cudaMalloc ((void **) &p, bytes ? bytes : 1));
  }
  DevBuf (const DevBuf &) = delete;
  DevBuf &operator= (const DevBuf &) = delete;
  ~DevBuf () { if (p) cudaFree (p); }

  /* Host to device, complete on return: a cudaMemcpy from pageable memory
   * may return before its DMA lands and does not order with non-blocking
   * streams, which the kernels run on. */
  void upload (const void *h, size_t bytes) {
    CUDA_OK (cudaMemcpy (p, h, bytes, cudaMemcpyHostToDevice));
    CUDA_OK (cudaDeviceSynchronize ());
  }
  void upload (const std::vector<uint8_t> &h) { upload (h.data (), h.size ()); }

  std::vector<uint8_t> download () const {
    std::vector<uint8_t> h (n);
    CUDA_OK (cudaMemcpy (h.data (), p, n, cudaMemcpyDeviceToHost));
    return h;
  }
};

/* Copies n bytes from src to dst on `stream` in a kernel that first lets
 * the next kernel on the stream be scheduled (PDL), then waits `us`
 * microseconds: a kernel launched after it with PDL that reads dst before
 * waiting for it (griddepcontrol.wait) reads the old bytes. Without PDL
 * (before sm_90) an ordinary late copy. */
cudaError_t late_copy (void *dst, const void *src, size_t n, int us,
    cudaStream_t stream);

/* The library's device attributes (detail/launch.cuh: SMs, shared memory
 * per SM and per block opted in, L2), each asked for twice (the second
 * answer from its cache) against the runtime's: the name of the first that
 * differs, or nullptr. */
const char *device_attributes_mismatch ();

}  // namespace testutil
