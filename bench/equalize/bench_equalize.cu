#include "bench.h"
#include "cip/equalize.h"
int main () { return 0; }
