/* The NppStreamContext every NPP baseline of the benches runs with (builds
 * with -DHAVE_NPP only, see bench/build-device.sh): NPP's stream-context API
 * on `stream`, with the current device's properties. */
#pragma once

#ifdef HAVE_NPP
#include <npp.h>

#include <cstring>

#include "bench.h"

namespace bench {

inline NppStreamContext
npp_stream_context (cudaStream_t stream)
{
  NppStreamContext c;
  memset (&c, 0, sizeof (c));
  int dev = 0;
  cudaDeviceProp p;
  BENCH_CHECK (cudaGetDevice (&dev));
  BENCH_CHECK (cudaGetDeviceProperties (&p, dev));
  unsigned flags = 0;
  BENCH_CHECK (cudaStreamGetFlags (stream, &flags));
  c.hStream = stream;
  c.nCudaDeviceId = dev;
  c.nMultiProcessorCount = p.multiProcessorCount;
  c.nMaxThreadsPerMultiProcessor = p.maxThreadsPerMultiProcessor;
  c.nMaxThreadsPerBlock = p.maxThreadsPerBlock;
  c.nSharedMemPerBlock = p.sharedMemPerBlock;
  c.nCudaDevAttrComputeCapabilityMajor = p.major;
  c.nCudaDevAttrComputeCapabilityMinor = p.minor;
  c.nStreamFlags = flags;
  return c;
}

}  // namespace bench

#endif
