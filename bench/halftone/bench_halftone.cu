#include "bench.h"
#include "cip/halftone.h"
int main () { return 0; }
