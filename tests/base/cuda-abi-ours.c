// SPDX-License-Identifier: MIT
/* the ABI facts as our own declarations state them */
#include "cuda_api.h"
#include "cuda-abi.h"

#define FACT(n, e) { n, (long)(e) },
const struct cs_abi_fact cs_abi_ours[] = { CS_ABI_FACTS(FACT){ 0, 0 } };
