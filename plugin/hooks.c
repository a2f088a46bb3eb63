// SPDX-License-Identifier: MIT
/* hooks.c - placeholder */
#include "criu-plugin.h"
