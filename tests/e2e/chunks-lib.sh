# Helpers of the chunked-images scenarios (docs/image-format.md section 10); sourced after lib.sh.

# new_bytes DIR: bytes of the chunk files only DIR links (link count 1): what its dump wrote
new_bytes() {
	find "$1/cudastore-chunks" -type f -links 1 -printf '%s\n' 2>/dev/null | awk '{s += $1} END {print s + 0}'
}
# chunk_bytes DIR: bytes of every chunk file DIR links
chunk_bytes() {
	find "$1/cudastore-chunks" -type f -printf '%s\n' 2>/dev/null | awk '{s += $1} END {print s + 0}'
}
# no_extents DIR: a chunked dump wrote no extent file
no_extents() { ! ls "$1"/cudastore-*.ext >/dev/null 2>&1; }
# tree_sum DIR: every file of DIR's cudastore set and chunks, with its content hash
tree_sum() { (cd "$1" && find cudastore-* -type f -exec sha256sum {} + 2>/dev/null | sort); }
# manifest_new_bytes DIR NSPID: the bytes the dump wrote rather than linked, as its manifest says
manifest_new_bytes() {
	"$top_builddir/tests/e2e/cs-manifest-tool" "$1/cudastore-$2.img" show |
		awk '$3 == "chunks" {s += $NF} END {print s + 0}'
}
# unique_bytes DIR...: bytes of the distinct chunk files (inodes) under the DIRs: the storage
# they take together, each hard-linked chunk counted once
unique_bytes() {
	find "$@" -type f -printf '%i %s\n' 2>/dev/null | sort -u | awk '{s += $2} END {print s + 0}'
}
