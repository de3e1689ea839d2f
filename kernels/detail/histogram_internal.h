/* Internals of the histogram family shared by histogram.cu, the host code and
 * the CPU reference. Plain C++. Not part of the public API. */
#pragma once

#include "cip/histogram.h"

namespace cip {
namespace detail {

/* Checks every argument that does not depend on the device (ok for valid
 * requests, empty ones included). */
Status histogram_validate (const HistInput *inputs, int count, int bins,
    const void *hist);

/* The variant `automatic` runs for a group of `members` inputs read together. */
HistAlgorithm histogram_pick_group (uint64_t pixels, int members, int bins);

}  // namespace detail
}  // namespace cip
