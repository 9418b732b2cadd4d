// glibc's malloc statistics and trimming (malloc.h), for CadenceMemory.
#include <malloc.h>
#include <stdio.h>
