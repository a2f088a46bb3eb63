/* SPDX-License-Identifier: MIT */
/*
 * manifest_facts.h - the manifest's host facts (format 1.4, facts.h) to and from its protobuf
 * message; internal to the images library (manifest.c).
 */
#ifndef CUDASTORE_MANIFEST_FACTS_H
#define CUDASTORE_MANIFEST_FACTS_H

#include <stddef.h>

#include "cudastore.pb-c.h"
#include "manifest.h"

struct cs_facts_pb;

/* m's facts into pm (pointing into the returned holder, which must outlive pm's use); NULL when
 * out of memory. Nothing is set when m records none. */
struct cs_facts_pb *cs_facts_to_pb(const struct cs_manifest *m, CsManifest *pm);
void cs_facts_pb_free(struct cs_facts_pb *f);
/* pm's facts within the limits of facts.h (and each custom device's GPU among them): 0, or
 * -EINVAL naming the field in err */
int cs_facts_check_pb(const CsManifest *pm, char *err, size_t errlen);
/* pm's checked facts into m */
void cs_facts_from_pb(const CsManifest *pm, struct cs_manifest *m);

#endif /* CUDASTORE_MANIFEST_FACTS_H */
