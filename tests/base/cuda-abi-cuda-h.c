// SPDX-License-Identifier: MIT
/* the ABI facts as NVIDIA's cuda.h states them (built only when configure found a cuda.h) */
#include <stddef.h>
#include <cuda.h>
#include "cuda-abi.h"

#define FACT(n, e) { n, (long)(e) },
const struct cs_abi_fact cs_abi_cuda_h[] = { CS_ABI_FACTS(FACT){ 0, 0 } };
const int cs_abi_cuda_version = CUDA_VERSION;
