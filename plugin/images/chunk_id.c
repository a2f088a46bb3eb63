/* SPDX-License-Identifier: MIT */
/*
 * chunk_id.c - "sha256-tree-4k" chunk ids on the CPU (chunk_id.h), with libcrypto's EVP SHA-256.
 * The leaves' digests are fed to the root's digest as they are made, so no table of them is
 * kept whatever the chunk's size.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <openssl/evp.h>

#include "chunk_id.h"
#include "le.h"

static EVP_MD *sha256_md;
static pthread_once_t sha256_once = PTHREAD_ONCE_INIT;

/* fetched once: an implicit fetch at every EVP_DigestInit_ex costs about as much as a leaf */
static void sha256_fetch(void)
{
	sha256_md = EVP_MD_fetch(NULL, "SHA256", NULL);
}

static const EVP_MD *sha256(void)
{
	pthread_once(&sha256_once, sha256_fetch);
	return sha256_md;
}

/* SHA-256 of len bytes at p into out, with ctx (reused by the caller). 0 or -EIO. */
static int leaf_digest(EVP_MD_CTX *ctx, const EVP_MD *md, const void *p, size_t len, uint8_t out[32])
{
	unsigned int olen = 0;

	if (!EVP_DigestInit_ex(ctx, md, NULL) || !EVP_DigestUpdate(ctx, p, len) ||
	    !EVP_DigestFinal_ex(ctx, out, &olen) || olen != CS_CHUNK_ID_LEN)
		return -EIO;
	return 0;
}

/* the root's last input, le64(len), and its digest into id. 0 or -EIO. */
static int root_final(EVP_MD_CTX *root, uint64_t len, uint8_t id[CS_CHUNK_ID_LEN])
{
	uint8_t tail[8];
	unsigned int olen = 0;

	cs_put_le(tail, len, 8);
	if (!EVP_DigestUpdate(root, tail, sizeof(tail)) || !EVP_DigestFinal_ex(root, id, &olen) ||
	    olen != CS_CHUNK_ID_LEN)
		return -EIO;
	return 0;
}

int cs_chunk_id(const void *buf, size_t len, uint8_t id[CS_CHUNK_ID_LEN])
{
	const EVP_MD *md = sha256();
	const uint8_t *p = buf;
	EVP_MD_CTX *leaf = NULL, *root = NULL;
	uint8_t digest[CS_CHUNK_ID_LEN];
	int ret = -ENOMEM;

	if (!buf && len)
		return -EINVAL;
	if (!md)
		return -EIO;
	leaf = EVP_MD_CTX_new();
	root = EVP_MD_CTX_new();
	if (!leaf || !root)
		goto err_free;
	ret = -EIO;
	if (!EVP_DigestInit_ex(root, md, NULL))
		goto err_free;
	for (size_t off = 0; off < len; off += CS_CHUNK_LEAF) {
		size_t n = len - off < CS_CHUNK_LEAF ? len - off : CS_CHUNK_LEAF;

		ret = leaf_digest(leaf, md, p + off, n, digest);
		if (ret)
			goto err_free;
		ret = -EIO;
		if (!EVP_DigestUpdate(root, digest, sizeof(digest)))
			goto err_free;
	}
	ret = root_final(root, len, id);
err_free:
	EVP_MD_CTX_free(leaf);
	EVP_MD_CTX_free(root);
	return ret;
}

int cs_chunk_id_from_leaves(const uint8_t *leaves, size_t nleaves, uint64_t len, uint8_t id[CS_CHUNK_ID_LEN])
{
	const EVP_MD *md = sha256();
	EVP_MD_CTX *root;
	int ret = -EIO;

	if (nleaves != len / CS_CHUNK_LEAF + (len % CS_CHUNK_LEAF != 0) || (!leaves && nleaves))
		return -EINVAL;
	if (!md)
		return -EIO;
	root = EVP_MD_CTX_new();
	if (!root)
		return -ENOMEM;
	if (EVP_DigestInit_ex(root, md, NULL) &&
	    (!nleaves || EVP_DigestUpdate(root, leaves, nleaves * CS_CHUNK_ID_LEN)))
		ret = root_final(root, len, id);
	EVP_MD_CTX_free(root);
	return ret;
}

void cs_chunk_id_hex(const uint8_t id[CS_CHUNK_ID_LEN], char hex[2 * CS_CHUNK_ID_LEN + 1])
{
	static const char digits[] = "0123456789abcdef";

	for (unsigned i = 0; i < CS_CHUNK_ID_LEN; i++) {
		hex[2 * i] = digits[id[i] >> 4];
		hex[2 * i + 1] = digits[id[i] & 15];
	}
	hex[2 * CS_CHUNK_ID_LEN] = '\0';
}
