// SPDX-License-Identifier: MIT
/*
 * said.c - what one run of a command has said so far: its first error message and whether its
 * JSON object is out.
 *
 * out.c notes each message it prints on stderr here, and json.c notes the object it prints and
 * reads the first message back for the error object (cli_json_error_if_silent). Both call down
 * into this file, and neither calls the other.
 */
#include <stdio.h>

#include "cli.h"

static char first_error[2048];
static bool json_printed;

void cli_said_error(const char *fmt, va_list ap)
{
	if (!first_error[0])
		vsnprintf(first_error, sizeof(first_error), fmt, ap);
}

const char *cli_first_error(void)
{
	return first_error;
}

void cli_said_json(void)
{
	json_printed = true;
}

bool cli_json_said(void)
{
	return json_printed;
}

void cli_forget_output(void)
{
	first_error[0] = '\0';
	json_printed = false;
}
