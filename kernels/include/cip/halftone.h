/* cip halftone: placeholder, being written. */
#pragma once

#include "cip/cip.h"
