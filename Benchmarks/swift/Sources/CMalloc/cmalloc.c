// (A C target needs a source file; everything used is declared in include/cmalloc.h.)
#include "cmalloc.h"
